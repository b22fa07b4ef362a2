#ifndef TAMGA_CPOSIX_SHIM_H
#define TAMGA_CPOSIX_SHIM_H
// Linux calls that Swift's Glibc module does not expose (they need _GNU_SOURCE).
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>

/// copy_file_range(2) through syscall(2): an in-kernel copy between two files.
static inline long cposix_copy_file_range(int fd_in, long long *off_in, int fd_out, long long *off_out, size_t len) {
    return syscall(SYS_copy_file_range, fd_in, off_in, fd_out, off_out, len, 0u);
}
#endif
