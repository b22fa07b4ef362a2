import FoundationEssentials
import Glibc

extension AddressRange {
    /// `ADDRESS` or `ADDRESS/PREFIX`, IPv4 or IPv6 (`127.0.0.1`, `10.0.0.0/8`, `::1`,
    /// `fd00::/8`); nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(text: String(parts[0])) else { return nil }
        var length = address.bytes.count * 8
        if parts.count == 2 {
            let digits = parts[1].utf8
            guard (1...3).contains(digits.count),
                digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int(parts[1])
            else { return nil }
            length = value
        }
        self.init(network: address, prefixLength: length)
    }
}

extension IPAddress {
    /// Dotted-decimal IPv4 or IPv6 text, as `inet_pton` reads it.
    public init?(text: String) {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: v4) { Array($0) })
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self.init(bytes: withUnsafeBytes(of: v6) { Array($0) })
        } else {
            return nil
        }
    }
}
