extension Certificate {
    /// The X.509 keyUsage bits, with OpenSSL's `KU_*` values as raw values.
    public struct KeyUsage: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// `KU_DIGITAL_SIGNATURE`
        public static let digitalSignature = KeyUsage(rawValue: 0x0080)
        /// `KU_NON_REPUDIATION` (contentCommitment): required of a signing certificate.
        public static let nonRepudiation = KeyUsage(rawValue: 0x0040)
        /// `KU_KEY_ENCIPHERMENT`
        public static let keyEncipherment = KeyUsage(rawValue: 0x0020)
        /// `KU_DATA_ENCIPHERMENT`
        public static let dataEncipherment = KeyUsage(rawValue: 0x0010)
        /// `KU_KEY_AGREEMENT`
        public static let keyAgreement = KeyUsage(rawValue: 0x0008)
        /// `KU_KEY_CERT_SIGN`
        public static let keyCertSign = KeyUsage(rawValue: 0x0004)
        /// `KU_CRL_SIGN`
        public static let crlSign = KeyUsage(rawValue: 0x0002)

        static let names: [(KeyUsage, String)] = [
            (.digitalSignature, "digitalSignature"), (.nonRepudiation, "nonRepudiation"),
            (.keyEncipherment, "keyEncipherment"), (.dataEncipherment, "dataEncipherment"),
            (.keyAgreement, "keyAgreement"), (.keyCertSign, "keyCertSign"), (.crlSign, "cRLSign"),
        ]

        /// The names of the bits set, in the order X.509 lists them.
        public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
    }
}

extension Certificate.KeyUsage: CustomStringConvertible {
    public var description: String { names.joined(separator: ", ") }
}
