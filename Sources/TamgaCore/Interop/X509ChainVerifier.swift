internal import COpenSSL
import FoundationEssentials
import Glibc

/// Path validation with OpenSSL's `X509_STORE` / `X509_verify_cert`.
enum X509ChainVerifier {
    static func verify(
        leaf: X509Handle, anchors: [X509Handle], intermediates: [X509Handle], at time: Date, strict: Bool = true
    ) -> TrustStore.Verdict {
        guard let store = X509_STORE_new() else { return .unknown(reason: "out of memory") }
        defer { X509_STORE_free(store) }
        for anchor in anchors { X509_STORE_add_cert(store, anchor.pointer) }
        ERR_clear_error()  // adding a duplicate anchor leaves an error queued
        let untrusted = cossl_x509_stack_new()
        defer { cossl_x509_stack_free(untrusted) }
        for cert in intermediates { cossl_x509_stack_push(untrusted, cert.pointer) }
        guard let context = X509_STORE_CTX_new() else { return .unknown(reason: "out of memory") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
            return .unknown(reason: openSSLErrorText())
        }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_flags(
            parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN | (strict ? X509_V_FLAG_X509_STRICT : 0)))
        X509_VERIFY_PARAM_set_time(parameters, time_t(time.timeIntervalSince1970))
        if X509_verify_cert(context) == 1 {
            var names: [String] = []
            if let chain = X509_STORE_CTX_get0_chain(context) {
                for i in 0..<cossl_x509_stack_count(chain) {
                    if let x = cossl_x509_stack_value(chain, i), X509_up_ref(x) == 1 {
                        names.append(X509Handle(taking: x).subjectString)
                    }
                }
            }
            return .trusted(chain: names)
        }
        let code = X509_STORE_CTX_get_error(context)
        let reason = String(cString: X509_verify_cert_error_string(Int(code)))
        ERR_clear_error()
        switch code {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .unknown(reason: reason)
        default:
            return .invalid(reason: reason)
        }
    }
}
