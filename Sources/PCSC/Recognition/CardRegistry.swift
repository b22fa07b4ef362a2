import FoundationEssentials
import Glibc

/// Which card or token an ATR belongs to: one table, exact ATRs first, then masked ones,
/// then byte patterns in the historical bytes (docs/design/smartcard.md §1.2, §2.2). `tamga readers` and
/// the ID-card layer read the same table.
public enum CardRegistry {
    /// A known card family.
    public struct CardKind: Sendable, Hashable, Codable {
        public let name: String
        /// CryptoPro media prefix when the card is a token with a media name (`rutoken_ecp`).
        public let mediaFamily: String?
        /// True for eID cards that tamga signs with over APDUs.
        public let signsOverAPDU: Bool
    }

    enum Match: Sendable {
        case exact([UInt8])
        case masked(pattern: [UInt8], mask: [UInt8])
        /// The ATR contains these bytes (a product name in the historical bytes).
        case contains([UInt8])

        func matches(_ atr: [UInt8]) -> Bool {
            switch self {
            case .exact(let bytes): return atr == bytes
            case .masked(let pattern, let mask):
                return atr.count == pattern.count
                    && zip(zip(atr, pattern), mask).allSatisfy { ($0.0 & $1) == ($0.1 & $1) }
            case .contains(let needle):
                guard atr.count >= needle.count else { return false }
                return (0...(atr.count - needle.count)).contains { Array(atr[$0..<$0 + needle.count]) == needle }
            }
        }
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        // ASCII digits only (Character.isHexDigit also accepts fullwidth forms, which no radix-16
        // parser reads); anything else, such as spaces between bytes, is skipped.
        var digits = text.utf8.lazy.compactMap { unit -> UInt8? in
            switch unit {
            case 0x30...0x39: unit - 0x30
            case 0x41...0x46: unit - 0x41 + 10
            case 0x61...0x66: unit - 0x61 + 10
            default: nil
            }
        }.makeIterator()
        while let high = digits.next(), let low = digits.next() { bytes.append(high << 4 | low) }
        return bytes
    }

    static let estEIDIDEMIA = CardKind(name: "EstEID IDEMIA", mediaFamily: nil, signsOverAPDU: true)
    static let estEIDThales = CardKind(name: "EstEID Thales", mediaFamily: nil, signsOverAPDU: true)
    static let finEID = CardKind(name: "FinEID", mediaFamily: nil, signsOverAPDU: true)
    static let latEID = CardKind(name: "LatEID IDEMIA", mediaFamily: nil, signsOverAPDU: true)
    static let belEID = CardKind(name: "BelEID", mediaFamily: nil, signsOverAPDU: false)
    static let rutokenECP = CardKind(name: "Rutoken ECP", mediaFamily: "rutoken_ecp", signsOverAPDU: false)
    static let rutokenLite = CardKind(name: "Rutoken lite", mediaFamily: "rutoken_lt", signsOverAPDU: false)
    static let rutokenS = CardKind(name: "Rutoken S", mediaFamily: "rutoken", signsOverAPDU: false)
    static let yubiKey = CardKind(name: "YubiKey", mediaFamily: nil, signsOverAPDU: false)

    /// The table, in lookup order. Each row names its card.
    static let table: [(Match, CardKind)] = [
        (.exact(hex("3BDB960080B1FE451F830012233F536549440F9000F1")), estEIDIDEMIA),  // Cosmo 8.1/8.2
        (.exact(hex("3BDC960080B1FE451F830012233F54654944320F9000C3")), estEIDIDEMIA),  // Cosmo X
        (.exact(hex("3BFF9600008031FE438031B85365494464B085051012233F1D")), estEIDThales),  // 2025–
        (.exact(hex("3B7F9600008031B865B08504021B1200F6829000")), finEID),  // v3.1
        (.exact(hex("3BDB960080B1FE451F830012428F536549440F900020")), latEID),
        (.exact(hex("3BDC960080B1FE451F830012428F54654944320F900012")), latEID),
        (.exact(hex("3B7F96000080318065B085040120120FFF829000")), belEID),  // 1.8
        (.exact(hex("3B8B015275746F6B656E20445320C1")), rutokenECP),  // "Rutoken DS "
        (.exact(hex("3B8B015275746F6B656E20454350A0")), rutokenECP),  // "Rutoken ECP"
        (.exact(hex("3B9C96005275746F6B656E4543507363")), rutokenECP),  // ECP SC
        (.exact(hex("3B8B015275746F6B656E6C697465C2")), rutokenLite),
        // FinEID v4.0/4.1: bytes 12–13 vary.
        (
            .masked(
                pattern: hex("3B7F9600008031B865B085050011122460829000"),
                mask: hex("FFFFFFFFFFFFFFFFFFFFFFFF0000FFFFFFFFFFFF")), finEID
        ),
        (.contains(Array("Rutoken S".utf8)), rutokenS),
        (.contains(Array("Yubikey".utf8)), yubiKey),
        (.contains(Array("YubiKey".utf8)), yubiKey),
    ]

    /// The card an ATR belongs to, or nil for an unknown card.
    public static func recognize(_ atr: [UInt8]) -> CardKind? {
        table.first { $0.0.matches(atr) }?.1
    }
}
