// libxml2's headers for the Swift code, without linking libxml2: it is loaded on first use
// (Sources/CDeferredLibraries/lazy.c). This is a C target rather than a system library so that
// its include folder, where `libxml` links to Debian's /usr/include/libxml2/libxml, is on every
// importer's header path without pkg-config (whose flags would link the library).
#include "CLibXML2.h"
