#ifndef TAMGA_CLIBXML2_SHIM_H
#define TAMGA_CLIBXML2_SHIM_H
// Debian builds libxml2 with ICU; its unicode headers clash with Foundation's bundled ICU
// ("'UErrorCode' has different definitions") on a clean build. Undefine before anything else.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/c14n.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>

// xmlFree is a variable, not a function: libxml2 is loaded on first use (CDeferredLibraries),
// and the variable is read there.
void tamga_xml_free(void *p);
static inline void cxml_free(void *p) { tamga_xml_free(p); }
#endif
