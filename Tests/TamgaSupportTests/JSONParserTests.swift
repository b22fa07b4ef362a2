import Foundation
import TamgaSupport
import XCTest

/// The JSON parser every outside message goes through, on hostile input: nesting past the limit
/// (and far past it, which must not reach the stack's end), digits of other scripts, numbers at
/// and past the edges of Int and Double, every truncation of a document, bytes that are not
/// UTF-8, lone surrogates, controls and a byte-order mark.
final class JSONParserTests: XCTestCase {
    private func refused(_ text: String, _ why: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try JSON.parse(Array(text.utf8)), why, file: file, line: line)
    }

    func testNestingIsBoundedAndDeepInputFailsWithoutRecursingThrough() throws {
        let limit = JSON.maximumDepth
        XCTAssertNoThrow(
            try JSON.parse(Array((String(repeating: "[", count: limit) + String(repeating: "]", count: limit)).utf8)))
        refused(
            String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1), "one level too deep")
        // A million levels: refused at the limit, long before the stack would run out.
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        XCTAssertThrowsError(try JSON.parse(deep)) { error in
            XCTAssertTrue("\(error)".contains("nested deeper than \(limit) levels"), "\(error)")
        }
        refused(
            String(repeating: "{\"a\":", count: limit + 1) + "1" + String(repeating: "}", count: limit + 1),
            "objects count too")
    }

    func testOnlyASCIIDigitsAndNumbersInRange() throws {
        for text in [
            "[١٢]", "[１]", "[+1]", "[01]", "[1.]", "[.5]", "[1e]", "[-]", "[0x10]", "[Infinity]", "[NaN]", "[1e400]",
            "[-1e400]",
        ] {
            refused(text, text)
        }
        let numbers = try XCTUnwrap(
            JSON.parse(Array("[9223372036854775807,-9223372036854775808,9223372036854775808,-0,2.5e-3,1E2]".utf8))
                as? [Any])
        XCTAssertEqual(numbers[0] as? Int, Int.max)
        XCTAssertEqual(numbers[1] as? Int, Int.min)
        XCTAssertEqual(numbers[2] as? Double, 9223372036854775808, "past Int: a Double, not a wrapped integer")
        XCTAssertEqual(numbers[3] as? Int, 0)
        XCTAssertEqual(numbers[4] as? Double, 0.0025)
        XCTAssertEqual(numbers[5] as? Double, 100)
        // A huge count of elements is work in proportion to the input, nothing more.
        let many = "[" + Array(repeating: "0", count: 200_000).joined(separator: ",") + "]"
        XCTAssertEqual((try JSON.parse(Array(many.utf8)) as? [Any])?.count, 200_000)
    }

    func testEveryTruncationOfADocumentIsRefused() throws {
        let document = Array(
            #"{"keyID":"00ff","nested":[1,{"a":"\u00e9\ud83d\ude00"},true,null,-2.5e3],"z":"x\"y"}"#.utf8)
        XCTAssertNoThrow(try JSON.parse(document))
        for length in 0..<document.count {
            XCTAssertThrowsError(try JSON.parse(Array(document.prefix(length))), "the first \(length) bytes")
        }
    }

    func testStringsAreUTF8WithoutControlsOrLoneSurrogates() throws {
        XCTAssertThrowsError(
            try JSON.parse([UInt8(ascii: "["), UInt8(ascii: "\""), 0xFF, 0xFE, UInt8(ascii: "\""), UInt8(ascii: "]")]),
            "not UTF-8")
        XCTAssertThrowsError(
            try JSON.parse([UInt8(ascii: "["), UInt8(ascii: "\""), 0xC3, UInt8(ascii: "\""), UInt8(ascii: "]")]),
            "a cut sequence")
        refused(#"["\ud800"]"#, "a lone high surrogate")
        refused(#"["\udc00"]"#, "a lone low surrogate")
        refused(#"["\ud800\u0041"]"#, "a high surrogate before a non-surrogate")
        refused("[\"a\tb\"]", "a raw tab in a string")
        refused(#"["\x41"]"#, "an unknown escape")
        refused(#"["\u12"]"#, "a short \\u escape")
        refused(#"["\u١٢٣٤"]"#, "non-ASCII hex digits")
        refused("\u{FEFF}[1]", "a byte-order mark (UTF-8 between systems has none)")
        refused("[1] [2]", "two documents")
        refused("\"text\"", "a fragment without fragmentsAllowed")
        XCTAssertEqual(try JSON.parse(Array("\"text\"".utf8), fragmentsAllowed: true) as? String, "text")
        let decoded = try XCTUnwrap(JSON.parse(Array(#"["\u00e9\ud83d\ude00\/\u0000"]"#.utf8)) as? [String])
        XCTAssertEqual(decoded, ["é😀/\u{0}"])
    }
}
