// pcsc-lite's headers for the Swift code. A C target rather than a system library with
// pkg-config, whose flags for libpcsclite add -pthread, which SwiftPM refuses with a warning on
// every build: instead `pcsclite.h` and `wintypes.h` in the include folder link to Debian's
// /usr/include/PCSC (winscard.h includes them as <pcsclite.h>), and the module map links the
// library (`link "pcsclite"`).
#include "CPCSC.h"
