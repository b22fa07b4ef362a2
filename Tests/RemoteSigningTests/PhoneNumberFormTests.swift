import XCTest

@testable import RemoteSigning

/// Mobile-ID's phone number form, checked before anything is sent: `+`, then 8 to 30 ASCII
/// digits (digits of other scripts are refused, as the service would).
final class PhoneNumberFormTests: XCTestCase {
    func testOnlyPlusAndEightToThirtyASCIIDigits() {
        for good in ["+37200000766", "+37060000666", "+12345678", "+" + String(repeating: "9", count: 30)] {
            XCTAssertTrue(MobileIDSigner.isPhoneNumber(good), good)
        }
        for bad in [
            "37200000766", "+3720000", "+" + String(repeating: "9", count: 31), "+372 0000 0766", "+٣٧٢٠٠٠٠٠٧٦٦",
            "++37200000766", "", "+",
        ] {
            XCTAssertFalse(MobileIDSigner.isPhoneNumber(bad), bad)
        }
    }
}
