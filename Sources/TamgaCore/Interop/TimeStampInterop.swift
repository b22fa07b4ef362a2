internal import COpenSSL
import FoundationEssentials
import Glibc

/// Owns a parsed time-stamp token (`PKCS7*`, a CMS SignedData over a TSTInfo).
final class TimeStampTokenHandle: @unchecked Sendable {  // unchecked: read-only after parsing
    let pointer: UnsafeMutablePointer<PKCS7>
    let der: Data
    let genTime: Date
    let imprintAlgorithmNID: Int32
    let imprint: Data
    let certificates: [X509Handle]
    /// TSTInfo serialNumber in decimal ("" if unreadable).
    let serialNumber: String

    init?(der: Data) {
        let parsed: UnsafeMutablePointer<PKCS7>? = der.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_PKCS7(nil, &cursor, raw.count)
        }
        guard let parsed else {
            ERR_clear_error()
            return nil
        }
        guard let info = PKCS7_to_TS_TST_INFO(parsed) else {
            ERR_clear_error()
            PKCS7_free(parsed)
            return nil
        }
        defer { TS_TST_INFO_free(info) }
        guard let time = date(fromASN1: TS_TST_INFO_get_time(info)),
            let messageImprint = TS_TST_INFO_get_msg_imprint(info),
            let algorithm = TS_MSG_IMPRINT_get_algo(messageImprint),
            let octets = TS_MSG_IMPRINT_get_msg(messageImprint)
        else {
            PKCS7_free(parsed)
            return nil
        }
        var object: OpaquePointer? = nil
        X509_ALGOR_get0(&object, nil, nil, algorithm)
        pointer = parsed
        self.der = der
        genTime = time
        imprintAlgorithmNID = OBJ_obj2nid(object)
        imprint = Data(bytes: ASN1_STRING_get0_data(octets), count: Int(ASN1_STRING_length(octets)))
        certificates = handles(fromBorrowed: cossl_pkcs7_certificates(parsed))
        serialNumber = decimalText(TS_TST_INFO_get_serial(info))
    }
    deinit { PKCS7_free(pointer) }

    enum Outcome { case verified, untrusted(String), invalid(String) }

    /// Checks the token's signature, its ESS signing-certificate binding, the TSA certificate's
    /// purpose (critical timeStamping EKU) and chain to `anchors` at `time`, and that the
    /// imprint equals `expectedImprint`.
    func verify(expectedImprint: Data, anchors: [X509Handle], intermediates: [X509Handle], at time: Date) -> Outcome {
        guard let context = TS_VERIFY_CTX_new() else { return .invalid("out of memory") }
        defer { TS_VERIFY_CTX_free(context) }  // frees the imprint copy, the store and the stack
        TS_VERIFY_CTX_set_flags(context, Int32(TS_VFY_IMPRINT | TS_VFY_VERSION | TS_VFY_SIGNATURE))
        let copy = expectedImprint.withUnsafeBytes {
            cossl_malloc_copy($0.bindMemory(to: UInt8.self).baseAddress, $0.count)
        }
        TS_VERIFY_CTX_set_imprint(context, copy, Int(expectedImprint.count))
        let store = X509StoreHandle(anchors: anchors, at: time)
        TS_VERIFY_CTX_set_store(context, store.retainedPointer())
        TS_VERIFY_CTX_set_certs(context, makeRetainedStack(intermediates + certificates))
        ERR_clear_error()
        if TS_RESP_verify_token(context, pointer) == 1 { return .verified }
        let code = ERR_peek_error()
        let text = openSSLErrorText()
        if cossl_error_reason(code) == TS_R_CERTIFICATE_VERIFY_ERROR { return .untrusted(text) }
        return .invalid(text)
    }
}

/// An ASN.1 INTEGER in decimal, "" when absent or unreadable.
private func decimalText(_ integer: UnsafePointer<ASN1_INTEGER>?) -> String {
    guard let integer, let number = ASN1_INTEGER_to_BN(integer, nil) else {
        ERR_clear_error()
        return ""
    }
    defer { BN_free(number) }
    guard let text = BN_bn2dec(number) else {
        ERR_clear_error()
        return ""
    }
    defer { cossl_free(text) }
    return String(cString: text)
}

