internal import COpenSSL
import FoundationEssentials
import Glibc

/// Owns an `OCSP_REQUEST` for one certificate, with a nonce; kept to check the answer's nonce.
final class OCSPRequestHandle {
    private let request: OpaquePointer
    let der: Data

    init(certificate: X509Handle, issuer: X509Handle, certIDDigest: DigestAlgorithm) throws {
        request = OCSP_REQUEST_new()!
        guard let id = OCSP_cert_to_id(certIDDigest.evpMD, certificate.pointer, issuer.pointer),
            OCSP_request_add0_id(request, id) != nil,  // the request now owns the CertID
            OCSP_request_add1_nonce(request, nil, 32) == 1
        else {  // 32 random bytes (RFC 8954 maximum)
            OCSP_REQUEST_free(request)
            throw CoreError.cryptoFailure(operation: "building the OCSP request", reason: openSSLErrorText())
        }
        guard let encoded = encodeDER({ [request] in i2d_OCSP_REQUEST(request, &$0) }) else {
            OCSP_REQUEST_free(request)
            throw CoreError.cryptoFailure(operation: "i2d_OCSP_REQUEST", reason: openSSLErrorText())
        }
        der = encoded
    }
    deinit { OCSP_REQUEST_free(request) }

    /// 1: nonces equal; anything else (missing, mismatched) is refused when signing.
    func nonceMatches(_ response: OCSPResponseHandle) -> Bool {
        guard let basic = response.basic else { return false }
        return OCSP_check_nonce(request, basic) == 1
    }
}

/// Owns a parsed `OCSP_RESPONSE` and its `OCSP_BASICRESP`.
final class OCSPResponseHandle: @unchecked Sendable {  // unchecked: read-only after parsing
    private let response: OpaquePointer
    let basic: OpaquePointer?
    let der: Data
    /// `OCSPResponseStatus`: 0 successful, 6 unauthorized, …
    let responseStatus: Int32
    let producedAt: Date?

    init?(der: Data) {
        let parsed: OpaquePointer? = der.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_OCSP_RESPONSE(nil, &cursor, raw.count)
        }
        guard let parsed else {
            ERR_clear_error()
            return nil
        }
        response = parsed
        self.der = der
        responseStatus = OCSP_response_status(parsed)
        basic = responseStatus == OCSP_RESPONSE_STATUS_SUCCESSFUL ? OCSP_response_get1_basic(parsed) : nil
        producedAt = basic.flatMap { date(fromASN1: OCSP_resp_get0_produced_at($0)) }
        ERR_clear_error()
    }
    deinit {
        if let basic { OCSP_BASICRESP_free(basic) }
        OCSP_RESPONSE_free(response)
    }

    /// The extnValue octets of the response's nonce extension (id-pkix-ocsp-nonce), as they
    /// are: a BDOC time-mark puts a DigestInfo there, raw or wrapped in an OCTET STRING.
    var nonceExtensionValue: Data? {
        guard let basic else { return nil }
        let index = OCSP_BASICRESP_get_ext_by_NID(basic, NID_id_pkix_OCSP_Nonce, -1)
        guard index >= 0, let extensionPointer = OCSP_BASICRESP_get_ext(basic, index),
            let value = X509_EXTENSION_get_data(extensionPointer), let bytes = ASN1_STRING_get0_data(value)
        else { return nil }
        return Data(bytes: bytes, count: Int(ASN1_STRING_length(value)))
    }

    /// The certificate whose key is named by the ResponderID: one carried in the response, else
    /// one of `candidates` (responses without certificates, like SK's 2013 ones).
    func signer(among candidates: [X509Handle]) -> X509Handle? {
        guard let basic else { return nil }
        let extra = makeRetainedStack(candidates)
        defer { cossl_x509_stack_pop_free(extra) }
        var found: OpaquePointer? = nil
        guard OCSP_resp_get0_signer(basic, &found, extra) == 1, let found, X509_up_ref(found) == 1 else {
            ERR_clear_error()
            return nil
        }
        return X509Handle(taking: found)
    }

    /// Certificates carried in the response (normally the responder's).
    var certificates: [X509Handle] {
        guard let basic else { return [] }
        return handles(fromBorrowed: OCSP_resp_get0_certs(basic))
    }

    struct SingleStatus {
        enum Kind { case good, revoked, unknown }
        let kind: Kind
        let revocationTime: Date?
        let thisUpdate: Date?
        let nextUpdate: Date?
        /// `OCSP_check_validity(thisUpdate, nextUpdate, 15 min, 2 min)` against the current clock.
        let freshNow: Bool
    }

    /// The answer for `certificate`, matching the CertID under whatever hash the responder used.
    func status(of certificate: X509Handle, issuer: X509Handle) -> SingleStatus? {
        guard let basic else { return nil }
        for index in 0..<OCSP_resp_count(basic) {
            guard let single = OCSP_resp_get0(basic, index), let id = OCSP_SINGLERESP_get0_id(single) else { continue }
            var algorithm: OpaquePointer? = nil
            OCSP_id_get0_info(nil, &algorithm, nil, nil, id)
            guard let md = EVP_get_digestbyname(OBJ_nid2sn(OBJ_obj2nid(algorithm))),
                let ours = OCSP_cert_to_id(md, certificate.pointer, issuer.pointer)
            else { continue }
            defer { OCSP_CERTID_free(ours) }
            guard OCSP_id_cmp(ours, id) == 0 else { continue }
            var reason: Int32 = 0
            var revoked: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil,
                thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil,
                nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
            let status = OCSP_single_get0_status(single, &reason, &revoked, &thisUpdate, &nextUpdate)
            let fresh = thisUpdate != nil && OCSP_check_validity(thisUpdate, nextUpdate, 15 * 60, 2 * 60) == 1
            ERR_clear_error()
            let kind: SingleStatus.Kind =
                status == V_OCSP_CERTSTATUS_GOOD ? .good : status == V_OCSP_CERTSTATUS_REVOKED ? .revoked : .unknown
            return SingleStatus(
                kind: kind, revocationTime: date(fromASN1: revoked), thisUpdate: date(fromASN1: thisUpdate),
                nextUpdate: date(fromASN1: nextUpdate), freshNow: fresh)
        }
        return nil
    }

    /// Verifies the response signature and the responder's chain to `anchors` at `time`.
    /// - Parameter responderTrustedByListing: true when the anchors are trusted-list services,
    ///   whose type alone authorises them (`OCSP_NOCHECKS`); false applies RFC 6960 §4.2.2.2
    ///   (the CA itself, or a responder it certified with the OCSPSigning EKU).
    func verify(
        anchors: [X509Handle], intermediates: [X509Handle], at time: Date, responderTrustedByListing: Bool
    ) -> Result<Void, ServiceRejection> {
        guard let basic else { return .failure(ServiceRejection("not a successful basic OCSP response")) }
        let store = X509StoreHandle(anchors: anchors, at: time)
        let extra = makeRetainedStack(intermediates)
        defer { cossl_x509_stack_pop_free(extra) }
        let flags = UInt(responderTrustedByListing ? OCSP_NOCHECKS : 0) | UInt(OCSP_PARTIAL_CHAIN)
        ERR_clear_error()
        guard OCSP_basic_verify(basic, extra, store.pointer, flags) == 1 else {
            return .failure(ServiceRejection(openSSLErrorText()))
        }
        return .success(())
    }
}
