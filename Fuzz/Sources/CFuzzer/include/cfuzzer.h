#ifndef TAMGA_CFUZZER_H
#define TAMGA_CFUZZER_H
#include <stddef.h>
#include <stdint.h>
/* libFuzzer's entry for programs that have their own main (LLVM 12 and later). SwiftPM links
   each executable target's main under another name (<Target>_main), so the targets call this
   instead of relying on libFuzzer's main. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
