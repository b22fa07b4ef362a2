/// The Smart-ID relying-party API a signer speaks. v3 (RP API 3.x) is SK's current one: the
/// signature is RSASSA-PSS over the raw digest and the service draws the verification code. v2
/// (RSA PKCS#1 v1.5, the code computed from the hash) stays for as long as SK serves it.
public enum SmartIDAPIVersion: String, Sendable, CaseIterable {
    case v2, v3
}
