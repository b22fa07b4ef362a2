/// The attributes of a token's secret key that decide whether it may guard other secrets:
/// its type and size, what it may do, and whether its value can ever leave the token.
public struct SecretKeyAttributes: Sendable, Equatable {
    /// `CKA_KEY_TYPE` (`CKK_AES` is 0x1F); nil when the token does not say.
    public let keyType: UInt?
    /// `CKA_VALUE_LEN` in bytes; nil when the token does not say.
    public let valueLength: UInt?
    /// `CKA_SENSITIVE`: the value is never revealed in plaintext.
    public let sensitive: Bool
    /// `CKA_EXTRACTABLE`: the value may be wrapped out of the token.
    public let extractable: Bool
    public let canEncrypt: Bool
    public let canDecrypt: Bool
    /// `CKA_PRIVATE`: usable only after the user logs in.
    public let isPrivate: Bool

    public static let aesKeyType: UInt = 0x1F

    public init(
        keyType: UInt?, valueLength: UInt?, sensitive: Bool, extractable: Bool, canEncrypt: Bool, canDecrypt: Bool,
        isPrivate: Bool
    ) {
        self.keyType = keyType
        self.valueLength = valueLength
        self.sensitive = sensitive
        self.extractable = extractable
        self.canEncrypt = canEncrypt
        self.canDecrypt = canDecrypt
        self.isPrivate = isPrivate
    }
}
