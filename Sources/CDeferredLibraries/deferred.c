// Deferred loading of libpq and libmicrohttpd (see include/CDeferredLibraries.h for why).
// Each function below has the library's own name and signature (the library's header is
// included, so the compiler checks that they match) and calls the library's function through a
// pointer filled by dlopen/dlsym on first load. Before a successful load the functions answer
// as the library does on failure (NULL, a bad status); the Swift callers load first and say
// what is missing, so those answers are a last guard, not a path.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <postgresql/libpq-fe.h>
#include <microhttpd.h>
#include "CDeferredLibraries.h"

struct deferred {
    const char *soname;
    const char *const *names;
    void **slots;
    size_t count;
    pthread_once_t once;
    int loaded;
    char error[512];
};

static void deferred_load(struct deferred *library) {
    // RTLD_LOCAL: the library's symbols must not interpose on the definitions below.
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(library->error, sizeof library->error, "%s", reason ? reason : library->soname);
        return;
    }
    for (size_t index = 0; index < library->count; index++) {
        void *function = dlsym(handle, library->names[index]);
        if (!function) {
            snprintf(library->error, sizeof library->error, "%s has no %s", library->soname, library->names[index]);
            return;   // the handle stays open: nothing was called yet, and a process loads it once
        }
        library->slots[index] = function;
    }
    library->loaded = 1;
}

enum { pq_PQconnectdbParams, pq_PQstatus, pq_PQerrorMessage, pq_PQfinish, pq_PQsetNoticeProcessor, pq_PQsocket, pq_PQtransactionStatus, pq_PQexec, pq_PQexecParams, pq_PQclear, pq_PQresultStatus, pq_PQresultErrorMessage, pq_PQresultErrorField, pq_PQcmdTuples, pq_PQntuples, pq_PQnfields, pq_PQftype, pq_PQgetisnull, pq_PQgetlength, pq_PQgetvalue, pq_count };
static const char *const pq_names[] = { "PQconnectdbParams", "PQstatus", "PQerrorMessage", "PQfinish", "PQsetNoticeProcessor", "PQsocket", "PQtransactionStatus", "PQexec", "PQexecParams", "PQclear", "PQresultStatus", "PQresultErrorMessage", "PQresultErrorField", "PQcmdTuples", "PQntuples", "PQnfields", "PQftype", "PQgetisnull", "PQgetlength", "PQgetvalue" };
static void *pq_slots[pq_count];
static struct deferred pq_library = { "libpq.so.5", pq_names, pq_slots, pq_count, PTHREAD_ONCE_INIT, 0, "" };
static void pq_load_once(void) { deferred_load(&pq_library); }
int tamga_load_libpq(void) { pthread_once(&pq_library.once, pq_load_once); return pq_library.loaded; }

