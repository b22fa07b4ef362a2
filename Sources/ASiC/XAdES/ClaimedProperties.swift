import FoundationEssentials
import Glibc
import TamgaSupport

/// What a signer claims about themselves in the signed properties: roles (`SignerRole(V2)/
/// ClaimedRoles`) and the place of signing (`SignatureProductionPlace(V2)`). Claims, not
/// evidence: shown by `ls` and `verify` as the signer wrote them.
struct ClaimedProperties {
    var roles: [String] = []
    /// "City, street, state, postal code, country", the parts present, in that order.
    var productionPlace: String?
    /// The same parts by their element names (`City`, `StateOrProvince`, …), for a report that
    /// lists them apart.
    var productionPlaceParts: [String: String] = [:]

    init(signature: XMLElement) {
        guard
            let properties = signature.child("Object", in: XMLNamespace.ds)?.child(
                "QualifyingProperties", in: XMLNamespace.xades)?
                .child("SignedProperties", in: XMLNamespace.xades)?.child(
                    "SignedSignatureProperties", in: XMLNamespace.xades)
        else { return }
        for name in ["SignerRole", "SignerRoleV2"] {
            for role in properties.child(name, in: XMLNamespace.xades)?.child("ClaimedRoles", in: XMLNamespace.xades)?
                .children("ClaimedRole", in: XMLNamespace.xades) ?? []
            {
                let text = role.text.trimmed()
                if !text.isEmpty, roles.count < 16 { roles.append(String(text.prefix(200))) }
            }
        }
        for name in ["SignatureProductionPlaceV2", "SignatureProductionPlace"] {
            guard let place = properties.child(name, in: XMLNamespace.xades) else { continue }
            let parts = ["City", "StreetAddress", "StateOrProvince", "PostalCode", "CountryName"].compactMap {
                part -> String? in
                let text = place.child(part, in: XMLNamespace.xades)?.text.trimmed() ?? ""
                guard !text.isEmpty else { return nil }
                productionPlaceParts[part] = String(text.prefix(200))
                return String(text.prefix(200))
            }
            if !parts.isEmpty { productionPlace = parts.joined(separator: ", ") }
            break
        }
    }
}
