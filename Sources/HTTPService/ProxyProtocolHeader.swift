/// The PROXY protocol's version 2 header (HAProxy's `proxy-protocol.txt`, section 2.2), which a
/// proxy in front of the co-signer (HAProxy with `send-proxy-v2`) writes before anything else on
/// each connection it opens, naming the client it came from. Believed only from a configured
/// proxy (`cosigner serve --trusted-proxy`), so that the connection limits count the real client
/// and not the proxy; from anyone else the bytes are left to the HTTP parser, which refuses them.
///
/// The layout: the 12-byte signature, version and command (`0x21` PROXY, `0x20` LOCAL), family
/// and transport (`0x11` TCP over IPv4, `0x21` TCP over IPv6), a big-endian length, then that
/// many bytes: source and destination addresses, source and destination ports, and optional
/// type-length-value records. Taken: PROXY over TCP with IPv4 or IPv6 (the client is the
/// header's source), and LOCAL (a connection the proxy makes for itself, its health checks: the
/// client is the proxy, the addresses are ignored as the specification says). Refused: any
/// other version, command, family or transport (UDP, Unix sockets, an unspecified family with
/// PROXY), an address block shorter than its family's, TLVs that do not fit, and a header
/// longer than `maximumLength`. The parser reads only the bytes it is given and never more than
/// `maximumLength` of them.
struct ProxyProtocolHeader: Equatable, Sendable {
    enum Command: Equatable, Sendable {
        /// The proxy's own connection; the client is the peer itself.
        case local
        /// A client's connection, relayed: `source` is where it came from.
        case proxy(source: IPAddress, port: UInt16)
    }

    let command: Command
    /// The header's whole length: the bytes that precede the client's own (TLS or HTTP).
    let length: Int

    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    /// Signature, version and command, family, length.
    static let fixedLength = 16
    /// HAProxy's records (ALPN, authority, a unique id, TLS details) come to a few hundred bytes
    /// at most; the format allows 64 KiB, which a server should not have to hold per connection.
    static let maximumLength = 16 + 1024

    enum Outcome: Equatable, Sendable {
        /// Not yet whole: at least this many bytes in all are needed.
        case needs(Int)
        case header(ProxyProtocolHeader)
    }

    /// Parses the start of a connection. Throws `ConnectionRefusal.proxyHeaderMissing` as soon
    /// as the bytes so far cannot be the signature (`GET /…`, a TLS ClientHello, a version 1
    /// text header), and `.proxyHeaderMalformed` for a header this server does not take.
    static func parse(_ bytes: [UInt8]) throws(ConnectionRefusal) -> Outcome {
        let prefix = min(bytes.count, signature.count)
        guard bytes[0..<prefix].elementsEqual(signature[0..<prefix]) else { throw .proxyHeaderMissing }
        guard bytes.count >= fixedLength else { return .needs(fixedLength) }
        let versionAndCommand = bytes[12], familyAndTransport = bytes[13]
        guard versionAndCommand >> 4 == 2 else {
            throw .proxyHeaderMalformed("version \(versionAndCommand >> 4), not 2")
        }
        let blockLength = Int(bytes[14]) << 8 | Int(bytes[15])
        let length = fixedLength + blockLength
        guard length <= maximumLength else {
            throw .proxyHeaderMalformed("\(length) bytes, more than \(maximumLength)")
        }
        let isLocal: Bool
        switch versionAndCommand & 0x0F {
        case 0x0: isLocal = true
        case 0x1: isLocal = false
        default: throw .proxyHeaderMalformed("command \(versionAndCommand & 0x0F), neither LOCAL nor PROXY")
        }
        // The address block's size, from the family; LOCAL ignores the family (the specification
        // lets a proxy send anything there) but its length must still fit the limit above.
        let addressLength: Int
        if isLocal {
            addressLength = 0
        } else {
            switch familyAndTransport {
            case 0x11: addressLength = 12
            case 0x21: addressLength = 36
            default:
                throw .proxyHeaderMalformed(
                    "family and transport 0x\(String(familyAndTransport, radix: 16)), not TCP over IPv4 or IPv6")
            }
            guard blockLength >= addressLength else {
                throw .proxyHeaderMalformed(
                    "an address block of \(blockLength) bytes, shorter than its family's \(addressLength)")
            }
        }
        guard bytes.count >= length else { return .needs(length) }
        let block = Array(bytes[fixedLength..<length])
        guard !isLocal else { return .header(ProxyProtocolHeader(command: .local, length: length)) }
        try checkRecords(block[addressLength...])
        let size = addressLength == 12 ? 4 : 16
        guard let source = IPAddress(bytes: Array(block[0..<size])) else {
            throw .proxyHeaderMalformed("no source address")
        }
        let port = UInt16(block[2 * size]) << 8 | UInt16(block[2 * size + 1])
        return .header(ProxyProtocolHeader(command: .proxy(source: source, port: port), length: length))
    }

    /// The type-length-value records after the addresses: each a type byte and a big-endian
    /// length, its value within the block. Their contents are not used.
    private static func checkRecords(_ records: ArraySlice<UInt8>) throws(ConnectionRefusal) {
        var index = records.startIndex
        while index < records.endIndex {
            guard records.endIndex - index >= 3 else {
                throw .proxyHeaderMalformed("a record cut short after the addresses")
            }
            let valueLength = Int(records[index + 1]) << 8 | Int(records[index + 2])
            guard records.endIndex - index - 3 >= valueLength else {
                throw .proxyHeaderMalformed("a record longer than the header")
            }
            index += 3 + valueLength
        }
    }
}
