#ifndef TAMGA_CICU_H
#define TAMGA_CICU_H
// Unicode normalisation through Debian's ICU (libxml2 links it, so it is loaded anyway).
// Only plain C types cross this header: the ICU headers stay inside normalize.c, because the
// Swift toolchain's Foundation carries its own copy of them (_FoundationICU) whose enums
// would clash with Debian's in any module that imports both.
#include <stdint.h>

/// The normalisation forms tamga uses.
typedef enum { CICU_NFKC = 0, CICU_NFD = 1 } cicu_form;

/// `source` (UTF-16, `length` units) in `form` into `destination` (`capacity` units). Returns
/// the length of the result, or the length needed with `*too_small` set when `capacity` was not
/// enough; -1 when ICU fails otherwise, -2 when ICU cannot be loaded (`cicu_library_name`).
int32_t cicu_normalize(cicu_form form, const uint16_t *source, int32_t length,
                       uint16_t *destination, int32_t capacity, int *too_small);
/// The ICU library loaded on first use ("libicuuc.so.72").
const char *cicu_library_name(void);
#endif