PGconn * PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    if (!tamga_load_libpq()) { return NULL; }
    return ((PGconn * (*)(const char *const *keywords, const char *const *values, int expand_dbname))pq_slots[pq_PQconnectdbParams])(keywords, values, expand_dbname);
}
ConnStatusType PQstatus(const PGconn *conn) {
    if (!tamga_load_libpq()) { return CONNECTION_BAD; }
    return ((ConnStatusType (*)(const PGconn *conn))pq_slots[pq_PQstatus])(conn);
}
char * PQerrorMessage(const PGconn *conn) {
    if (!tamga_load_libpq()) { return (char *)"libpq is not loaded"; }
    return ((char * (*)(const PGconn *conn))pq_slots[pq_PQerrorMessage])(conn);
}
void PQfinish(PGconn *conn) {
    if (!tamga_load_libpq()) { return; }
    ((void (*)(PGconn *conn))pq_slots[pq_PQfinish])(conn);
}
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    if (!tamga_load_libpq()) { return NULL; }
    return ((PQnoticeProcessor (*)(PGconn *conn, PQnoticeProcessor proc, void *arg))pq_slots[pq_PQsetNoticeProcessor])(conn, proc, arg);
}
int PQsocket(const PGconn *conn) {
    if (!tamga_load_libpq()) { return -1; }
    return ((int (*)(const PGconn *conn))pq_slots[pq_PQsocket])(conn);
}
PGTransactionStatusType PQtransactionStatus(const PGconn *conn) {
    if (!tamga_load_libpq()) { return PQTRANS_UNKNOWN; }
    return ((PGTransactionStatusType (*)(const PGconn *conn))pq_slots[pq_PQtransactionStatus])(conn);
}
PGresult * PQexec(PGconn *conn, const char *query) {
    if (!tamga_load_libpq()) { return NULL; }
    return ((PGresult * (*)(PGconn *conn, const char *query))pq_slots[pq_PQexec])(conn, query);
}
PGresult * PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    if (!tamga_load_libpq()) { return NULL; }
    return ((PGresult * (*)(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat))pq_slots[pq_PQexecParams])(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
void PQclear(PGresult *res) {
    if (!tamga_load_libpq()) { return; }
    ((void (*)(PGresult *res))pq_slots[pq_PQclear])(res);
}
ExecStatusType PQresultStatus(const PGresult *res) {
    if (!tamga_load_libpq()) { return PGRES_FATAL_ERROR; }
    return ((ExecStatusType (*)(const PGresult *res))pq_slots[pq_PQresultStatus])(res);
}
char * PQresultErrorMessage(const PGresult *res) {
    if (!tamga_load_libpq()) { return (char *)"libpq is not loaded"; }
    return ((char * (*)(const PGresult *res))pq_slots[pq_PQresultErrorMessage])(res);
}
char * PQresultErrorField(const PGresult *res, int fieldcode) {
    if (!tamga_load_libpq()) { return NULL; }
    return ((char * (*)(const PGresult *res, int fieldcode))pq_slots[pq_PQresultErrorField])(res, fieldcode);
}
char * PQcmdTuples(PGresult *res) {
    if (!tamga_load_libpq()) { return (char *)""; }
    return ((char * (*)(PGresult *res))pq_slots[pq_PQcmdTuples])(res);
}
int PQntuples(const PGresult *res) {
    if (!tamga_load_libpq()) { return 0; }
    return ((int (*)(const PGresult *res))pq_slots[pq_PQntuples])(res);
}
int PQnfields(const PGresult *res) {
    if (!tamga_load_libpq()) { return 0; }
    return ((int (*)(const PGresult *res))pq_slots[pq_PQnfields])(res);
}
Oid PQftype(const PGresult *res, int field_num) {
    if (!tamga_load_libpq()) { return 0; }
    return ((Oid (*)(const PGresult *res, int field_num))pq_slots[pq_PQftype])(res, field_num);
}
int PQgetisnull(const PGresult *res, int tup_num, int field_num) {
    if (!tamga_load_libpq()) { return 1; }
    return ((int (*)(const PGresult *res, int tup_num, int field_num))pq_slots[pq_PQgetisnull])(res, tup_num, field_num);
}
int PQgetlength(const PGresult *res, int tup_num, int field_num) {
    if (!tamga_load_libpq()) { return 0; }
    return ((int (*)(const PGresult *res, int tup_num, int field_num))pq_slots[pq_PQgetlength])(res, tup_num, field_num);
}
char * PQgetvalue(const PGresult *res, int tup_num, int field_num) {
    if (!tamga_load_libpq()) { return NULL; }
    return ((char * (*)(const PGresult *res, int tup_num, int field_num))pq_slots[pq_PQgetvalue])(res, tup_num, field_num);
}

enum { mhd_MHD_start_daemon_va, mhd_MHD_stop_daemon, mhd_MHD_queue_response, mhd_MHD_create_response_from_buffer, mhd_MHD_add_response_header, mhd_MHD_destroy_response, mhd_MHD_get_connection_values, mhd_MHD_lookup_connection_value, mhd_MHD_get_connection_info, mhd_MHD_get_daemon_info, mhd_count };
static const char *const mhd_names[] = { "MHD_start_daemon_va", "MHD_stop_daemon", "MHD_queue_response", "MHD_create_response_from_buffer", "MHD_add_response_header", "MHD_destroy_response", "MHD_get_connection_values", "MHD_lookup_connection_value", "MHD_get_connection_info", "MHD_get_daemon_info" };
static void *mhd_slots[mhd_count];
static struct deferred mhd_library = { "libmicrohttpd.so.12", mhd_names, mhd_slots, mhd_count, PTHREAD_ONCE_INIT, 0, "" };
static void mhd_load_once(void) { deferred_load(&mhd_library); }
int tamga_load_microhttpd(void) { pthread_once(&mhd_library.once, mhd_load_once); return mhd_library.loaded; }

struct MHD_Daemon * MHD_start_daemon_va(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, va_list ap) {
    if (!tamga_load_microhttpd()) { return NULL; }
    return ((struct MHD_Daemon * (*)(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, va_list ap))mhd_slots[mhd_MHD_start_daemon_va])(flags, port, apc, apc_cls, dh, dh_cls, ap);
}
void MHD_stop_daemon(struct MHD_Daemon *daemon) {
    if (!tamga_load_microhttpd()) { return; }
    ((void (*)(struct MHD_Daemon *daemon))mhd_slots[mhd_MHD_stop_daemon])(daemon);
}
enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code, struct MHD_Response *response) {
    if (!tamga_load_microhttpd()) { return MHD_NO; }
    return ((enum MHD_Result (*)(struct MHD_Connection *connection, unsigned int status_code, struct MHD_Response *response))mhd_slots[mhd_MHD_queue_response])(connection, status_code, response);
}
struct MHD_Response * MHD_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    if (!tamga_load_microhttpd()) { return NULL; }
    return ((struct MHD_Response * (*)(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode))mhd_slots[mhd_MHD_create_response_from_buffer])(size, buffer, mode);
}
enum MHD_Result MHD_add_response_header(struct MHD_Response *response, const char *header, const char *content) {
    if (!tamga_load_microhttpd()) { return MHD_NO; }
    return ((enum MHD_Result (*)(struct MHD_Response *response, const char *header, const char *content))mhd_slots[mhd_MHD_add_response_header])(response, header, content);
}
void MHD_destroy_response(struct MHD_Response *response) {
    if (!tamga_load_microhttpd()) { return; }
    ((void (*)(struct MHD_Response *response))mhd_slots[mhd_MHD_destroy_response])(response);
}
int MHD_get_connection_values(struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *iterator_cls) {
    if (!tamga_load_microhttpd()) { return -1; }
    return ((int (*)(struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *iterator_cls))mhd_slots[mhd_MHD_get_connection_values])(connection, kind, iterator, iterator_cls);
}
const char * MHD_lookup_connection_value(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key) {
    if (!tamga_load_microhttpd()) { return NULL; }
    return ((const char * (*)(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key))mhd_slots[mhd_MHD_lookup_connection_value])(connection, kind, key);
}

