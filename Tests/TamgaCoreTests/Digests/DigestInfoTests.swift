import TamgaCore
import XCTest

/// The DigestInfo a BDOC 2.1 time-mark carries in its OCSP nonce, read strictly.
final class DigestInfoTests: XCTestCase {
    private func bytes(_ hex: String) throws -> Data { Data(try Hex.decode(hex)) }

    func testEveryHashTheReferenceAcceptsIsRecognised() throws {
        for algorithm in DigestAlgorithm.allCases {
            let digest = Data(repeating: 0xAB, count: algorithm.length)
            let info = try DigestInfo(der: Data(algorithm.digestInfoPrefix) + digest)
            XCTAssertEqual(info.algorithm, algorithm)
            XCTAssertEqual(info.digest, digest)
        }
    }

    func testParametersMayBeAbsent() throws {
        // SEQUENCE { SEQUENCE { OID sha256 }, OCTET STRING (32) }
        let info = try DigestInfo(
            der: try bytes("302f300b0609608648016503040201" + "0420" + String(repeating: "11", count: 32)))
        XCTAssertEqual(info.algorithm, .sha256)
    }

    func testMD5IsReadButNotAHashTamgaAccepts() throws {
        let info = try DigestInfo(
            der: try bytes("3020300c06082a864886f70d020505000410" + String(repeating: "00", count: 16)))
        XCTAssertEqual(info.algorithmOID, "1.2.840.113549.2.5")
        XCTAssertNil(info.algorithm)
    }

    func testAnythingButExactlyOneDigestInfoIsRefused() throws {
        let good = Data(DigestAlgorithm.sha256.digestInfoPrefix) + Data(count: 32)
        for bad in [
            good + Data([0]), good.dropLast(), Data(good.dropFirst(2)), Data(),
            try bytes("3032300e06096086480165030402010101000420") + Data(count: 32),
        ] {  // BOOLEAN parameters
            XCTAssertThrowsError(try DigestInfo(der: Data(bad)), bad.map { String(format: "%02x", $0) }.joined())
        }
    }
}
