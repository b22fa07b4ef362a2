// Internal to CDeferredLibraries: what the generated lazy_trampolines.c defines and lazy.c uses.
#ifndef TAMGA_LAZY_H
#define TAMGA_LAZY_H
#include <pthread.h>
#include <stddef.h>

struct tamga_lazy_library {
    const char *soname;      // "libcrypto.so.3"
    const char *name;        // "OpenSSL": what a person reads
    const char *package;     // "libssl3": the Debian package that has it
    pthread_once_t once;
    int loaded;
    char error[512];
    void *handle;            // from dlopen, once loaded (for the variables, see tamga_xml_free)
};

extern struct tamga_lazy_library tamga_lazy_libraries[];
extern const size_t tamga_lazy_library_count;
// Per function: its name and the library it lives in; the slot the trampoline jumps through.
extern const char *const tamga_lazy_function_names[];
extern const unsigned short tamga_lazy_function_library[];
extern const size_t tamga_lazy_function_count;
extern void *tamga_lazy_slots[];
#endif
