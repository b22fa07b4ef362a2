import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

extension Container {
    /// At most this many certificates are read per signature file: a signer, its chain, a TSA
    /// and a responder or two come to well under it, and the read is only a hint.
    static let territoryCertificateLimit = 64

    /// The trusted-list territories the signatures' own certificates point to: the `countryName`
    /// of the subject and issuer of every certificate the signatures carry (KeyInfo,
    /// CertificateValues, the certificates in time-stamp tokens and OCSP responses), in the
    /// LOTL's spelling (`GR` is `EL`, `GB` is `UK`).
    ///
    /// The reference reads only the lists of the countries it meets; tamga uses this to read
    /// and check only those of a cached list of lists first (a full EU cache is tens of MB),
    /// and reads every list when that does not settle the verdict. Empty when nothing names a
    /// country, and then every list is read.
    public func trustTerritories() -> Set<String> {
        var certificates: [Certificate] = []
        for file in signatures {
            guard let document = try? XMLDocument(data: file.data, name: file.name), let root = document.root else {
                continue
            }
            var found: [Certificate] = []
            root.walk { element in
                guard found.count < Self.territoryCertificateLimit else { return }
                switch element.localName {
                case "X509Certificate", "EncapsulatedX509Certificate":
                    if let der = XMLBase64.decode(element.text), let certificate = try? Certificate(der: der) {
                        found.append(certificate)
                    }
                case "EncapsulatedTimeStamp":
                    if let der = XMLBase64.decode(element.text), let token = try? TimeStampToken(der: der) {
                        found += token.certificates.prefix(8)
                    }
                case "EncapsulatedOCSPValue":
                    if let der = XMLBase64.decode(element.text), let response = try? OCSPResponse(der: der) {
                        found += response.responderCertificates.prefix(8)
                    }
                default:
                    break
                }
            }
            certificates += found
        }
        if let entry = timeStampEntry, let reader,
            let bytes = try? reader.read(entry, limit: TimeStampSignatureValidator.tokenLimit),
            let token = try? TimeStampToken(der: bytes)
        {
            certificates += token.certificates.prefix(8)
        }
        var territories: Set<String> = []
        for certificate in certificates {
            for name in [certificate.subjectName, certificate.issuerName] {
                for relative in name.relativeNames {
                    for attribute in relative.attributes where attribute.type.oid == NameAttributeType.countryName.oid {
                        if case .string(let country) = attribute.value {
                            territories.insert(Self.listTerritory(country))
                        }
                    }
                }
            }
        }
        return territories
    }

    /// A certificate's ISO 3166 country as the EU list of lists names its territory.
    static func listTerritory(_ country: String) -> String {
        let code = country.trimmedSpaces().uppercased()
        switch code {
        case "GR": return "EL"
        case "GB": return "UK"
        default: return code
        }
    }
}
