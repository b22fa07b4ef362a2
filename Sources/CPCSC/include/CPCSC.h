#ifndef TAMGA_CPCSC_H
#define TAMGA_CPCSC_H
#include <PCSC/winscard.h>
#include <PCSC/wintypes.h>
#include <PCSC/pcsclite.h>
// Address-of and cast macros that Swift does not import.
static inline const SCARD_IO_REQUEST *cpcsc_pci_t0(void) { return SCARD_PCI_T0; }
static inline const SCARD_IO_REQUEST *cpcsc_pci_t1(void) { return SCARD_PCI_T1; }
static const DWORD cpcsc_infinite = INFINITE;
#endif
