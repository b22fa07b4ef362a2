#ifndef TAMGA_CMICROHTTPD_SHIM_H
#define TAMGA_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic, which Swift cannot call: the options tamga uses, fixed here.
// No listening socket of MHD's own: tamga accepts each connection itself (ConnectionGate, to read
// a PROXY header from a trusted proxy and to decide under pressure who gets a slot) and hands it
// over with MHD_add_connection (cmhd_add_connection), hence MHD_USE_ITC, which wakes the worker
// that takes it. A thread pool polling with epoll (poll() over TLS, below), a connection limit
// and timeout, a per-request completion callback (to release the request's accumulated body).
// MHD's error log: every line goes to `line` (ConnectionLog, which collapses repeats and writes
// a summary a minute), formatted here (Swift cannot take a va_list apart).
typedef void (*cmhd_log_line)(void *context, const char *line);
struct cmhd_log_target { cmhd_log_line line; void *context; };
static void cmhd_log(void *cls, const char *format, va_list arguments) {
    struct cmhd_log_target *target = (struct cmhd_log_target *)cls;
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    if (target && target->line) target->line(target->context, line);
}

static inline struct MHD_Daemon *cmhd_start(unsigned int threads,
                                            unsigned int connectionLimit, unsigned int perAddressLimit,
                                            unsigned int timeoutSeconds, size_t memoryLimit,
                                            MHD_AccessHandlerCallback handler, void *context,
                                            MHD_RequestCompletedCallback completed,
                                            MHD_NotifyConnectionCallback notify,
                                            struct cmhd_log_target *log,
                                            const char *tlsKeyPEM, const char *tlsCertificatePEM) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC;
    // The logger comes first: MHD warns (on stderr, through its own logger) when it does not.
    if (tlsKeyPEM && tlsCertificatePEM) {
        // poll(), not epoll, over TLS: libmicrohttpd 0.9.75's epoll loop spins a whole core on
        // a TLS connection whose first record has not arrived whole (one client sending 11
        // bytes of a ClientHello kept a core busy until the request deadline cut it; many slow
        // clients over TLS kept both); its poll() loop waits as it should.
        return MHD_start_daemon(flags | MHD_USE_POLL | MHD_USE_TLS, 0, NULL, NULL, handler, context,
                                MHD_OPTION_EXTERNAL_LOGGER, cmhd_log, log,
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
    return MHD_start_daemon(flags | MHD_USE_EPOLL, 0, NULL, NULL, handler, context,
                            MHD_OPTION_EXTERNAL_LOGGER, cmhd_log, log,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memoryLimit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, context,
                            MHD_OPTION_END);
}

// Hands an accepted socket to MHD with the client's address: 4 bytes (IPv4) or 16 (IPv6) and a
// port, the peer's own or the one a trusted proxy's PROXY header names, so that MHD's
// per-address count and the handler see the real client. MHD owns (and closes) the socket
// after this, whatever it answers.
static inline int cmhd_add_connection(struct MHD_Daemon *daemon, int socket, const unsigned char *address, size_t count, uint16_t port) {
    if (count == 16) {
        struct sockaddr_in6 client;
        memset(&client, 0, sizeof client);
        client.sin6_family = AF_INET6;
        client.sin6_port = htons(port);
        memcpy(&client.sin6_addr, address, 16);
        return MHD_add_connection(daemon, socket, (const struct sockaddr *)&client, sizeof client) == MHD_YES;
    }
    struct sockaddr_in client;
    memset(&client, 0, sizeof client);
    client.sin_family = AF_INET;
    client.sin_port = htons(port);
    if (count == 4) memcpy(&client.sin_addr, address, 4);
    return MHD_add_connection(daemon, socket, (const struct sockaddr *)&client, sizeof client) == MHD_YES;
}

// The client address MHD keeps for a connection (what cmhd_add_connection gave it) into `out`:
// 4 or 16, or 0 when MHD does not say.
static inline size_t cmhd_connection_address(struct MHD_Connection *connection, unsigned char out[16]) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return 0;
    if (info->client_addr->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)info->client_addr)->sin6_addr, 16);
        return 16;
    }
    if (info->client_addr->sa_family == AF_INET) {
        memcpy(out, &((const struct sockaddr_in *)info->client_addr)->sin_addr, 4);
        return 4;
    }
    return 0;
}

// The bytes the kernel has received on a TCP socket (tcpi_bytes_received), or UINT64_MAX when it
// does not say. glibc's struct tcp_info ends before the byte counters, and Linux's own
// (linux/tcp.h) clashes with it in one module, so the field is read at its place in the kernel's
// structure: byte 128, since Linux 4.1 (the structure only ever grows; an older kernel returns
// fewer bytes, and the answer is then "unknown").
static inline uint64_t cmhd_bytes_received(int socket) {
    unsigned char info[256];
    socklen_t length = sizeof info;
    memset(info, 0, sizeof info);
    if (getsockopt(socket, IPPROTO_TCP, TCP_INFO, info, &length) != 0 || length < 136) return UINT64_MAX;
    uint64_t value;
    memcpy(&value, info + 128, sizeof value);
    return value;
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

#endif
