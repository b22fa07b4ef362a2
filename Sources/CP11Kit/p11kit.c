// p11-kit's headers for the Swift code, without linking p11-kit: it is loaded on first use
// (Sources/CDeferredLibraries/lazy.c). A C target rather than a system library so that its
// include folder, where `p11-kit` links to Debian's /usr/include/p11-kit-1/p11-kit, is on every
// importer's header path without pkg-config (whose flags would link the library).
#include "CP11Kit.h"
