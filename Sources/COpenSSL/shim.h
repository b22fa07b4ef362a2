#ifndef TAMGA_COPENSSL_SHIM_H
#define TAMGA_COPENSSL_SHIM_H
#include <string.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pkcs12.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/ts.h>
#include <openssl/ocsp.h>
#include <openssl/pkcs7.h>
#include <openssl/ssl.h>

// Macros and stack helpers that Swift cannot import, re-exported as inline functions.
static inline void cossl_free(void *p) { OPENSSL_free(p); }
static inline int cossl_x509_stack_count(const STACK_OF(X509) *s) { return sk_X509_num(s); }
static inline X509 *cossl_x509_stack_value(const STACK_OF(X509) *s, int i) { return sk_X509_value(s, i); }
static inline STACK_OF(X509) *cossl_x509_stack_new(void) { return sk_X509_new_null(); }
static inline int cossl_x509_stack_push(STACK_OF(X509) *s, X509 *x) { return sk_X509_push(s, x); }
static inline void cossl_x509_stack_free(STACK_OF(X509) *s) { sk_X509_free(s); }
static inline void cossl_x509_stack_pop_free(STACK_OF(X509) *s) { sk_X509_pop_free(s, X509_free); }
static inline int cossl_access_desc_count(const AUTHORITY_INFO_ACCESS *s) { return sk_ACCESS_DESCRIPTION_num(s); }
static inline ACCESS_DESCRIPTION *cossl_access_desc_value(const AUTHORITY_INFO_ACCESS *s, int i) {
    return sk_ACCESS_DESCRIPTION_value(s, i);
}
static inline void cossl_aia_free(AUTHORITY_INFO_ACCESS *s) { AUTHORITY_INFO_ACCESS_free(s); }
static inline int cossl_bio_pending(BIO *b) { return (int)BIO_ctrl_pending(b); }
static inline long cossl_bio_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline int cossl_pkey_ctx_set_rsa_padding(EVP_PKEY_CTX *ctx, int pad) {
    return EVP_PKEY_CTX_set_rsa_padding(ctx, pad);
}
static inline int cossl_pkey_ctx_set_rsa_pss_saltlen(EVP_PKEY_CTX *ctx, int len) {
    return EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, len);
}
static inline int cossl_pkey_ctx_set_rsa_mgf1_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) {
    return EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md);
}
static inline int cossl_pkey_ctx_set_signature_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) {
    return EVP_PKEY_CTX_set_signature_md(ctx, md);
}
// XN_FLAG_RFC2253 without escaping of UTF-8 bytes (as libdigidocpp prints names).
static const unsigned long cossl_name_flags_rfc2253_utf8 = XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB;
static inline const char *cossl_general_name_uri(const GENERAL_NAME *name) {
    if (name->type != GEN_URI) return NULL;
    return (const char *)ASN1_STRING_get0_data(name->d.uniformResourceIdentifier);
}
static inline int cossl_general_name_uri_length(const GENERAL_NAME *name) {
    return name->type == GEN_URI ? ASN1_STRING_length(name->d.uniformResourceIdentifier) : 0;
}
// The certificates carried in a PKCS#7/CMS SignedData (a time-stamp token); borrowed.
static inline STACK_OF(X509) *cossl_pkcs7_certificates(PKCS7 *p7) {
    if (p7 == NULL || !PKCS7_type_is_signed(p7) || p7->d.sign == NULL) return NULL;
    return p7->d.sign->cert;
}
static inline unsigned char *cossl_malloc_copy(const unsigned char *bytes, size_t length) {
    unsigned char *copy = OPENSSL_malloc(length);
    if (copy != NULL) memcpy(copy, bytes, length);
    return copy;
}
static inline int cossl_error_reason(unsigned long code) { return ERR_GET_REASON(code); }
// TLS client helpers (macros in ssl.h).
static inline int cossl_ssl_set_sni(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
static inline int cossl_ctx_require_tls12(SSL_CTX *ctx) { return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); }

// Certificate requests and issuance.
static inline int cossl_bit_string_set_no_unused(ASN1_BIT_STRING *bits) {
    bits->flags &= ~0x07;
    bits->flags |= ASN1_STRING_FLAG_BITS_LEFT;
    return 1;
}
static inline X509_EXTENSION *cossl_extension(X509 *issuer, X509 *subject, int nid, const char *value) {
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, issuer, subject, NULL, NULL, 0);
    return X509V3_EXT_conf_nid(NULL, &context, nid, value);
}

// A fresh P-256 key (EVP_EC_gen is a variadic macro).
static inline EVP_PKEY *cossl_ec_generate_p256(void) { return EVP_EC_gen("P-256"); }

#endif
