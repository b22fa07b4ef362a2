import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
#endif

/// `xsd:dateTime` as signatures, OCSP reports and trusted lists write it: `YYYY-MM-DDThh:mm:ss`,
/// optional fraction, then `Z` or `±hh:mm`. Written in UTC without fraction (as the reference
/// writes SigningTime).
///
/// Parsed by hand: a trusted list has a status time per service and history entry, and
/// creating a Foundation date formatter per value made reading a national list slow. The parser
/// reads ASCII digits only and never traps.
public enum XSDDateTime {
    public static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        let yearText =
            year >= 0 && year < 1000
            ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return
            "\(yearText)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// The instant `text` names, or nil when it is not an xsd:dateTime with a time zone.
    public static func parse<S: StringProtocol>(_ text: S) -> Date? {
        let bytes = Array(text.utf8.prefix(64))
        guard bytes.count >= 20, bytes.count == text.utf8.count else { return nil }
        func number(_ start: Int, _ length: Int) -> Int? {
            var value = 0
            for index in start..<start + length {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D,
            let day = number(8, 2),
            bytes[10] == 0x54, let hour = number(11, 2), bytes[13] == 0x3A, let minute = number(14, 2),
            bytes[16] == 0x3A,
            let second = number(17, 2)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 0x5A:
            index += 1
        case 0x2B, 0x2D:
            guard index + 6 == bytes.count, let hours = number(index + 1, 2), bytes[index + 3] == 0x3A,
                let minutes = number(index + 4, 2),
                hours <= 14, minutes <= 59
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
