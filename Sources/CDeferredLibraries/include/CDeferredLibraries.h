#ifndef TAMGA_CDEFERRED_LIBRARIES_H
#define TAMGA_CDEFERRED_LIBRARIES_H
// libpq and libmicrohttpd are loaded when the co-signer first needs them, not when tamga
// starts: together with what they pull in (GnuTLS, Kerberos, LDAP, SASL, IDN: 17 of the 36
// shared libraries) they cost every command about 2.7 ms of start-up (issue 18). The binary
// defines the few functions it calls from each (deferred.c) and forwards them to the library
// once loaded, so the Swift code calls them by their own names.
//
// Each returns 1 once the library and every function tamga uses from it are there, else 0
// with the reason in `tamga_deferred_error` (thread-safe: loaded once, the answer kept).
int tamga_load_libpq(void);
int tamga_load_microhttpd(void);
// Why the last load failed ("libpq.so.5: cannot open shared object file…"), or "".
const char *tamga_deferred_error(const char *library);
#endif
