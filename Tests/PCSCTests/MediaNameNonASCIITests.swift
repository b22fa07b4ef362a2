import XCTest

@testable import PCSC

/// Media and reader names come from pcscd and CryptoPro: hex serials and index digits are ASCII
/// only. Characters that `Character.isHexDigit`/`isNumber` also accept (fullwidth a, Arabic-Indic
/// one, …) make the name unknown (nil, no index), never a number.
final class MediaNameNonASCIITests: XCTestCase {
    static let lookAlikes = [
        "\u{FF10}", "\u{FF11}", "\u{FF41}", "\u{FF21}", "\u{0661}", "\u{06F1}", "\u{0967}", "\u{00B2}", "\u{216B}",
        "\u{2460}",
    ]

    func testASerialWithNonASCIIHexDigitsIsNoMediaName() {
        XCTAssertNotNil(MediaName("rutoken_ecp_4a1b2c3d"), "the ASCII form parses")
        for odd in Self.lookAlikes {
            for name in [
                "rutoken_ecp_4a1b2c3" + odd, "rutoken_lt_" + odd + "0d27c56",
                "pkcs11_rutoken_ecp_" + String(repeating: odd, count: 8),
            ] {
                XCTAssertNil(MediaName(name), name)
            }
        }
    }

    func testAReaderIndexOfNonASCIIDigitsIsNoIndex() {
        XCTAssertEqual(ReaderName("Aktiv Rutoken ECP 01 00").index, 1, "the ASCII form parses")
        for odd in Self.lookAlikes {
            for name in [
                "Aktiv Rutoken ECP 01 0" + odd, "Aktiv Rutoken ECP " + odd + odd + " " + odd + odd,
                "Aktiv Rutoken ECP BT " + odd, "Aktiv Rutoken ECP 1" + odd,
            ] {
                let reader = ReaderName(name)
                XCTAssertNil(reader.index, name)
                XCTAssertNil(reader.slot, name)
            }
        }
    }
}
