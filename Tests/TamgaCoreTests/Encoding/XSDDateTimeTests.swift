import Foundation
import TamgaCore
import XCTest

/// The hand-written xsd:dateTime reader agrees with Foundation's ISO 8601 formatter on what both
/// read, and refuses what is not a dateTime with a time zone.
final class XSDDateTimeTests: XCTestCase {
    func testAgreesWithFoundationOnValidTimes() {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for text in [
            "2026-11-29T14:17:49Z", "2000-02-29T23:59:59Z", "1970-01-01T00:00:00Z", "2045-01-01T00:00:00+02:00",
            "2016-11-28T12:00:00-05:30", "2026-11-29T14:17:49.901Z", "1999-12-31T23:59:59.5+01:00",
            "2100-03-01T00:00:00Z",
        ] {
            let expected = plain.date(from: text) ?? fractional.date(from: text)
            XCTAssertNotNil(expected, text)
            XCTAssertEqual(
                XSDDateTime.parse(text)?.timeIntervalSince1970 ?? .nan, expected?.timeIntervalSince1970 ?? 0,
                accuracy: 0.001, text)
        }
    }

    func testRefusesWhatIsNotADateTimeWithAZone() {
        for text in [
            "", "2026-11-29", "2026-11-29T14:17:49", "2026-11-29 14:17:49Z", "2026-02-30T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T14:60:00Z", "2026-11-29T14:17:49.Z",
            "２０２６-11-29T14:17:49Z", "2026-11-29T14:17:49+0200", "2026-11-29T14:17:49Zjunk", "2026-11-29T14:17:49+15:00",
        ] {
            XCTAssertNil(XSDDateTime.parse(text), text)
        }
    }

    func testFormatsInUTCWithoutFraction() {
        XCTAssertEqual(XSDDateTime.format(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00Z")
        XCTAssertEqual(XSDDateTime.format(Date(timeIntervalSince1970: 1_796_047_069.9)), "2026-11-30T13:57:49Z")
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        XCTAssertEqual(XSDDateTime.parse(XSDDateTime.format(now)), now)
    }
}
