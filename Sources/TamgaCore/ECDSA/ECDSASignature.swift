import FoundationEssentials
import Glibc

/// Conversions between the two encodings of an ECDSA signature.
///
/// XML-DSig (RFC 4050, XMLDSig 1.1) wants the raw form `r‖s`, each half a big-endian unsigned
/// integer left-padded with zeros to the curve's field size. OpenSSL and most tokens produce
/// or expect DER `SEQUENCE { INTEGER r, INTEGER s }`. The reference verifier (xmlsec 1.2.37)
/// accepts only exactly 2 × field size bytes, so the raw form is *always* padded to the full
/// width, even when r or s happens to be short (probability about 2⁻⁸ per half).
public enum ECDSASignature {
    /// DER → raw `r‖s` padded to `2 × curve.fieldSize` bytes.
    public static func raw(fromDER der: Data, curve: SignatureAlgorithm.Curve) throws -> Data {
        let bytes = [UInt8](der)
        var reader = DERReader(bytes)
        let sequence = try reader.read(tag: 0x30)
        guard reader.isAtEnd else { throw CoreError.malformedSignature("bytes after the DER sequence") }
        var inner = DERReader(sequence)
        let r = try inner.readUnsignedInteger()
        let s = try inner.readUnsignedInteger()
        guard inner.isAtEnd else { throw CoreError.malformedSignature("extra fields in the DER sequence") }
        let width = curve.fieldSize
        guard r.count <= width, s.count <= width else {
            throw CoreError.malformedSignature("r or s is wider than the \(curve.rawValue) field")
        }
        return Data(repeating: 0, count: width - r.count) + r + Data(repeating: 0, count: width - s.count) + s
    }

    /// Raw `r‖s` → DER. The raw value must be exactly `2 × curve.fieldSize` bytes.
    public static func der(fromRaw raw: Data, curve: SignatureAlgorithm.Curve) throws -> Data {
        let width = curve.fieldSize
        guard raw.count == 2 * width else {
            throw CoreError.malformedSignature(
                "\(raw.count) bytes; \(curve.rawValue) needs exactly \(2 * width) (raw r‖s)")
        }
        let bytes = [UInt8](raw)
        let body = derInteger(Array(bytes[0..<width])) + derInteger(Array(bytes[width...]))
        return Data([0x30] + derLength(body.count) + body)
    }

    private static func derInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var m = Array(magnitude.drop(while: { $0 == 0 }))
        if m.isEmpty { m = [0] }
        if m[0] & 0x80 != 0 { m.insert(0, at: 0) }  // keep the INTEGER positive
        return [0x02] + derLength(m.count) + m
    }

    static func derLength(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        var bytes: [UInt8] = []
        var v = n
        while v > 0 {
            bytes.insert(UInt8(v & 0xFF), at: 0)
            v >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}

/// A strict reader for the few DER shapes tamga parses by hand (minimal lengths, no BER).
struct DERReader {
    private let bytes: [UInt8]
    private var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var isAtEnd: Bool { index == bytes.count }

    /// The next element's tag and content, whatever the tag.
    mutating func readAny() throws -> (tag: UInt8, content: [UInt8]) {
        guard index < bytes.count else { throw CoreError.malformedSignature("truncated DER") }
        let tag = bytes[index]
        return (tag, try read(tag: tag))
    }

    mutating func read(tag: UInt8) throws -> [UInt8] {
        guard index < bytes.count, bytes[index] == tag else {
            throw CoreError.malformedSignature("expected DER tag 0x\(String(tag, radix: 16))")
        }
        index += 1
        guard index < bytes.count else { throw CoreError.malformedSignature("truncated DER") }
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 3, index + count <= bytes.count else {
                throw CoreError.malformedSignature("bad DER length")
            }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
            guard length >= 0x80, bytes[index - count] != 0 else {
                throw CoreError.malformedSignature("non-minimal DER length")
            }
        }
        guard index + length <= bytes.count else { throw CoreError.malformedSignature("truncated DER") }
        defer { index += length }
        return Array(bytes[index..<index + length])
    }

    /// A positive INTEGER's magnitude without leading zeros.
    mutating func readUnsignedInteger() throws -> [UInt8] {
        let content = try read(tag: 0x02)
        guard let first = content.first else { throw CoreError.malformedSignature("empty INTEGER") }
        guard first & 0x80 == 0 else { throw CoreError.malformedSignature("negative INTEGER") }
        if content.count > 1, first == 0, content[1] & 0x80 == 0 {
            throw CoreError.malformedSignature("non-minimal INTEGER")
        }
        let magnitude = Array(content.drop(while: { $0 == 0 }))
        guard !magnitude.isEmpty else { throw CoreError.malformedSignature("zero INTEGER") }
        return magnitude
    }
}
