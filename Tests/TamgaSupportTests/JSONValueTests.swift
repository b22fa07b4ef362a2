import TamgaSupport
import XCTest

/// `JSON.Value` (the typed tree `readers --json` writes) is laid out exactly as the `Any` tree
/// writer lays out the same tree, which is JSONSerialization's layout.
final class JSONValueTests: XCTestCase {
    func testATypedTreeIsWrittenAsTheSameAnyTree() throws {
        let typed: JSON.Value = .object([
            ("zeta", .array([.integer(1), .integer(-2), .bool(true), .null, .array([]), .object([])])),
            ("alpha", .string("quote \" backslash \\ slash / tab \t bell \u{07} é")),
            ("middle", .object([("b", .string("")), ("a", .integer(Int.max))])),
        ])
        let untyped: [String: Any] = [
            "zeta": [1, -2, true, JSON.null, [Any](), [String: Any]()] as [Any],
            "alpha": "quote \" backslash \\ slash / tab \t bell \u{07} é",
            "middle": ["b": "", "a": Int.max] as [String: Any],
        ]
        for options: JSON.WritingOptions in [[], [.prettyPrinted], [.prettyPrinted, .withoutEscapingSlashes]] {
            XCTAssertEqual(
                String(decoding: JSON.data(typed, options: options), as: UTF8.self),
                String(decoding: try JSON.data(untyped, options: options), as: UTF8.self))
        }
        // And it reads back as what was written.
        let parsed = try XCTUnwrap(JSON.object(JSON.data(typed)))
        XCTAssertEqual(parsed["alpha"] as? String, "quote \" backslash \\ slash / tab \t bell \u{07} é")
        XCTAssertEqual((parsed["middle"] as? [String: Any])?["a"] as? Int, Int.max)
    }

    func testEqualityIgnoresTheOrderOfMembers() {
        XCTAssertEqual(
            JSON.Value.object([("a", .integer(1)), ("b", .null)]), .object([("b", .null), ("a", .integer(1))]))
        XCTAssertNotEqual(JSON.Value.object([("a", .integer(1))]), .object([("a", .integer(2))]))
        XCTAssertNotEqual(JSON.Value.array([.integer(1), .integer(2)]), .array([.integer(2), .integer(1)]))
    }
}
