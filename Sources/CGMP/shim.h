#ifndef TAMGA_CGMP_SHIM_H
#define TAMGA_CGMP_SHIM_H
#include <gmp.h>
#include <string.h>
#include <strings.h>

// GMP's mpz_* names are macros over __gmpz_*; Swift imports neither the macros nor the inline
// ones reliably, so the few used are re-exported here under cgmp_* names.
static inline void cgmp_init(mpz_ptr x) { mpz_init(x); }
static inline void cgmp_clear(mpz_ptr x) { mpz_clear(x); }
static inline void cgmp_set(mpz_ptr r, mpz_srcptr a) { mpz_set(r, a); }
static inline void cgmp_set_ui(mpz_ptr r, unsigned long a) { mpz_set_ui(r, a); }
static inline void cgmp_add(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_add(r, a, b); }
static inline void cgmp_add_ui(mpz_ptr r, mpz_srcptr a, unsigned long b) { mpz_add_ui(r, a, b); }
static inline void cgmp_sub(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_sub(r, a, b); }
static inline void cgmp_sub_ui(mpz_ptr r, mpz_srcptr a, unsigned long b) { mpz_sub_ui(r, a, b); }
static inline void cgmp_mul(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_mul(r, a, b); }
static inline void cgmp_mod(mpz_ptr r, mpz_srcptr a, mpz_srcptr m) { mpz_mod(r, a, m); }
static inline void cgmp_fdiv_q(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_fdiv_q(r, a, b); }
static inline int cgmp_invert(mpz_ptr r, mpz_srcptr a, mpz_srcptr m) { return mpz_invert(r, a, m); }
static inline void cgmp_gcd(mpz_ptr r, mpz_srcptr a, mpz_srcptr b) { mpz_gcd(r, a, b); }
static inline void cgmp_powm(mpz_ptr r, mpz_srcptr b, mpz_srcptr e, mpz_srcptr m) { mpz_powm(r, b, e, m); }
static inline void cgmp_powm_sec(mpz_ptr r, mpz_srcptr b, mpz_srcptr e, mpz_srcptr m) { mpz_powm_sec(r, b, e, m); }
static inline int cgmp_cmp(mpz_srcptr a, mpz_srcptr b) { return mpz_cmp(a, b); }
static inline int cgmp_cmp_ui(mpz_srcptr a, unsigned long b) { return mpz_cmp_ui(a, b); }
static inline int cgmp_sgn(mpz_srcptr a) { return mpz_sgn(a); }
static inline size_t cgmp_sizeinbase2(mpz_srcptr a) { return mpz_sizeinbase(a, 2); }
static inline int cgmp_odd_p(mpz_srcptr a) { return mpz_odd_p(a); }
static inline int cgmp_tstbit(mpz_srcptr a, mp_bitcnt_t bit) { return mpz_tstbit(a, bit); }
static inline int cgmp_probab_prime_p(mpz_srcptr a, int reps) { return mpz_probab_prime_p(a, reps); }
static inline unsigned long cgmp_fdiv_ui(mpz_srcptr a, unsigned long d) { return mpz_fdiv_ui(a, d); }
static inline int cgmp_perfect_square_p(mpz_srcptr a) { return mpz_perfect_square_p(a); }
static inline int cgmp_jacobi(mpz_srcptr a, mpz_srcptr b) { return mpz_jacobi(a, b); }
static inline void cgmp_mul_2exp(mpz_ptr r, mpz_srcptr a, mp_bitcnt_t n) { mpz_mul_2exp(r, a, n); }
static inline void cgmp_neg(mpz_ptr r, mpz_srcptr a) { mpz_neg(r, a); }
static inline void cgmp_sqrt(mpz_ptr r, mpz_srcptr a) { mpz_sqrt(r, a); }

// Big-endian bytes in and out.
static inline void cgmp_import_be(mpz_ptr r, const unsigned char *bytes, size_t count) { mpz_import(r, count, 1, 1, 1, 0, bytes); }
static inline size_t cgmp_export_be(unsigned char *out, mpz_srcptr a) {
    size_t count = 0;
    mpz_export(out, &count, 1, 1, 1, 0, a);
    return count;
}

// Wipes a number's limbs before GMP frees them (secrets: Paillier factors, key shares, nonces).
static inline void cgmp_wipe(mpz_ptr x) {
    if (x->_mp_alloc > 0 && x->_mp_d) explicit_bzero(x->_mp_d, (size_t)x->_mp_alloc * sizeof(mp_limb_t));
}

// GMP reallocates limbs as numbers grow, leaving the old ones in freed memory: install
// allocation functions that wipe what they free or move away from (process-wide, idempotent).
static void *cgmp_wiping_realloc(void *pointer, size_t old_size, size_t new_size) {
    void *fresh = malloc(new_size);
    if (!fresh) return NULL;
    memcpy(fresh, pointer, old_size < new_size ? old_size : new_size);
    explicit_bzero(pointer, old_size);
    free(pointer);
    return fresh;
}
static void cgmp_wiping_free(void *pointer, size_t size) {
    explicit_bzero(pointer, size);
    free(pointer);
}
static inline void cgmp_install_wiping_allocator(void) {
    mp_set_memory_functions(NULL, cgmp_wiping_realloc, cgmp_wiping_free);
}
#endif
