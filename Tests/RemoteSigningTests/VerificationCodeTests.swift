import Foundation
import RemoteSigning
import TamgaCore
import XCTest

/// The verification codes against the published examples (Mobile-ID's API README and the
/// services' Java clients' tests).
final class VerificationCodeTests: XCTestCase {
    func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }

    func testMobileIDCodes() {
        XCTAssertEqual(
            VerificationCode.mobileID(hash: hex("2f665f6a6999e0ef0752e00ec9f453adf59d8cb6")), "1462",
            "the API README's example")
        XCTAssertEqual(
            VerificationCode.mobileID(hash: Array(Digest.compute(.sha256, over: Data("HACKERMAN_SHA256".utf8)).bytes)),
            "6008")
        XCTAssertEqual(
            VerificationCode.mobileID(hash: Array(Digest.compute(.sha384, over: Data("HACKERMAN_SHA384".utf8)).bytes)),
            "7230")
        XCTAssertEqual(
            VerificationCode.mobileID(hash: Array(Digest.compute(.sha512, over: Data("HACKERMAN_SHA512".utf8)).bytes)),
            "3843")
        XCTAssertEqual(
            VerificationCode.mobileID(hash: [0xFF] + [UInt8](repeating: 0, count: 30) + [0x7F]), "8191",
            "the largest code")
        XCTAssertEqual(VerificationCode.mobileID(hash: [UInt8](repeating: 0, count: 32)), "0000", "zero-padded")
    }

    func testSmartIDCodes() {
        XCTAssertEqual(VerificationCode.smartID(hash: [0x1B, 0xBB]), "4555")
        XCTAssertEqual(
            VerificationCode.smartID(hash: Array(Digest.compute(.sha256, over: Data("Hello World!".utf8)).bytes)),
            "7712")
        XCTAssertEqual(
            VerificationCode.smartID(
                hash: Array(Digest.compute(.sha256, over: Data("Go ahead, make my day.".utf8)).bytes)), "7782")
    }
}
