#ifndef TAMGA_CDEFERRED_LIBRARIES_H
#define TAMGA_CDEFERRED_LIBRARIES_H
#include <stddef.h>
// libpq and libmicrohttpd are loaded when the co-signer first needs them, not when tamga
// starts: together with what they pull in (GnuTLS, Kerberos, LDAP, SASL, IDN: 17 of the 36
// shared libraries) they cost every command about 2.7 ms of start-up. The co-signer
// asks for them with tamga_lazy_load first, so a machine without one hears which package to
// install as an error of its own.

// They, OpenSSL, libxml2, SQLite and p11-kit are loaded on the first call of any function tamga uses
// from them (lazy.c, lazy_trampolines.c), so commands that do not use them (`--version`,
// `readers`, `help`) never map them: together about 1.5 ms of every start-up.
// Nothing needs to call these first; they are for saying early and clearly what is missing.
//
// The exit status when a lazily loaded library is missing at the moment a function of it is
// called, and the caller cannot be handed an error (docs/cli.md: exit 11).
#define TAMGA_LAZY_EXIT_STATUS 11
// Loads `soname` ("libcrypto.so.3") now: 1 when it and every function tamga uses are there.
int tamga_lazy_load(const char *soname);
// The file `soname` was loaded from, or NULL when it is not loaded.
const char *tamga_lazy_file(const char *soname);
// Why the last load of `soname` failed, or "".
const char *tamga_lazy_error(const char *soname);
// "OpenSSL (libcrypto.so.3) cannot be loaded: …. Install the libssl3 package." into
// `buffer`; the length it needed.
int tamga_lazy_describe_failure(const char *soname, char *buffer, size_t size);
// Called with that message when a library cannot be loaded in the middle of a call; it must
// not return (the command line removes its temporary files, restores the terminal and exits
// 11). The default prints the message on stderr and exits 11.
void tamga_lazy_set_failure_handler(void (*handler)(const char *message));
#endif
