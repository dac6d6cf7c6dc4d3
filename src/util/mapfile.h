/* Opening the file another process has mapped, without trusting its paths:
 * used by the symbolizer and by collectors that read a mapped library
 * (dns: libc's resolver symbols). */
#ifndef PERFREPORT_MAPFILE_H
#define PERFREPORT_MAPFILE_H
#include <stdint.h>

/* Opens (read-only, O_CLOEXEC, never blocking) the file process `pid` maps
 * at [start, end): /proc/PID/map_files first (works for deleted or replaced
 * files and other mount namespaces), else `path` (as /proc/PID/maps names
 * it; NULL to skip this route, e.g. for a deleted file) resolved inside
 * /proc/PID/root, never outside it and through no symlink.  Both under the
 * hostfs root.  Either way the file is looked up with O_PATH and opened for
 * reading only when it is a regular file (a device's open acts at once).
 * Returns an fd the caller owns and closes, or -1.  The caller checks that
 * it is the mapped file (fstat: the inode maps names). */
int mapfile_open(int pid, uint64_t start, uint64_t end, const char *path);
/* The same for an absolute path in our own mount namespace: no symlink
 * followed, a regular file only. */
int mapfile_open_path(const char *path);
#endif
