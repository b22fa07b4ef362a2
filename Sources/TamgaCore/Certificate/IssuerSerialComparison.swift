/// How an issuer-and-serial reference (XAdES `IssuerSerial` / `IssuerSerialV2`) compares with a
/// certificate. The case is the stable code.
public enum IssuerSerialComparison: Sendable, Equatable {
    /// The issuer is the certificate's issuer as a name and the serial is its serial as a number.
    case matches
    /// The issuer name is well formed but another name than the certificate's issuer.
    case issuerDiffers
    /// The serial is a well-formed integer but another one than the certificate's.
    case serialDiffers
    /// `X509IssuerName` is not an RFC 4514 distinguished name.
    case malformedIssuerName(DistinguishedName.ParseError)
    /// `X509SerialNumber` is not a decimal integer.
    case malformedSerialNumber(String)
    /// `IssuerSerialV2` is not the DER of an ESS IssuerSerial with one directoryName.
    case malformedIssuerSerialV2(String)

    /// The stable machine-readable code.
    public var code: String {
        switch self {
        case .matches: "matches"
        case .issuerDiffers: "issuer-differs"
        case .serialDiffers: "serial-differs"
        case .malformedIssuerName: "malformed-issuer-name"
        case .malformedSerialNumber: "malformed-serial-number"
        case .malformedIssuerSerialV2: "malformed-issuer-serial-v2"
        }
    }
}

extension IssuerSerialComparison: CustomStringConvertible {
    public var description: String {
        switch self {
        case .matches: "the issuer and serial number match"
        case .issuerDiffers: "the issuer name is another name than the certificate's issuer"
        case .serialDiffers: "the serial number is another number than the certificate's serial"
        case .malformedIssuerName(let error): "X509IssuerName cannot be read: \(error)"
        case .malformedSerialNumber(let reason): "X509SerialNumber \(reason)"
        case .malformedIssuerSerialV2(let reason): "IssuerSerialV2 is not a DER IssuerSerial: \(reason)"
        }
    }
}
