/* mock-token-pkcs11.c — a MOCK PKCS#11 module for tamga's tests, for what no real token here
 * can produce: it forwards every call to SoftHSM2 (a real token) and changes only what the
 * environment asks for, to play
 *   MOCK_PINPAD_PIN=PIN   a reader with a PIN pad: CKF_PROTECTED_AUTHENTICATION_PATH is set and
 *                         C_Login(NULL, 0) logs in with PIN, as if typed on the pad
 *   MOCK_PINPAD_CANCEL=1  the person presses Cancel on the pad: C_Login(NULL, 0) -> CKR_FUNCTION_CANCELED
 *   MOCK_PIN_FINAL_TRY=1  the token reports CKF_USER_PIN_FINAL_TRY (one try left)
 *   MOCK_PIN_LOCKED=1     the token reports CKF_USER_PIN_LOCKED and C_Login -> CKR_PIN_LOCKED
 *   MOCK_RUTOKEN=1        the token says it is an Aktiv Rutoken ECP with serial 1234567890 (decimal,
 *                         as Rutoken shows it) and offers the GOST R 34.10-2012 mechanisms too
 *   MOCK_SLOT_DESCRIPTION=TEXT  every slot is described as TEXT (Rutoken's module names its slot
 *                         after the PC/SC reader, e.g. "Aktiv Rutoken ECP 00 00")
 *   MOCK_LOGIN_LOG=FILE   every C_Login call appends a line to FILE (a test counts the tries)
 * Build: clang -shared -fPIC -o mock-token.so mock-token-pkcs11.c -ldl (the tests do).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <p11-kit/pkcs11.h>

static CK_FUNCTION_LIST real;        /* SoftHSM's table */
static CK_FUNCTION_LIST mock;        /* ours: a copy with a few entries replaced */
static int loaded;

static int flag(const char *name) { const char *v = getenv(name); return v && *v && strcmp(v, "0") != 0; }

static void pad(CK_UTF8CHAR *field, size_t size, const char *text) {
    memset(field, ' ', size);
    memcpy(field, text, strlen(text) < size ? strlen(text) : size);
}

static CK_RV mock_GetTokenInfo(CK_SLOT_ID slot, CK_TOKEN_INFO_PTR info) {
    CK_RV rv = real.C_GetTokenInfo(slot, info);
    if (rv != CKR_OK) return rv;
    if (getenv("MOCK_PINPAD_PIN") || flag("MOCK_PINPAD_CANCEL")) info->flags |= CKF_PROTECTED_AUTHENTICATION_PATH;
    if (flag("MOCK_PIN_FINAL_TRY")) info->flags |= CKF_USER_PIN_FINAL_TRY | CKF_USER_PIN_COUNT_LOW;
    if (flag("MOCK_PIN_LOCKED")) info->flags |= CKF_USER_PIN_LOCKED;
    if (flag("MOCK_RUTOKEN")) {
        pad(info->manufacturerID, sizeof info->manufacturerID, "Aktiv Co.");
        pad(info->model, sizeof info->model, "Rutoken ECP");
        pad(info->serialNumber, sizeof info->serialNumber, "1234567890");
    }
    return CKR_OK;
}

static CK_RV mock_Login(CK_SESSION_HANDLE session, CK_USER_TYPE user, CK_UTF8CHAR_PTR pin, CK_ULONG length) {
    const char *log = getenv("MOCK_LOGIN_LOG");
    if (log) {
        FILE *file = fopen(log, "a");
        if (file) { fputs("C_Login\n", file); fclose(file); }
    }
    if (flag("MOCK_PIN_LOCKED")) return CKR_PIN_LOCKED;
    if (pin == NULL && length == 0) {
        if (flag("MOCK_PINPAD_CANCEL")) return CKR_FUNCTION_CANCELED;
        const char *typed = getenv("MOCK_PINPAD_PIN");
        if (!typed) return CKR_ARGUMENTS_BAD;
        return real.C_Login(session, user, (CK_UTF8CHAR_PTR)typed, strlen(typed));
    }
    return real.C_Login(session, user, pin, length);
}

static CK_RV mock_GetMechanismList(CK_SLOT_ID slot, CK_MECHANISM_TYPE_PTR list, CK_ULONG_PTR count) {
    static const CK_MECHANISM_TYPE gost[] = { 0x1200, 0x1201, 0x1202, 0xD4321006UL, 0xD4321008UL };
    const CK_ULONG extra = flag("MOCK_RUTOKEN") ? sizeof gost / sizeof gost[0] : 0;
    CK_ULONG realCount = 0;
    CK_RV rv = real.C_GetMechanismList(slot, NULL, &realCount);
    if (rv != CKR_OK) return rv;
    if (list == NULL) { *count = realCount + extra; return CKR_OK; }
    if (*count < realCount + extra) { *count = realCount + extra; return CKR_BUFFER_TOO_SMALL; }
    rv = real.C_GetMechanismList(slot, list, &realCount);
    if (rv != CKR_OK) return rv;
    for (CK_ULONG i = 0; i < extra; i++) list[realCount + i] = gost[i];
    *count = realCount + extra;
    return CKR_OK;
}

static CK_RV mock_GetSlotInfo(CK_SLOT_ID slot, CK_SLOT_INFO_PTR info) {
    CK_RV rv = real.C_GetSlotInfo(slot, info);
    const char *description = getenv("MOCK_SLOT_DESCRIPTION");
    if (rv == CKR_OK && description) pad(info->slotDescription, sizeof info->slotDescription, description);
    return rv;
}

static CK_RV mock_GetInfo(CK_INFO_PTR info) {
    CK_RV rv = real.C_GetInfo(info);
    if (rv == CKR_OK) pad(info->libraryDescription, sizeof info->libraryDescription, "tamga MOCK token (over SoftHSM2)");
    return rv;
}

CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR list) {
    if (!loaded) {
        const char *path = getenv("MOCK_REAL_MODULE") ? getenv("MOCK_REAL_MODULE") : "/usr/lib/softhsm/libsofthsm2.so";
        void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!library) return CKR_GENERAL_ERROR;
        CK_C_GetFunctionList get = (CK_C_GetFunctionList)dlsym(library, "C_GetFunctionList");
        CK_FUNCTION_LIST_PTR table = NULL;
        if (!get || get(&table) != CKR_OK || !table) return CKR_GENERAL_ERROR;
        real = *table;
        mock = real;
        mock.C_GetTokenInfo = mock_GetTokenInfo;
        mock.C_Login = mock_Login;
        mock.C_GetMechanismList = mock_GetMechanismList;
        mock.C_GetInfo = mock_GetInfo;
        mock.C_GetSlotInfo = mock_GetSlotInfo;
        loaded = 1;
    }
    *list = &mock;
    return CKR_OK;
}
