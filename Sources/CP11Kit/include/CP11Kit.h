#ifndef TAMGA_CP11KIT_SHIM_H
#define TAMGA_CP11KIT_SHIM_H
// p11_kit_override_system_files is "unstable" API (exported since 0.23.10); tamga calls it only
// from tests, to make a test SoftHSM the only registered module.
#define P11_KIT_FUTURE_UNSTABLE_API 1
#include <p11-kit/p11-kit.h>
#include <p11-kit/pkcs11.h>
#include <p11-kit/pkcs11x.h>
#include <stdlib.h>
#include <string.h>

// Constants the Swift importer drops (casts, or unsigned macros mixed with int literals).
static const CK_ULONG CP11_UNAVAILABLE_INFORMATION = CK_UNAVAILABLE_INFORMATION;
static const CK_ULONG CP11_VENDOR_DEFINED = CKM_VENDOR_DEFINED;
static const CK_ULONG CP11_CKM_GOSTR3410_WITH_GOSTR3411_2012_256 = CKM_GOSTR3410_WITH_GOSTR3411_2012_256;
static const CK_ULONG CP11_CKM_GOSTR3410_WITH_GOSTR3411_2012_512 = CKM_GOSTR3410_WITH_GOSTR3411_2012_512;
static const CK_ULONG CP11_CKM_GOSTR3410_512 = CKM_GOSTR3410_512;

#endif
