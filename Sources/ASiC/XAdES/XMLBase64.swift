import FoundationEssentials
import TamgaCore

/// xsd:base64Binary: base64 with the XML whitespace producers put inside (the reference wraps
/// at 64 columns); ASCII only.
enum XMLBase64 {
    /// The most bytes one value decodes to. The largest a signature carries are time-stamp
    /// tokens and OCSP responses with their certificates, a few KB; a 16 MB member that is one
    /// long SignatureValue is refused at its length instead of decoded (twice, for a duplicate
    /// check) at a cost far out of proportion to its compressed size.
    static let maximumBytes = 1 << 20

    static func decode(_ text: String) -> Data? {
        (try? Base64.decode(text, ignoringWhitespace: true, maximumCount: maximumBytes)).map { Data($0) }
    }
}
