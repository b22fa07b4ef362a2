import FoundationEssentials

/// An IPv4 or IPv6 address (4 or 16 bytes), without a port: a connection's client, as the
/// socket says or as a trusted proxy's PROXY header says.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// An IPv4 address inside IPv6 (`::ffff:a.b.c.d`) as the IPv4 address it is, so that one
    /// client is one address whichever way its socket reports it.
    public var unmapped: IPAddress {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else {
            return self
        }
        return IPAddress(unchecked: Array(bytes[12..<16]))
    }

    /// Whom the connection limits count a connection against: an IPv4 address, or the /64 an
    /// IPv6 address is in. A single IPv6 subscriber is usually given a /64 (or more), and could
    /// spread its connections over 2^64 addresses of its own; per /128 the limits would hold no one.
    public var limitKey: IPAddress {
        let plain = unmapped
        guard plain.bytes.count == 16 else { return plain }
        return IPAddress(unchecked: Array(plain.bytes[0..<8]) + [UInt8](repeating: 0, count: 8))
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// 0.0.0.0: a connection whose address no one said.
    static let unspecified = IPAddress(unchecked: [0, 0, 0, 0])

    /// Dotted decimal, or RFC 5952 text (lower-case hex, the longest run of two or more zero
    /// groups as `::`).
    public var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var best: Range<Int>? = nil
        var start: Int? = nil
        for index in 0...8 {
            if index < 8, groups[index] == 0 {
                if start == nil { start = index }
            } else if let first = start {
                if index - first >= 2, index - first > (best?.count ?? 0) { best = first..<index }
                start = nil
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard let run = best else { return hex.joined(separator: ":") }
        return hex[..<run.lowerBound].joined(separator: ":") + "::" + hex[run.upperBound...].joined(separator: ":")
    }
}

/// An address range in CIDR form (`10.0.0.0/8`, `fd00::/8`, or one address): the proxies whose
/// PROXY headers the co-signer believes (`cosigner serve --trusted-proxy`).
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// - Returns: nil when `prefixLength` is longer than the address.
    public init?(network: IPAddress, prefixLength: Int) {
        let plain = network.unmapped
        let bits = plain.bytes.count * 8
        let length = network.bytes.count == 16 && plain.bytes.count == 4 ? prefixLength - 96 : prefixLength
        guard (0...bits).contains(length) else { return nil }
        // The network itself, the host bits cleared, so that two spellings compare equal.
        var cleared = plain.bytes
        for index in cleared.indices {
            let keep = max(0, min(8, length - 8 * index))
            cleared[index] &= keep == 8 ? 0xff : ~(UInt8(0xff) >> keep)
        }
        guard let address = IPAddress(bytes: cleared) else { return nil }
        self.network = address
        self.prefixLength = length
    }

    public func contains(_ address: IPAddress) -> Bool {
        let plain = address.unmapped
        guard plain.bytes.count == network.bytes.count else { return false }
        for index in plain.bytes.indices {
            let keep = max(0, min(8, prefixLength - 8 * index))
            let mask: UInt8 = keep == 8 ? 0xff : ~(UInt8(0xff) >> keep)
            if plain.bytes[index] & mask != network.bytes[index] { return false }
        }
        return true
    }

    public var description: String { "\(network)/\(prefixLength)" }
}
