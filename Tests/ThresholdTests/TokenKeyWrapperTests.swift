import Foundation
import PKCS11
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import Threshold

/// `TokenKeyWrapper` on a real SoftHSM token: what it wraps opens only under the same token
/// key and the same additional data, and bytes of any other shape are refused without a trap.
final class TokenKeyWrapperTests: XCTestCase {
    private func token() throws -> PKCS11Tokens.Token {
        _ = try SoftHSMToken.shared.get()
        return try PKCS11Tokens.choose(label: SoftHSMToken.label, in: PKCS11Tokens.modules(path: SoftHSMToken.module))
    }
    private var pin: SecretBytes { SecretBytes(Array(SoftHSMToken.pin.utf8)) }

    func testWhatIsWrappedOpensOnlyUnderTheSameKeyAndAdditionalData() throws {
        let token = try token()
        let label = "wrap-\(UUID().uuidString)", otherLabel = "wrap-other-\(UUID().uuidString)"
        try TokenKeyWrapper.makeKey(token: token, label: label, pin: pin)
        try TokenKeyWrapper.makeKey(token: token, label: otherLabel, pin: pin)
        let wrapper = try TokenKeyWrapper(token: token, keyLabel: label, pin: pin)
        let other = try TokenKeyWrapper(token: token, keyLabel: otherLabel, pin: pin)
        let secret = (0..<32).map { UInt8($0) }
        let wrapped = try wrapper.wrap(secret, additionalData: Array("a".utf8))
        XCTAssertEqual(wrapped.count, 1 + 12 + 32 + 16)
        XCTAssertFalse(
            wrapped.windows(ofCount: 32).contains { Array($0) == secret }, "the secret is not in the wrapped bytes")
        XCTAssertEqual(try wrapper.unwrap(wrapped, additionalData: Array("a".utf8)), secret)
        XCTAssertNil(try wrapper.unwrap(wrapped, additionalData: Array("b".utf8)), "other additional data")
        XCTAssertNil(try other.unwrap(wrapped, additionalData: Array("a".utf8)), "another token key")
        var tampered = wrapped
        tampered[20] ^= 1
        XCTAssertNil(try wrapper.unwrap(tampered, additionalData: Array("a".utf8)), "an altered byte")
        XCTAssertNil(try wrapper.unwrap([2] + wrapped.dropFirst(), additionalData: Array("a".utf8)), "another format")
        for length in [0, 1, 13, 28] {
            XCTAssertNil(TokenKeyWrapper.parse(Array(wrapped.prefix(length))), "\(length) bytes")
        }
        // A label that is taken is not made twice.
        XCTAssertThrowsError(try TokenKeyWrapper.makeKey(token: token, label: label, pin: pin)) {
            guard case ThresholdError.serverKeyUnsafe(let why)? = $0 as? ThresholdError else { return XCTFail("\($0)") }
            XCTAssertTrue(why.contains("already taken"), why)
        }
    }
}

private extension Array {
    /// Every run of `count` consecutive elements.
    func windows(ofCount count: Int) -> [ArraySlice<Element>] {
        guard self.count >= count else { return [] }
        return (0...(self.count - count)).map { self[$0..<($0 + count)] }
    }
}
