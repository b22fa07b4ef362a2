internal import COpenSSL
import FoundationEssentials
import Glibc

extension X509Handle {
    static func parsePEMBundle(_ pem: Data) throws -> [X509Handle] {
        guard pem.firstRange(of: Array("-----BEGIN CERTIFICATE-----".utf8)) != nil else { return [] }
        return try withReadBIO(pem) { bio in
            var out: [X509Handle] = []
            while let x = PEM_read_bio_X509(bio, nil, nil, nil) {
                out.append(X509Handle(taking: x))
            }
            ERR_clear_error()  // the loop ends on "no start line": expected, not an error
            if out.isEmpty { throw CoreError.malformedCertificate("PEM block is not a certificate") }
            return out
        }
    }

    private static func nameString(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        X509_NAME_print_ex(bio, name, 0, cossl_name_flags_rfc2253_utf8)
        return String(decoding: memoryBIOContents(bio), as: UTF8.self)
    }

    var subjectString: String { Self.nameString(X509_get_subject_name(pointer)) }
    var issuerString: String { Self.nameString(X509_get_issuer_name(pointer)) }

    var subjectCommonName: String? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
            let asn1 = X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>? = nil
        let length = ASN1_STRING_to_UTF8(&utf8, asn1)
        guard length >= 0, let bytes = utf8 else { return nil }
        defer { cossl_free(bytes) }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
    }

    var serialDecimal: String {
        guard let serial = X509_get0_serialNumber(pointer), let bn = ASN1_INTEGER_to_BN(serial, nil) else { return "" }
        defer { BN_free(bn) }
        guard let text = BN_bn2dec(bn) else { return "" }
        defer { cossl_free(text) }
        return String(cString: text)
    }

    var serialContentDER: Data {
        guard let serial = X509_get0_serialNumber(pointer) else { return Data() }
        guard let encoded = encodeDER({ i2d_ASN1_INTEGER(serial, &$0) }), encoded.count > 2 else { return Data() }
        // Strip tag and length: the caller re-wraps the content.
        let all = [UInt8](encoded)
        let headerLength = all[1] & 0x80 == 0 ? 2 : 2 + Int(all[1] & 0x7F)
        return Data(all[headerLength...])
    }

    var issuerNameDER: Data {
        guard let name = X509_get_issuer_name(pointer) else { return Data() }
        return encodeDER { i2d_X509_NAME(name, &$0) } ?? Data()
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var tm = tm()
        guard ASN1_TIME_to_tm(time, &tm) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&tm)))
    }

    var notBefore: Date? { Self.date(X509_get0_notBefore(pointer)) }
    var notAfter: Date? { Self.date(X509_get0_notAfter(pointer)) }

    /// nil when the certificate has no keyUsage extension.
    var keyUsageBits: UInt32? {
        let bits = X509_get_key_usage(pointer)
        return bits == UInt32.max ? nil : bits
    }

    var isCA: Bool { X509_check_ca(pointer) != 0 }

    var authorityInformationAccess: (ocsp: [String], caIssuers: [String]) {
        guard let raw = X509_get_ext_d2i(pointer, NID_info_access, nil, nil) else { return ([], []) }
        let aia = OpaquePointer(raw)
        defer { cossl_aia_free(aia) }
        var ocsp: [String] = [], caIssuers: [String] = []
        for i in 0..<cossl_access_desc_count(aia) {
            guard let description = cossl_access_desc_value(aia, i),
                let location = description.pointee.location,
                let uri = cossl_general_name_uri(location)
            else { continue }
            let text = String(
                decoding: UnsafeRawBufferPointer(start: uri, count: Int(cossl_general_name_uri_length(location))),
                as: UTF8.self)
            switch OBJ_obj2nid(description.pointee.method) {
            case NID_ad_OCSP: ocsp.append(text)
            case NID_ad_ca_issuers: caIssuers.append(text)
            default: break
            }
        }
        return (ocsp, caIssuers)
    }

    /// `X509_check_issued` (names, key identifiers, key usage) plus the signature itself.
    func issued(_ subject: X509Handle) -> Bool {
        defer { ERR_clear_error() }
        guard X509_check_issued(pointer, subject.pointer) == X509_V_OK, let key = X509_get0_pubkey(pointer) else {
            return false
        }
        return X509_verify(subject.pointer, key) == 1
    }

    /// The DER value (extnValue content) of the extension with `nid`, if present.
    func extensionDER(nid: Int32) -> Data? {
        let index = X509_get_ext_by_NID(pointer, nid, -1)
        guard index >= 0, let ext = X509_get_ext(pointer, index), let value = X509_EXTENSION_get_data(ext) else {
            return nil
        }
        return Data(bytes: ASN1_STRING_get0_data(value), count: Int(ASN1_STRING_length(value)))
    }

    var publicKey: PKeyHandle? {
        guard let key = X509_get_pubkey(pointer) else { return nil }
        return PKeyHandle(taking: key)
    }
}
