import Foundation
import MobileID
import XCTest

/// The mobile-ID decoders take ASCII only. `Character.isNumber`, `isHexDigit` and `isLetter`
/// also accept fullwidth, Arabic-Indic, Devanagari, superscript and Roman-numeral characters
/// (fullwidth hex digits once crashed the co-signer); each must be refused with the decoder's
/// typed error, never reach a conversion that assumes ASCII.
final class MobileIDNonASCIIDigitTests: XCTestCase {
    /// Fullwidth 0 and 1, Arabic-Indic 1, Extended Arabic-Indic 1, Devanagari 1, superscript
    /// two, Roman numeral twelve, circled one, fullwidth a and A (hex digits to Swift),
    /// Latin é and Greek alpha (letters to Swift).
    static let lookAlikes = [
        "\u{FF10}", "\u{FF11}", "\u{0661}", "\u{06F1}", "\u{0967}", "\u{00B2}", "\u{216B}", "\u{2460}",
        "\u{FF41}", "\u{FF21}", "\u{00E9}", "\u{03B1}",
    ]

    func testBase64URLRefusesNonASCIIDigitsAndLetters() throws {
        XCTAssertEqual(try Base64URL.decode("AAAA", field: "data"), Data([0, 0, 0]), "the ASCII form decodes")
        for odd in Self.lookAlikes {
            for text in [odd + "AAA", "AAA" + odd, "AAAA" + odd + "AA=", String(repeating: odd, count: 4)] {
                XCTAssertThrowsError(try Base64URL.decode(text, field: "data"), text.debugDescription) { error in
                    XCTAssertEqual(
                        (error as? MobileIDError)?.code, "mobileid-not-base64", "\(text.debugDescription): \(error)")
                }
            }
        }
    }

    func testTransactionCodesWithNonASCIIDigitsAreRefused() throws {
        let real = "20220711161455371E5E8EA20"
        XCTAssertTrue(TransactionCode.isValid(real))
        XCTAssertNoThrow(
            try M200(object: ["type": "mip", "cmd": "200", "version": "1.0.0", "trxcode": real, "mode": "indirect"]))
        for odd in Self.lookAlikes {
            for position in 0..<real.count {
                var characters = Array(real)
                characters[position] = Character(odd)
                let code = String(characters)
                XCTAssertFalse(TransactionCode.isValid(code), code)
                XCTAssertThrowsError(
                    try M200(object: [
                        "type": "mip", "cmd": "200", "version": "1.0.0", "trxcode": code, "mode": "indirect",
                    ])
                ) { error in
                    XCTAssertEqual((error as? MobileIDError)?.code, "mobileid-malformed-trxcode", "\(code): \(error)")
                }
            }
        }
    }
}
