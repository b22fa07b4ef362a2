import XCTest

@testable import TamgaCore

final class ECDSASignatureTests: XCTestCase {
    private func der(r: [UInt8], s: [UInt8]) -> Data {
        func int(_ m: [UInt8]) -> [UInt8] {
            let v = m.first.map { $0 & 0x80 != 0 } == true ? [0] + m : m
            return [0x02, UInt8(v.count)] + v
        }
        let body = int(r) + int(s)
        return Data([0x30, UInt8(body.count)] + body)
    }

    func testShortHalvesArePaddedToTheFullFieldWidth() throws {
        // r is 31 bytes, s is 30: the raw form must still be 64 bytes (xmlsec accepts nothing else).
        let r = [UInt8](repeating: 0x11, count: 31), s = [UInt8](repeating: 0x22, count: 30)
        let raw = try ECDSASignature.raw(fromDER: der(r: r, s: s), curve: .p256)
        XCTAssertEqual(raw.count, 64)
        XCTAssertEqual([UInt8](raw), [0] + r + [0, 0] + s)
    }

    func testHighBitValuesRoundTripThroughDER() throws {
        let r = [UInt8](repeating: 0xF0, count: 48), s = [UInt8](repeating: 0x80, count: 48)
        let raw = Data(r + s)
        let encoded = try ECDSASignature.der(fromRaw: raw, curve: .p384)
        XCTAssertEqual(encoded, der(r: r, s: s))
        XCTAssertEqual(try ECDSASignature.raw(fromDER: encoded, curve: .p384), raw)
    }

    func testRawOfTheWrongWidthIsRefused() {
        XCTAssertThrowsError(try ECDSASignature.der(fromRaw: Data(count: 63), curve: .p256))
        XCTAssertThrowsError(try ECDSASignature.der(fromRaw: Data(count: 96), curve: .p256))
    }

    func testNonMinimalNegativeAndTrailingDERAreRefused() {
        XCTAssertThrowsError(
            try ECDSASignature.raw(fromDER: Data([0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01]), curve: .p256))
        XCTAssertThrowsError(
            try ECDSASignature.raw(fromDER: Data([0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01]), curve: .p256))
        XCTAssertThrowsError(try ECDSASignature.raw(fromDER: der(r: [1], s: [1]) + Data([0]), curve: .p256))
        XCTAssertThrowsError(
            try ECDSASignature.raw(fromDER: der(r: [UInt8](repeating: 1, count: 33), s: [1]), curve: .p256))
    }
}
