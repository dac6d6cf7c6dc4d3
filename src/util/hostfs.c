#include "hostfs.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_root[PATH_MAX];

void hostfs_set_root(const char *root)
{
    if (!root || !*root || strcmp(root, "/") == 0) {
        g_root[0] = '\0';
        return;
    }
    snprintf(g_root, sizeof g_root, "%s", root);
    size_t l = strlen(g_root);
    while (l > 1 && g_root[l - 1] == '/')
        g_root[--l] = '\0';
}

const char *hostfs_root(void) { return g_root; }
bool hostfs_is_real(void) { return g_root[0] == '\0'; }

int hostfs_path(char *out, size_t n, const char *path)
{
    int w = snprintf(out, n, "%s%s", g_root, path);
    if (w < 0 || (size_t)w >= n)
        return -ENAMETOOLONG;
    return 0;
}

int hostfs_read(const char *path, struct strbuf *out, size_t max)
{
    char p[PATH_MAX];
    int rc = hostfs_path(p, sizeof p, path);
    sb_reset(out);
    if (rc)
        return rc;
    if (!max)
        max = HOSTFS_MAX_FILE;
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    char buf[8192];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (r == 0)
            break;
        size_t take = (size_t)r;
        if (out->len + take > max)
            take = max - out->len;
        sb_addn(out, buf, take);
        if (out->len >= max)
            break;
    }
    close(fd);
    if (!out->buf)
        sb_addn(out, "", 0);
    return rc;
}

int hostfs_readf(struct strbuf *out, size_t max, const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= sizeof path) {
        sb_reset(out);
        return -ENAMETOOLONG;
    }
    return hostfs_read(path, out, max);
}

int hostfs_read_line(const char *path, char *out, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = hostfs_read(path, &sb, 65536);
    if (rc == 0) {
        const char *s = sb_str(&sb);
        while (*s == ' ' || *s == '\t')
            s++;
        size_t l = strcspn(s, "\n");
        while (l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
            l--;
        if (l >= n)
            l = n - 1;
        memcpy(out, s, l);
        out[l] = '\0';
    } else if (n) {
        out[0] = '\0';
    }
    sb_free(&sb);
    return rc;
}

int hostfs_read_u64(const char *path, uint64_t *v)
{
    char line[64];
    int rc = hostfs_read_line(path, line, sizeof line);
    if (rc)
        return rc;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(line, &end, 10);
    if (errno || end == line || line[0] == '-')
        return -EINVAL;
    *v = x;
    return 0;
}

int hostfs_read_i64(const char *path, int64_t *v)
{
    char line[64];
    int rc = hostfs_read_line(path, line, sizeof line);
    if (rc)
        return rc;
    char *end;
    errno = 0;
    long long x = strtoll(line, &end, 10);
    if (errno || end == line)
        return -EINVAL;
    *v = x;
    return 0;
}

bool hostfs_pid_runs_other_program(int pid)
{
    /* readlink, not stat: the link's text comes from procfs, a stat would
     * ask the program's filesystem, which may be a FUSE mount that never
     * answers */
    char exe[64], p[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
    snprintf(exe, sizeof exe, "/proc/%d/exe", pid);
    if (hostfs_path(p, sizeof p, exe) != 0)
        return false;
    ssize_t na = readlink(p, a, sizeof a - 1), nb = readlink("/proc/self/exe", b, sizeof b - 1);
    if (na <= 0 || nb <= 0)
        return false;
    return na != nb || memcmp(a, b, (size_t)na) != 0;
}

bool hostfs_exists(const char *path)
{
    char p[PATH_MAX];
    struct stat st;
    return hostfs_path(p, sizeof p, path) == 0 && stat(p, &st) == 0;
}

bool hostfs_is_dir(const char *path)
{
    char p[PATH_MAX];
    struct stat st;
    return hostfs_path(p, sizeof p, path) == 0 && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

DIR *hostfs_opendir(const char *path)
{
    char p[PATH_MAX];
    if (hostfs_path(p, sizeof p, path))
        return NULL;
    return opendir(p);
}

int hostfs_readlink(const char *path, char *out, size_t n)
{
    char p[PATH_MAX];
    int rc = hostfs_path(p, sizeof p, path);
    if (rc)
        return rc;
    ssize_t l = readlink(p, out, n - 1);
    if (l < 0)
        return -errno;
    out[l] = '\0';
    return (int)l;
}
