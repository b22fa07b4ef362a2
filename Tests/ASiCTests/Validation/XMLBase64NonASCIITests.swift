import Foundation
import XCTest

@testable import ASiC

/// xsd:base64Binary in signatures (SignatureValue, DigestValue, certificates, time-stamps, OCSP):
/// ASCII only. Fullwidth and Arabic-Indic digits or letters are not base64 (nil, which each
/// caller reports as a finding), never decoded as something else.
final class XMLBase64NonASCIITests: XCTestCase {
    static let lookAlikes = [
        "\u{FF10}", "\u{FF11}", "\u{FF41}", "\u{FF21}", "\u{0661}", "\u{06F1}", "\u{0967}", "\u{00B2}", "\u{216B}",
        "\u{2460}",
        "\u{00E9}", "\u{03B1}", "\u{3000}", "\u{00A0}",
    ]

    func testNonASCIIDigitsLettersAndSpacesAreNotBase64() {
        XCTAssertEqual(
            XMLBase64.decode("AAAA\n  AAAA"), Data(count: 6), "ASCII with the whitespace producers wrap with decodes")
        for odd in Self.lookAlikes {
            for text in [odd + "AAA", "AAAA" + odd + "AAA", "AAAA\n" + String(repeating: odd, count: 4)] {
                XCTAssertNil(XMLBase64.decode(text), text.debugDescription)
            }
        }
    }
}
