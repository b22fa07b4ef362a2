#ifndef TAMGA_CPOSIX_SHIM_H
#define TAMGA_CPOSIX_SHIM_H
// Linux calls that Swift's Glibc module does not expose (they need _GNU_SOURCE).
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/prctl.h>

/// copy_file_range(2) through syscall(2): an in-kernel copy between two files.
static inline long cposix_copy_file_range(int fd_in, long long *off_in, int fd_out, long long *off_out, size_t len) {
    return syscall(SYS_copy_file_range, fd_in, off_in, fd_out, off_out, len, 0u);
}

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: start writing a range's dirty pages to the
/// disk now, without waiting for them, so that a later fsync has little left to wait for.
static inline int cposix_start_writeback(int fd, long long offset, long long length) {
    return (int)syscall(SYS_sync_file_range, fd, offset, length, 2u /* SYNC_FILE_RANGE_WRITE */);
}

/// Names the calling thread (at most 15 bytes show; prctl is variadic, which Swift cannot call).
static inline int cposix_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}
#endif
