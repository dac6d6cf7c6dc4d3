#include "readfile.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int read_small_file(const char *path, size_t max, struct strbuf *out)
{
    sb_reset(out);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0)
        rc = -errno;
    else if (!S_ISREG(st.st_mode))
        rc = -EINVAL;
    char buf[65536];
    while (rc == 0) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = -errno;
        else if (n == 0)
            break;
        else if (out->len + (size_t)n > max)
            rc = -EFBIG; /* also when the file grew after fstat */
        else
            sb_addn(out, buf, (size_t)n);
    }
    close(fd);
    if (rc)
        sb_reset(out);
    return rc;
}

int next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
    if (*pos >= len)
        return 0;
    const char *s = text + *pos;
    const char *nl = memchr(s, '\n', len - *pos);
    size_t l = nl ? (size_t)(nl - s) : len - *pos;
    *pos += l + (nl ? 1 : 0);
    if (l && s[l - 1] == '\r')
        l--;
    *line = s;
    *n = l;
    return 1;
}
