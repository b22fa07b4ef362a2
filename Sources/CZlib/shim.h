#ifndef TAMGA_CZLIB_SHIM_H
#define TAMGA_CZLIB_SHIM_H
#include <zlib.h>
// deflateInit2/inflateInit2 are macros over the *_ functions with version and struct size.
static inline int czlib_deflate_init_raw(z_stream *s, int level) {
    return deflateInit2(s, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
static inline int czlib_inflate_init_raw(z_stream *s) { return inflateInit2(s, -MAX_WBITS); }
#endif
