#ifndef TAMGA_CMICROHTTPD_SHIM_H
#define TAMGA_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic, which Swift cannot call: the options tamga uses, fixed here.
// Loopback or any address, a thread pool, a connection limit and timeout, a per-request
// completion callback (to release the request's accumulated body).
// MHD's error log, less what a server sees all day: clients that close or drop their
// connections (every slow client the deadline cuts would otherwise print a line).
static void cmhd_log(void *cls, const char *format, va_list arguments) {
    (void)cls;
    if (strstr(format, "closed") || strstr(format, "Connection reset") || strstr(format, "timed out")) return;
    vfprintf(stderr, format, arguments);
}

static inline struct MHD_Daemon *cmhd_start(uint16_t port, int loopbackOnly, unsigned int threads,
                                            unsigned int connectionLimit, unsigned int perAddressLimit,
                                            unsigned int timeoutSeconds, size_t memoryLimit,
                                            MHD_AccessHandlerCallback handler, void *context,
                                            MHD_RequestCompletedCallback completed,
                                            MHD_NotifyConnectionCallback notify,
                                            const char *tlsKeyPEM, const char *tlsCertificatePEM) {
    static struct sockaddr_in loopback;
    loopback.sin_family = AF_INET;
    loopback.sin_port = htons(port);
    loopback.sin_addr.s_addr = htonl(loopbackOnly ? INADDR_LOOPBACK : INADDR_ANY);
    // The logger comes first: MHD warns (on stderr, through its own logger) when it does not.
    if (tlsKeyPEM && tlsCertificatePEM) {
        return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_TLS,
                                port, NULL, NULL, handler, context,
                                MHD_OPTION_EXTERNAL_LOGGER, cmhd_log, NULL,
                                MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&loopback,
                                MHD_OPTION_THREAD_POOL_SIZE, threads,
                                MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
                                MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, memoryLimit,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                                MHD_OPTION_NOTIFY_CONNECTION, notify, context,
                                MHD_OPTION_HTTPS_MEM_KEY, tlsKeyPEM,
                                MHD_OPTION_HTTPS_MEM_CERT, tlsCertificatePEM,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG,
                            port, NULL, NULL, handler, context,
                            MHD_OPTION_EXTERNAL_LOGGER, cmhd_log, NULL,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&loopback,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memoryLimit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, context,
                            MHD_OPTION_END);
}

// The connection's socket (MHD_get_connection_info is variadic): -1 when MHD does not say.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}
static inline int cmhd_notify_started(enum MHD_ConnectionNotificationCode code) { return code == MHD_CONNECTION_NOTIFY_STARTED; }

// Bytes of every request header name and value together (for a JSON 431 below MHD's own limit).
static enum MHD_Result cmhd_count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    size_t *total = (size_t *)cls;
    *total += (key ? strlen(key) : 0) + (value ? strlen(value) : 0) + 4;
    return MHD_YES;
}
static inline size_t cmhd_header_bytes(struct MHD_Connection *connection) {
    size_t total = 0;
    MHD_get_connection_values(connection, MHD_HEADER_KIND, cmhd_count_header, &total);
    return total;
}

// One query argument (`?limit=…`), or NULL.
static inline const char *cmhd_argument(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
}

// Enum values Swift does not import as plain constants.
static inline enum MHD_Result cmhd_result(int yes) { return yes ? MHD_YES : MHD_NO; }
static inline const char *cmhd_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}
static inline struct MHD_Response *cmhd_response_copy(const void *data, size_t size) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

// The port the daemon listens on (for port 0: the one the system picked).
static inline uint16_t cmhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
#endif
