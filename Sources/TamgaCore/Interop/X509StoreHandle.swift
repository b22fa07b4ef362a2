internal import COpenSSL
import FoundationEssentials
import Glibc

/// Owns an `X509_STORE` of trust anchors checked at a fixed time, with partial chains allowed
/// (an anchor may be an intermediate CA or a service certificate from a trusted list).
final class X509StoreHandle {
    let pointer: OpaquePointer

    init(anchors: [X509Handle], at time: Date) {
        pointer = X509_STORE_new()!
        for anchor in anchors { X509_STORE_add_cert(pointer, anchor.pointer) }
        ERR_clear_error()  // a duplicate anchor leaves an error queued
        X509_STORE_set_flags(pointer, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        X509_VERIFY_PARAM_set_time(X509_STORE_get0_param(pointer), time_t(time.timeIntervalSince1970))
    }
    deinit { X509_STORE_free(pointer) }

    /// Gives away one reference (for APIs such as `TS_VERIFY_CTX_set_store` that free the store).
    func retainedPointer() -> OpaquePointer {
        X509_STORE_up_ref(pointer)
        return pointer
    }
}

/// A new `STACK_OF(X509)` holding up-referenced certificates; the caller frees it with
/// `cossl_x509_stack_pop_free` (or hands it to an API that does).
func makeRetainedStack(_ certificates: [X509Handle]) -> OpaquePointer {
    let stack = cossl_x509_stack_new()!
    for certificate in certificates where X509_up_ref(certificate.pointer) == 1 {
        cossl_x509_stack_push(stack, certificate.pointer)
    }
    return stack
}

/// Copies the certificates of a borrowed stack into owned handles.
func handles(fromBorrowed stack: OpaquePointer?) -> [X509Handle] {
    guard let stack else { return [] }
    return (0..<cossl_x509_stack_count(stack)).compactMap { index in
        guard let x = cossl_x509_stack_value(stack, index), X509_up_ref(x) == 1 else { return nil }
        return X509Handle(taking: x)
    }
}

/// `ASN1_TIME` / `ASN1_GENERALIZEDTIME` → `Date` (fractions dropped, as the reference does).
func date(fromASN1 time: UnsafePointer<ASN1_TIME>?) -> Date? {
    guard let time else { return nil }
    var tm = tm()
    guard ASN1_TIME_to_tm(time, &tm) == 1 else { return nil }
    return Date(timeIntervalSince1970: TimeInterval(timegm(&tm)))
}
