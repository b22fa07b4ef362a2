import TamgaSupport
import XCTest

/// The string, number and order helpers the modules use instead of Foundation's: each against
/// what the Foundation call it replaces answered, on the inputs that differ between the two
/// views of a string (combining marks, non-ASCII digits and spaces).
final class TextTests: XCTestCase {
    func testNaturalOrderSortsNumbersByValue() {
        let names = [
            "signatures10.xml", "signatures2.xml", "Signatures3.xml", "signatures1.xml", "signatures02.xml",
            "signatures.xml",
        ]
        XCTAssertEqual(
            names.sorted(by: NaturalOrder.precedes),
            [
                "signatures.xml", "signatures1.xml", "signatures02.xml", "signatures2.xml", "Signatures3.xml",
                "signatures10.xml",
            ])
        // A total order: names equal but for case or leading zeros still have one order.
        XCTAssertTrue(NaturalOrder.precedes("A1", "a1") != NaturalOrder.precedes("a1", "A1"))
        XCTAssertFalse(NaturalOrder.precedes("x", "x"))
        // Runs longer than any integer are compared by their digits.
        XCTAssertTrue(NaturalOrder.precedes("f99999999999999999999999", "f100000000000000000000000"))
        // Only ASCII digits are numbers: other scripts' digits compare as the characters they are.
        XCTAssertTrue(NaturalOrder.precedes("s9.xml", "s١٠.xml"))
        XCTAssertFalse(NaturalOrder.precedes("s١٠.xml", "s9.xml"))
        let run = String(repeating: "7", count: 100_000)
        XCTAssertTrue(
            NaturalOrder.precedes("n" + run, "n1" + run), "a 100,000-digit run is compared without converting it")
    }

    func testTrimmingWorksOnScalarsAndKeepsWhatIsInside() {
        XCTAssertEqual("  \t a b \n".trimmed(), "a b")
        XCTAssertEqual("\u{2003}name\u{00A0}".trimmedSpaces(), "name")  // em space, no-break space
        XCTAssertEqual(" line\n".trimmedSpaces(), "line\n")  // line ends kept
        XCTAssertEqual("   ".trimmed(), "")
        XCTAssertEqual(" e\u{0301} ".trimmed(), "e\u{0301}")  // a combining mark stays with its letter
        XCTAssertEqual("row   \t".trimmingTrailingWhitespace(), "row")
        XCTAssertEqual("  row".trimmingTrailingWhitespace(), "  row")
        XCTAssertEqual("--x--".trimming { $0 == "-" }, "x")
        let substring = "[ab]".dropFirst().dropLast()
        XCTAssertEqual(substring.trimmed(), "ab")
    }

    func testSearchAndReplaceCompareBytes() {
        XCTAssertTrue("Aktiv Rutoken ECP".containsText("Rutoken"))
        XCTAssertFalse("Aktiv Rutoken ECP".containsText("rutoken"))
        XCTAssertTrue("Aktiv Rutoken ECP".containsTextIgnoringCase("rutoken ecp"))
        XCTAssertTrue("abc".containsText(""))
        XCTAssertFalse("ab".containsText("abc"))
        // A slash followed by a combining mark is still a slash (a hostile name cannot hide one).
        XCTAssertTrue("a/\u{0301}b".containsText("/"))
        XCTAssertEqual("a--b--c".replacingAll("--", with: "+"), "a+b+c")
        XCTAssertEqual("aaa".replacingAll("aa", with: "b"), "ba")
        XCTAssertEqual("abc".replacingAll("", with: "x"), "abc")
        XCTAssertEqual("7".leftPadded(to: 3, with: "0"), "007")
        XCTAssertEqual("name".padded(to: 6), "name  ")
        XCTAssertEqual("toolong".padded(to: 3), "toolong")
    }

    func testNumbersAsFoundationsFormatterWroteThem() {
        XCTAssertEqual(NumberText.hex(UInt8(0x0A)), "0A")
        XCTAssertEqual(NumberText.hex(0xBEEF, width: 2, uppercase: false), "beef")
        XCTAssertEqual(NumberText.hex(bytes: [0x3B, 0x00, 0xFF]), "3B00FF")
        XCTAssertEqual(NumberText.hex(bytes: [0x3B, 0x00, 0xFF], separator: ":", uppercase: false), "3b:00:ff")
        XCTAssertEqual(NumberText.hex(bytes: [UInt8]()), "")
        XCTAssertEqual(NumberText.decimal(42, width: 4), "0042")
        XCTAssertEqual(NumberText.decimal(-7, width: 3), "-07")
        XCTAssertEqual(NumberText.fixed(23.46, digits: 1), "23.5")
        XCTAssertEqual(NumberText.fixed(-0.04, digits: 1), "0.0")
        XCTAssertEqual(NumberText.fixed(1000, digits: 2), "1000.00")
        XCTAssertEqual(NumberText.fixed(.infinity, digits: 1), "inf")
    }

    func testPercentEncodingRoundTripsAndRefusesMalformedInput() {
        let text = "a b/ä+{\"json\"}~"
        let encoded = PercentEncoding.encode(text)
        XCTAssertEqual(encoded, "a%20b%2F%C3%A4%2B%7B%22json%22%7D~")
        XCTAssertEqual(PercentEncoding.decode(encoded), text)
        XCTAssertNil(PercentEncoding.decode("%4"))
        XCTAssertNil(PercentEncoding.decode("%zz"))
        XCTAssertNil(PercentEncoding.decode("%FF"))  // not UTF-8
        XCTAssertNil(PercentEncoding.decode("%４１"), "fullwidth hex digits are not hex")
        XCTAssertNil(PercentEncoding.decode("%٤١"), "Arabic-Indic digits are not hex")
        XCTAssertNil(PercentEncoding.decode("abc%"), "a cut escape")
    }
}
