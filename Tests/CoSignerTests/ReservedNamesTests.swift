import XCTest

@testable import CoSigner

/// The co-signer's own session names cannot be taken by a relying party under any spelling a
/// person could not tell apart: compatibility forms (full width), case, accents, spaces and
/// punctuation are folded away before comparing (ICU's NFKC and NFD, loaded on first use).
final class ReservedNamesTests: XCTestCase {
    func testEverySpellingOfAReservedNameIsRefused() {
        for name in [
            "this device", "THIS DEVICE", "this-device", "Thís Devíce", "ｔｈｉｓ ｄｅｖｉｃｅ", "this\u{200B}device",
            "T.H.I.S device",
        ] {
            XCTAssertEqual(ReservedNames.reserved(name), ReservedNames.thisDevice, name)
        }
        for name in ["co-signer CA", "Co Signer CA", "cosigner ca", "ＣＯ－ＳＩＧＮＥＲ　ＣＡ"] {
            XCTAssertEqual(ReservedNames.reserved(name), ReservedNames.certificateAuthority, name)
        }
        XCTAssertEqual(ReservedNames.reserved("Device: 38001085718"), "device:…")
        XCTAssertEqual(ReservedNames.reserved("ＤＥＶＩＣＥ:x"), "device:…")
        for name in ["Test Bank", "this device's bank", "Devices Inc", "CA Bank"] {
            XCTAssertNil(ReservedNames.reserved(name), name)
        }
    }
}
