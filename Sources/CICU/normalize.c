#define _GNU_SOURCE
#include "CICU.h"
#include <dlfcn.h>
#include <pthread.h>
#include <unicode/uversion.h>
#include <unicode/unorm2.h>

// ICU is not linked: libxml2 loads it when a command first parses XML, and this file loads it
// itself when a name is compared before that (so that a command that needs neither pays
// nothing for it at start-up). ICU renames its functions with its version
// (unorm2_normalize_72); the header's macros give the names this build was compiled against,
// and the library's file name has the same version.
#define CICU_STRING(x) #x
#define CICU_NAME(x) CICU_STRING(x)
#define CICU_LIBRARY "libicuuc.so." CICU_NAME(U_ICU_VERSION_MAJOR_NUM)

typedef const UNormalizer2 *(*instance_function)(UErrorCode *);
typedef int32_t (*normalize_function)(const UNormalizer2 *, const UChar *, int32_t, UChar *, int32_t, UErrorCode *);
static instance_function nfkc_instance, nfd_instance;
static normalize_function normalize;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = dlopen(CICU_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle) return;
    instance_function nfkc = (instance_function)dlsym(handle, CICU_NAME(unorm2_getNFKCInstance));
    instance_function nfd = (instance_function)dlsym(handle, CICU_NAME(unorm2_getNFDInstance));
    normalize_function run = (normalize_function)dlsym(handle, CICU_NAME(unorm2_normalize));
    if (!nfkc || !nfd || !run) return;
    nfkc_instance = nfkc;
    nfd_instance = nfd;
    normalize = run;
}

const char *cicu_library_name(void) { return CICU_LIBRARY; }

int32_t cicu_normalize(cicu_form form, const uint16_t *source, int32_t length,
                       uint16_t *destination, int32_t capacity, int *too_small) {
    *too_small = 0;
    pthread_once(&once, load);
    if (!normalize) return -2;
    UErrorCode status = U_ZERO_ERROR;
    const UNormalizer2 *normalizer = form == CICU_NFD ? nfd_instance(&status) : nfkc_instance(&status);
    if (U_FAILURE(status)) return -1;
    int32_t result = normalize(normalizer, (const UChar *)source, length, (UChar *)destination, capacity, &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) { *too_small = 1; return result; }
    return U_FAILURE(status) ? -1 : result;
}
