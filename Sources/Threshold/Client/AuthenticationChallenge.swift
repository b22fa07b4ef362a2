import FoundationEssentials
import Glibc
import TamgaCore

/// What an AUTH session signs: `ACSP_V2` over the relying party's challenge and the device's own
/// key, computed by the device itself (never taken from the co-signer), so that the co-signer
/// cannot swap in another digest and the signature is bound to this key, the challenge, and the
/// relying party's name as the co-signer registered it (relying parties authenticate with an
/// API key; a name in the request is ignored).
///
/// The signed digest is SHA-256 of the UTF-8 text
/// `ACSP_V2|<base64 rpChallenge>|<base64 SHA-256(SPKI)>|<base64 UTF-8 rpName>`, modelled on the
/// `|`-joined payload of Smart-ID's v3 authentication (docs/cosigner-api.md).
public enum AuthenticationChallenge {
    /// The challenge sizes a relying party may send (Smart-ID uses 64 random bytes).
    public static let allowedSizes = 32...64

    public static func payload(rpChallenge: [UInt8], subjectPublicKeyInfo: Data, rpName: String) -> String {
        let keyHash = Digest.compute(.sha256, over: subjectPublicKeyInfo).bytes
        return [
            "ACSP_V2", Data(rpChallenge).base64EncodedString(), Data(keyHash).base64EncodedString(),
            Data(rpName.utf8).base64EncodedString(),
        ].joined(separator: "|")
    }

    public static func digest(rpChallenge: [UInt8], subjectPublicKeyInfo: Data, rpName: String) -> [UInt8] {
        Array(
            Digest.compute(
                .sha256,
                over: Data(
                    payload(rpChallenge: rpChallenge, subjectPublicKeyInfo: subjectPublicKeyInfo, rpName: rpName).utf8)
            ).bytes)
    }
}
