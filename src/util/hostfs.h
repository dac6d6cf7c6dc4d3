/* Every /proc and /sys access goes through here so that tests can point the
 * whole tool at a captured fixture tree: the root prefix is set once at
 * start-up (--root DIR or PERFREPORT_ROOT) and prepended to every path.
 * Reads refuse anything but regular files and directories, so a hostile or
 * odd tree can never make us block on a FIFO or device node. */
#ifndef PERFREPORT_HOSTFS_H
#define PERFREPORT_HOSTFS_H
#include "strbuf.h"
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define HOSTFS_MAX_FILE (4u << 20) /* default cap on one file read */

void hostfs_set_root(const char *root); /* NULL or "" or "/" = the real host */
const char *hostfs_root(void);          /* "" for the real host */
bool hostfs_is_real(void);

/* Writes root+path into out; returns -ENAMETOOLONG if it does not fit. */
int hostfs_path(char *out, size_t n, const char *path);

/* Reads a whole file (at most max bytes; 0 = HOSTFS_MAX_FILE) into out,
 * replacing its contents.  Returns 0 or -errno. */
int hostfs_read(const char *path, struct strbuf *out, size_t max);
int hostfs_readf(struct strbuf *out, size_t max, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* First line without the newline, trimmed. */
int hostfs_read_line(const char *path, char *out, size_t n);
int hostfs_read_u64(const char *path, uint64_t *v);
int hostfs_read_i64(const char *path, int64_t *v);
bool hostfs_exists(const char *path);
/* Whether process pid runs another program than this one (by the path
 * /proc/PID/exe names): a command started by perfreport has exec'd.  False
 * when pid is gone or unreadable, or runs perfreport's own binary. */
bool hostfs_pid_runs_other_program(int pid);
bool hostfs_is_dir(const char *path);
DIR *hostfs_opendir(const char *path);
/* readlink into out (NUL-terminated); returns length or -errno. */
int hostfs_readlink(const char *path, char *out, size_t n);
#endif
