/// ISO 7816-4 / X.690 BER-TLV as cards answer with it: multi-byte tags (`BF 81 05`), short and
/// long lengths (`81 xx`, `82 xx xx`), constructed values searched recursively. Parsing never
/// reads past the input; malformed input gives nil, never a partial answer.
public struct BERTLV: Sendable, Hashable {
    /// The tag bytes as one number (`0xBF8105`, `0xDF21`, `0x9B`).
    public let tag: UInt32
    public let value: [UInt8]

    /// True when bit 6 of the first tag byte is set (the value holds more TLVs).
    public var isConstructed: Bool {
        var first = tag
        while first > 0xFF { first >>= 8 }
        return first & 0x20 != 0
    }

    /// All top-level TLVs in `bytes`; nil when the encoding is malformed.
    public static func parse(_ bytes: [UInt8]) -> [BERTLV]? {
        var result: [BERTLV] = []
        var index = 0
        while index < bytes.count {
            // Padding bytes 00/FF between TLVs are allowed by ISO 7816-4 §5.2.2.
            if bytes[index] == 0x00 || bytes[index] == 0xFF {
                index += 1
                continue
            }
            var tag = UInt32(bytes[index])
            let firstByte = bytes[index]
            index += 1
            if firstByte & 0x1F == 0x1F {
                var more = true
                var count = 0
                while more {
                    guard index < bytes.count, count < 3 else { return nil }
                    tag = tag << 8 | UInt32(bytes[index])
                    more = bytes[index] & 0x80 != 0
                    index += 1
                    count += 1
                }
            }
            guard index < bytes.count else { return nil }
            var length = Int(bytes[index])
            index += 1
            if length > 0x80 {
                let count = length & 0x7F
                guard count <= 3, index + count <= bytes.count else { return nil }
                length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
                index += count
            } else if length == 0x80 {
                return nil  // indefinite length: not used by cards
            }
            guard length <= bytes.count - index else { return nil }
            result.append(BERTLV(tag: tag, value: Array(bytes[index..<(index + length)])))
            index += length
        }
        return result
    }

    /// The value of the first TLV with `tag`, searching constructed values depth first.
    public static func find(_ tag: UInt32, in bytes: [UInt8]) -> [UInt8]? {
        guard let items = parse(bytes) else { return nil }
        for item in items {
            if item.tag == tag { return item.value }
            if item.isConstructed, let inner = find(tag, in: item.value) { return inner }
        }
        return nil
    }
}