// The variadic entry points tamga calls, forwarded to their fixed-argument forms: MHD's own
// MHD_start_daemon_va, and the info queries whose info types here take no further argument.
struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                    MHD_AccessHandlerCallback dh, void *dh_cls, ...) {
    va_list arguments;
    va_start(arguments, dh_cls);
    struct MHD_Daemon *daemon = MHD_start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, arguments);
    va_end(arguments);
    return daemon;
}

const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *connection, enum MHD_ConnectionInfoType info_type, ...) {
    if (!tamga_load_microhttpd()) { return NULL; }
    typedef const union MHD_ConnectionInfo *(*Query)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    return ((Query)mhd_slots[mhd_MHD_get_connection_info])(connection, info_type);
}

const union MHD_DaemonInfo *MHD_get_daemon_info(struct MHD_Daemon *daemon, enum MHD_DaemonInfoType info_type, ...) {
    if (!tamga_load_microhttpd()) { return NULL; }
    typedef const union MHD_DaemonInfo *(*Query)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    return ((Query)mhd_slots[mhd_MHD_get_daemon_info])(daemon, info_type);
}

const char *tamga_deferred_error(const char *library) {
    if (strcmp(library, "libpq") == 0) { return pq_library.error; }
    if (strcmp(library, "microhttpd") == 0) { return mhd_library.error; }
    return "";
}
