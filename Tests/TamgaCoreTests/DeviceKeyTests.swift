import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

/// The device key file: made once with mode 0600, the same key on every load, refused when
/// others can read it or when it is empty.
final class DeviceKeyTests: XCTestCase {
    func testMadeOncePrivateAndRefusedWhenExposedOrEmpty() throws {
        let folder = try TestEnvironment.temporaryFolder("device-key")
        defer { TestEnvironment.removeFolder(folder) }
        let file = folder.appendingPathComponent("device.key").path
        let made = try DeviceKey(file: file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(
            try DeviceKey(file: file).subjectPublicKeyInfo, made.subjectPublicKeyInfo, "loaded, not made again")
        let message = Data("challenge".utf8)
        XCTAssertTrue(
            DeviceKey.verify(try made.sign(message), message: message, subjectPublicKeyInfo: made.subjectPublicKeyInfo))
        XCTAssertFalse(
            DeviceKey.verify(
                try made.sign(message), message: Data("other".utf8), subjectPublicKeyInfo: made.subjectPublicKeyInfo))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path), ["device.key"], "no temporary file left")
        chmod(file, 0o644)
        XCTAssertThrowsError(try DeviceKey(file: file))
        chmod(file, 0o600)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: file, contents: Data(), attributes: [.posixPermissions: 0o600]))
        XCTAssertThrowsError(try DeviceKey(file: file), "an empty key (a crash of an older version) is reported")
    }
}
