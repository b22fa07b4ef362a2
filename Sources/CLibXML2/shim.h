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

static inline void cxml_free(void *p) { xmlFree(p); }
#endif
