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
