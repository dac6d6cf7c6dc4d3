/* Finding the C library a process maps, to put uprobes on it (the DNS and
 * allocation collectors).  The maps and the file are the process's: hostile
 * input, read bounded and opened through /proc by fd (util/mapfile.h). */
#ifndef PERFREPORT_LIBC_FIND_H
#define PERFREPORT_LIBC_FIND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "../util/strbuf.h"

/* One line of /proc/PID/maps that maps a C library (glibc's libc.so.6 or
 * libc-X.Y.so, musl's ld-musl-*.so.1 or libc.musl-*.so.1): its address
 * range, inode, device ("fd:01") and path, " (deleted)" left off.  A line of
 * 512 bytes or more, a path of 256 or more, no inode: not one. */
struct libc_map {
    uint64_t start, end, inode;
    char dev[16];
    char path[256];
};
bool libc_map_parse(const char *line, size_t len, struct libc_map *out);

/* The C-library mappings of one process, one at a time:
 *     struct libc_scan sc;
 *     if (libc_scan_open(&sc, pid, max) == 0) {
 *         while (libc_scan_next(&sc, &m)) ...
 *         libc_scan_close(&sc);
 *     }
 * The mountinfo is read only when libc_scan_remote asks for it. */
struct libc_scan {
    pid_t pid;
    struct strbuf maps, mountinfo;
    size_t at;    /* offset of the next line in maps */
    bool mi_read; /* mountinfo read (or tried) */
};
/* Reads /proc/PID/maps (at most maps_max bytes).  0, or -errno (nothing
 * to close). */
int libc_scan_open(struct libc_scan *s, pid_t pid, size_t maps_max);
/* The next mapping of a C library; false at the end. */
bool libc_scan_next(struct libc_scan *s, struct libc_map *m);
/* Whether m's file lies on a FUSE or network filesystem (its opening or
 * stat may never return): such a file is not to be opened. */
bool libc_scan_remote(struct libc_scan *s, const struct libc_map *m);
void libc_scan_close(struct libc_scan *s);

/* Opens the file pid maps as m (read-only, never blocking): a regular file
 * with m's inode, else -1 with errno set (ESTALE: another file).  The
 * caller owns and closes the fd. */
int libc_open_mapped(pid_t pid, const struct libc_map *m);
#endif
