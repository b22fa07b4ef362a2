import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// One `OtherTSLPointer` of a list of lists: where a member state's list is, what it is, and
/// the certificates allowed to sign it (docs/design/trust.md §4, docs/design/asics-tm-names.md §5).
public struct TrustedListPointer: Sendable {
    /// `SchemeTerritory`, with GR written EL as the EU lists do.
    public let territory: String
    /// `TSLLocation`: the URL of the list.
    public let location: String
    /// `TSLType` from AdditionalInformation.
    public let type: String
    /// `tslx:MimeType` from AdditionalInformation.
    public let mimeType: String
    /// `ServiceDigitalIdentities/…/X509Certificate` (base64 DER, or PEM as the reference also reads).
    public let signers: [Certificate]

    public static let xmlMimeType = "application/vnd.etsi.tsl+xml"

    /// True for a pointer tamga follows: an XML national list with at least one signer named.
    /// The reference skips the rest silently (PDF copies, the LOTL's pointer to itself, a
    /// pointer without certificates).
    public var isFollowed: Bool {
        mimeType == Self.xmlMimeType && !TrustedList.listOfListsTypes.contains(type) && !signers.isEmpty
            && !territory.isEmpty
    }

    /// Why `isFollowed` is false, for `tamga trust update`'s report.
    public var skipReason: String? {
        if mimeType != Self.xmlMimeType { return "not an XML list (\(mimeType.isEmpty ? "no MimeType" : mimeType))" }
        if TrustedList.listOfListsTypes.contains(type) { return "a pointer to a list of lists" }
        if signers.isEmpty { return "the pointer names no signer certificate" }
        if territory.isEmpty { return "the pointer names no territory" }
        return nil
    }

    /// The cache file name: the territory, as the reference names it (`EE.xml`). Only letters,
    /// digits, `-` and `_` are kept, so a hostile territory cannot name a path.
    public var cacheFileName: String {
        let name = String(
            territory.unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) || $0 == "-" || $0 == "_"
            })
        return (name.isEmpty ? "unnamed" : name) + ".xml"
    }

    /// The last path segment of TSLLocation (`…/EE_T.xml` → `EE_T.xml`): the file looked for
    /// beside a LOTL given with `--tsl`.
    public var locationFileName: String? {
        let name =
            (URL(string: location)?.lastPathComponent ?? location.split(separator: "/").last.map(String.init)) ?? ""
        guard !name.isEmpty, name != "/", name != "..", name != ".", !name.contains("/") else { return nil }
        return name
    }

    init(_ element: XMLElement) {
        let ns = TrustedList.namespace
        func trimmed(_ element: XMLElement?) -> String { element?.text.trimmed() ?? "" }
        var signers: [Certificate] = []
        for identity in element.child("ServiceDigitalIdentities", in: ns)?.children("ServiceDigitalIdentity", in: ns)
            ?? []
        {
            for id in identity.children("DigitalId", in: ns) {
                guard let text = id.child("X509Certificate", in: ns)?.text else { continue }
                let certificate =
                    XMLBase64.decode(text).flatMap { try? Certificate(der: $0) }
                    ?? (try? Certificate.parseAll(pem: Data(text.utf8)).first) ?? nil
                if let certificate, !signers.contains(certificate) { signers.append(certificate) }
            }
        }
        self.signers = signers
        location = trimmed(element.child("TSLLocation", in: ns))
        var type = "", mimeType = "", territory = ""
        for information in element.child("AdditionalInformation", in: ns)?.children("OtherInformation", in: ns) ?? [] {
            if let value = information.child("TSLType", in: ns) { type = trimmed(value) }
            if let value = information.child("SchemeTerritory", in: ns) { territory = trimmed(value) }
            if let value = information.child("MimeType", in: TrustedList.additionalTypesNamespace) {
                mimeType = trimmed(value)
            }
        }
        self.type = type
        self.mimeType = mimeType
        self.territory = territory == "GR" ? "EL" : territory
    }
}
