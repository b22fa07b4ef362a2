import TamgaCore

/// The certificates and private keys on a token, paired by `CKA_ID`.
public struct TokenObjects: Sendable {
    public struct CertificateObject: Sendable {
        public let id: [UInt8]
        public let label: String
        public let certificate: Certificate
        public var idHex: String { Hex.encode(id) }
    }

    public struct KeyObject: Sendable {
        public let id: [UInt8]
        public let label: String
        public let keyType: String
        public let canSign: Bool
        /// `CKA_ALWAYS_AUTHENTICATE`: a PIN for every signature (the PIN2 pattern of eID cards).
        public let alwaysAuthenticate: Bool
        let handle: UInt
        public var idHex: String { Hex.encode(id) }

        static func describe(_ keyType: UInt) -> String {
            switch keyType {
            case 0x00: "RSA"
            case 0x03: "EC"
            case 0x30: "GOST R 34.10-2001/2012-256"
            case 0xD432_1003: "GOST R 34.10-2012-512"
            case 0x40: "EdDSA"
            default: "0x" + String(keyType, radix: 16)
            }
        }
    }

    public let certificates: [CertificateObject]
    public let keys: [KeyObject]

    public init(certificates: [CertificateObject] = [], keys: [KeyObject] = []) {
        self.certificates = certificates
        self.keys = keys
    }

    /// The certificate for a key (same `CKA_ID`).
    public func certificate(for key: KeyObject) -> CertificateObject? { certificates.first { $0.id == key.id } }
}
