internal import COpenSSL
import FoundationEssentials
import Glibc

extension X509Handle {
    /// The issuer as a ``DistinguishedName`` (RDNs in DER order), for comparing it as a name.
    var issuerName: DistinguishedName { X509NameReader.name(X509_get_issuer_name(pointer)) }

    /// The subject as a ``DistinguishedName``.
    var subjectName: DistinguishedName { X509NameReader.name(X509_get_subject_name(pointer)) }
}

/// Reads an OpenSSL `X509_NAME` into a ``DistinguishedName``: each entry's OID in dotted form,
/// and its value as UTF-8 text for the string types (`ASN1_STRING_to_UTF8`, so a BMPString
/// reads as the same text as its UTF8String twin) or as DER for any other type; entries that
/// share an RDN set (`X509_NAME_ENTRY_set`) form one multi-valued RDN.
enum X509NameReader {
    static func name(_ name: OpaquePointer?) -> DistinguishedName {
        guard let name else { return DistinguishedName([]) }
        var relativeNames: [RelativeDistinguishedName] = []
        var attributes: [NameAttribute] = []
        var currentSet: Int32 = -1
        for index in 0..<max(0, X509_NAME_entry_count(name)) {
            guard let entry = X509_NAME_get_entry(name, index) else { continue }
            let set = X509_NAME_ENTRY_set(entry)
            if set != currentSet, !attributes.isEmpty {
                relativeNames.append(RelativeDistinguishedName(attributes))
                attributes = []
            }
            currentSet = set
            attributes.append(
                NameAttribute(
                    type: NameAttributeType(oid: oid(X509_NAME_ENTRY_get_object(entry))),
                    value: value(X509_NAME_ENTRY_get_data(entry))))
        }
        if !attributes.isEmpty { relativeNames.append(RelativeDistinguishedName(attributes)) }
        return DistinguishedName(relativeNames)
    }

    /// A DER `Name` (such as the directoryName of an `IssuerSerialV2`) read by OpenSSL; nil when
    /// the bytes are not exactly one Name.
    static func name(der: [UInt8]) -> DistinguishedName? {
        der.withUnsafeBufferPointer { buffer -> DistinguishedName? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let parsed = d2i_X509_NAME(nil, &cursor, buffer.count) else {
                ERR_clear_error()
                return nil
            }
            defer { X509_NAME_free(parsed) }
            guard let end = cursor, end == base + buffer.count else { return nil }
            return name(parsed)
        }
    }

    private static func oid(_ object: OpaquePointer?) -> String {
        guard let object else { return "" }
        var buffer = [CChar](repeating: 0, count: 128)
        let needed = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        if needed >= Int32(buffer.count) {
            buffer = [CChar](repeating: 0, count: Int(needed) + 1)
            _ = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        }
        return string(fromNULTerminated: buffer)
    }

    /// The string types `ASN1_STRING_to_UTF8` converts (`V_ASN1_*`).
    private static let stringTypes: Set<Int32> = [
        V_ASN1_UTF8STRING, V_ASN1_PRINTABLESTRING, V_ASN1_IA5STRING, V_ASN1_T61STRING, V_ASN1_BMPSTRING,
        V_ASN1_UNIVERSALSTRING, V_ASN1_NUMERICSTRING, V_ASN1_VISIBLESTRING,
    ]

    private static func value(_ data: UnsafeMutablePointer<ASN1_STRING>?) -> NameAttribute.Value {
        guard let data else { return .encoded([]) }
        let type = ASN1_STRING_type(data)
        if stringTypes.contains(type) {
            var utf8: UnsafeMutablePointer<UInt8>? = nil
            let length = ASN1_STRING_to_UTF8(&utf8, data)
            if length >= 0, let bytes = utf8 {
                defer { cossl_free(bytes) }
                if let text = String(validating: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self) {
                    return .string(text)
                }
            }
            ERR_clear_error()
        }
        // Any other type (or a string OpenSSL cannot convert): rebuild its DER from the tag and
        // the content octets, the form a `#hex` value of the same type decodes to.
        let count = Int(ASN1_STRING_length(data))
        let content = count > 0 ? [UInt8](UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: count)) : []
        let tag = UInt8(truncatingIfNeeded: type & 0x1F)
        return .encoded([tag] + ECDSASignature.derLength(content.count) + content)
    }
}
