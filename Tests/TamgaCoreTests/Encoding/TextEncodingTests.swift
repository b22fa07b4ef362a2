import Foundation
import TamgaCore
import XCTest

/// The strict decoders every outside hex and base64 field goes through: ASCII only, typed
/// errors, no trap on any input.
final class TextEncodingTests: XCTestCase {
    func testHexRoundTripsAndAcceptsBothCases() throws {
        let bytes: [UInt8] = [0x00, 0x01, 0x7f, 0x80, 0xab, 0xff]
        XCTAssertEqual(Hex.encode(bytes), "00017f80abff")
        XCTAssertEqual(Hex.encode(bytes, uppercase: true), "00017F80ABFF")
        XCTAssertEqual(try Hex.decode("00017F80abFF"), bytes)
        XCTAssertEqual(try Hex.decode(""), [])
        XCTAssertEqual(try Hex.decode("abcd", count: 2), [0xab, 0xcd])
    }

    func testHexRefusesNonASCIIDigitsOddLengthsAndWrongCounts() {
        let hostile = [
            "\u{FF10}\u{FF10}",  // fullwidth digits: Character.isHexDigit says yes
            "\u{FF41}\u{FF42}",  // fullwidth letters
            "\u{0661}\u{0662}",  // Arabic-Indic digits: Character.isNumber says yes
            "0\u{0301}1",  // a combining mark
            "0x12", "12 34", "1", "abc", "gg", "\u{0}0",
        ]
        for text in hostile {
            XCTAssertThrowsError(try Hex.decode(text, field: "nonce"), text) { error in
                guard case CoreError.malformedText(let field, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(field, "nonce")
            }
            XCTAssertNil(Hex.bytes(text))
        }
        XCTAssertThrowsError(try Hex.decode("abcd", count: 3))
        XCTAssertThrowsError(try Hex.decode(String(repeating: "00", count: 5), maximumCount: 4))
    }

    func testBase64MatchesFoundationOnValidInput() throws {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Data(bytes).base64EncodedString()
            XCTAssertEqual(Base64.encode(bytes), text)
            XCTAssertEqual(try Base64.decode(text), bytes)
            let url = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            XCTAssertEqual(try Base64.decode(url, alphabet: .url), bytes)
        }
        XCTAssertEqual(try Base64.decode("AAEC\r\n AwQF\t", ignoringWhitespace: true), [0, 1, 2, 3, 4, 5])
    }

    func testBase64RefusesNonASCIIPaddingErrorsAndStrayBits() {
        let hostile = [
            "\u{FF21}\u{FF21}\u{FF21}\u{FF21}",  // fullwidth letters
            "AAE\u{0661}", "AA==AA==", "A===", "=", "AAE", "AB==", "AAB=", "AA AA", "AAEC\n",
            "AA-_",  // URL alphabet in a standard field
            "AA=",  // wrong padding count
        ]
        for text in hostile {
            XCTAssertThrowsError(try Base64.decode(text, field: "challenge"), text) { error in
                guard case CoreError.malformedText(let field, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(field, "challenge")
            }
        }
        XCTAssertThrowsError(try Base64.decode(Data(count: 99).base64EncodedString(), maximumCount: 64))
        XCTAssertThrowsError(try Base64.decode("AA+/", alphabet: .url))
    }

    /// Every string of up to three characters from a hostile alphabet: decoding never traps.
    func testNoShortInputTraps() {
        let alphabet: [Character] = [
            "0", "a", "F", "g", "=", "+", "/", "-", "_", " ", "\u{FF10}", "\u{0661}", "\u{0301}", "\u{202E}", "é",
        ]
        var inputs: [String] = [""]
        for _ in 0..<3 { inputs = inputs + inputs.flatMap { prefix in alphabet.map { prefix + String($0) } } }
        for text in Set(inputs) {
            _ = Hex.bytes(text)
            _ = try? Base64.decode(text)
            _ = try? Base64.decode(text, alphabet: .url, ignoringWhitespace: true)
        }
    }

    func testTerminalTextEscapesControlsAndBidiAndRefusesThem() {
        XCTAssertEqual(TerminalText.escaped("Pay 10\u{202E}00"), "Pay 10\\u{202E}00")
        XCTAssertEqual(TerminalText.escaped("\u{1B}[2Kok"), "\\u{001B}[2Kok")
        XCTAssertEqual(TerminalText.escaped("a\\u{202E}b"), "a\\\\u{202E}b", "a typed escape cannot pass for ours")
        XCTAssertEqual(TerminalText.escaped("Ülikooli 18 — ok"), "Ülikooli 18 — ok")
        XCTAssertEqual(TerminalText.escaped("c1\u{9B}x\u{2066}"), "c1\\u{009B}x\\u{2066}")
        XCTAssertNotNil(TerminalText.refusal(in: "line\nbreak"))
        XCTAssertNotNil(TerminalText.refusal(in: "\u{200F}"))
        XCTAssertNil(TerminalText.refusal(in: "Tartu Ülikool, 1 € 😀"))
        XCTAssertEqual(TerminalText.lookAlikeKey("  Test \t BANK "), TerminalText.lookAlikeKey("test bank"))
    }

    /// A certificate's name keeps its own RFC 4514 escapes (what a person would type back);
    /// unsafe characters are escaped, and a value spelling our escape cannot pass for one,
    /// since the name writes its backslash doubled.
    func testNamesKeepTheirEscapesAndLoseTheirControls() throws {
        XCTAssertEqual(
            TerminalText.escapedName("CN=THRESHOLD SIGNING KEY\\,38001085718,C=EE"),
            "CN=THRESHOLD SIGNING KEY\\,38001085718,C=EE")
        XCTAssertEqual(TerminalText.escapedName("CN=Pay 10\u{202E}00\u{1B}[2K"), "CN=Pay 10\\u{202E}00\\u{001B}[2K")
        let typed = try DistinguishedName(rfc4514: "CN=a\\\\u{202E}b")
        XCTAssertEqual(
            TerminalText.escapedName(typed.description), "CN=a\\\\u{202E}b",
            "the value's backslash stays doubled, so it reads as typed")
        XCTAssertNotEqual(TerminalText.escapedName(typed.description), TerminalText.escapedName("CN=a\u{202E}b"))
    }
}
