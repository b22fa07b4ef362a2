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

    /// The prefixes as RFC 8017 §9.2, note 1, prints them, byte for byte, and each OID both ways.
    func testThePrefixesAreRFC8017s() throws {
        let printed: [DigestAlgorithm: String] = [
            .sha1: "3021300906052b0e03021a05000414",
            .sha224: "302d300d06096086480165030402040500041c",
            .sha256: "3031300d060960864801650304020105000420",
            .sha384: "3041300d060960864801650304020205000430",
            .sha512: "3051300d060960864801650304020305000440",
        ]
        for algorithm in DigestAlgorithm.allCases {
            XCTAssertEqual(
                Data(algorithm.digestInfoPrefix), try bytes(try XCTUnwrap(printed[algorithm])), "\(algorithm)")
            XCTAssertEqual(DigestAlgorithm(oid: algorithm.oid), algorithm)
        }
        XCTAssertNil(DigestAlgorithm(oid: "1.2.840.113549.2.5"), "MD5")
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
