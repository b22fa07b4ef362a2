import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// The SP's transaction code (`trxcode`): a timestamp `yyyyMMddHHmmssSSS` followed by 8
/// upper-case hex digits from 4 random bytes: 25 characters. The SP sample formats the hour
/// with `hh` (12-hour clock, so 1 p.m. and 1 a.m. collide); real codes also show 24-hour hours
/// (`20220711161455371E5E8EA20`). tamga writes the 24-hour form and accepts both.
public enum TransactionCode {
    /// Korea Standard Time, UTC+9 all year (no daylight saving since 1988): a fixed offset, since
    /// named zones need the ICU data the binary no longer carries.
    public static let koreaStandardTime = TimeZone(secondsFromGMT: 9 * 3600) ?? .gmt

    public static func make(
        at date: Date = Date(), random: [UInt8]? = nil, timeZone: TimeZone = koreaStandardTime
    ) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let stamp =
            NumberText.decimal(c.year ?? 0, width: 4)
            + [c.month, c.day, c.hour, c.minute, c.second].map { NumberText.decimal($0 ?? 0, width: 2) }.joined()
            + NumberText.decimal(min(999, (c.nanosecond ?? 0) / 1_000_000), width: 3)
        let bytes = random ?? (0..<4).map { _ in UInt8.random(in: 0...255) }
        return stamp + Hex.encode(bytes.prefix(4), uppercase: true)
    }

    public static func isValid(_ code: String) -> Bool {
        guard code.count == 25 else { return false }
        let digits = code.prefix(17), hex = code.suffix(8)
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            hex.allSatisfy({ $0.isASCII && ($0.isNumber || ("A"..."F").contains($0)) })
        else { return false }
        // No force unwrap even though the digits are checked above: the code comes from a wallet.
        guard let month = Int(code.dropFirst(4).prefix(2)), let day = Int(code.dropFirst(6).prefix(2)),
            let hour = Int(code.dropFirst(8).prefix(2)),
            let minute = Int(code.dropFirst(10).prefix(2)), let second = Int(code.dropFirst(12).prefix(2))
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day) && (0...23).contains(hour) && minute < 60
            && second < 60
    }
}
