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
 * /proc/PID/root and never outside it.  Both under the hostfs root.
 * Returns an fd the caller owns and closes, or -1.  The caller checks that
 * it is the mapped file (fstat: regular, the inode maps names). */
int mapfile_open(int pid, uint64_t start, uint64_t end, const char *path);
#endif