/// Builds an RFC 3161 request and checks the answer against it.
final class TimeStampRequestHandle {
    private let request: OpaquePointer
    let der: Data

    /// - Parameters: imprint: the hash to time-stamp; nonce: random bytes (first non-zero).
    init(imprint: Data, digestNID: Int32, nonce: [UInt8]) throws {
        request = TS_REQ_new()!
        TS_REQ_set_version(request, 1)
        let messageImprint = TS_MSG_IMPRINT_new()!
        defer { TS_MSG_IMPRINT_free(messageImprint) }
        let algorithm = X509_ALGOR_new()!
        defer { X509_ALGOR_free(algorithm) }
        X509_ALGOR_set0(algorithm, OBJ_nid2obj(digestNID), V_ASN1_NULL, nil)
        TS_MSG_IMPRINT_set_algo(messageImprint, algorithm)
        _ = imprint.withUnsafeBytes {
            TS_MSG_IMPRINT_set_msg(
                messageImprint, UnsafeMutablePointer(mutating: $0.bindMemory(to: UInt8.self).baseAddress),
                Int32($0.count))
        }
        TS_REQ_set_msg_imprint(request, messageImprint)
        let bignum = BN_bin2bn(nonce, Int32(nonce.count), nil)!
        defer { BN_free(bignum) }
        let integer = BN_to_ASN1_INTEGER(bignum, nil)!
        defer { ASN1_INTEGER_free(integer) }
        TS_REQ_set_nonce(request, integer)
        TS_REQ_set_cert_req(request, 1)
        guard let encoded = encodeDER({ [request] in i2d_TS_REQ(request, &$0) }) else {
            TS_REQ_free(request)
            throw CoreError.cryptoFailure(operation: "i2d_TS_REQ", reason: openSSLErrorText())
        }
        der = encoded
    }
    deinit { TS_REQ_free(request) }

    /// Parses a TimeStampResp and checks status, version, nonce and imprint against this
    /// request. Returns the token's DER, or the reason it is unacceptable.
    func acceptResponse(_ der: Data) -> Result<Data, ServiceRejection> {
        let response: OpaquePointer? = der.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_TS_RESP(nil, &cursor, raw.count)
        }
        guard let response else {
            ERR_clear_error()
            return .failure(ServiceRejection("not a TimeStampResp"))
        }
        defer { TS_RESP_free(response) }
        let status = ASN1_INTEGER_get(TS_STATUS_INFO_get0_status(TS_RESP_get_status_info(response)))
        guard status == 0 || status == 1 else {
            return .failure(ServiceRejection("the TSA refused the request (PKIStatus \(status))"))
        }
        guard let context = TS_REQ_to_TS_VERIFY_CTX(request, nil) else {
            return .failure(ServiceRejection("out of memory"))
        }
        defer { TS_VERIFY_CTX_free(context) }
        TS_VERIFY_CTX_set_flags(context, Int32(TS_VFY_VERSION | TS_VFY_NONCE | TS_VFY_IMPRINT))
        guard TS_RESP_verify_response(context, response) == 1 else {
            return .failure(ServiceRejection(openSSLErrorText()))
        }
        guard let token = TS_RESP_get_token(response) else {
            return .failure(ServiceRejection("no token in the response"))
        }
        guard let der = encodeDER({ i2d_PKCS7(token, &$0) }) else {
            return .failure(ServiceRejection("cannot encode the token"))
        }
        return .success(der)
    }
}

extension DigestAlgorithm {
    var nid: Int32 { EVP_MD_get_type(evpMD) }
    init?(nid: Int32) {
        guard let match = DigestAlgorithm.allCases.first(where: { $0.nid == nid }) else { return nil }
        self = match
    }
}

/// Why a TSA or OCSP answer was not accepted.
struct ServiceRejection: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
