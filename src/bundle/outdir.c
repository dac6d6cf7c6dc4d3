/* Output directories of diff and history (see outdir.h). */
#include "outdir.h"
#include "../util/fdio.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outdir_make(const char *explicit_dir, const char *base, const char *suffix,
                struct bundle_target *t, char *made, size_t mn, char *err, size_t n)
{
    /* BASE without trailing slashes, so NEW/ gives NEW.diff */
    size_t blen = strlen(base);
    while (blen > 1 && base[blen - 1] == '/')
        blen--;
    int bl = blen > INT_MAX ? INT_MAX : (int)blen;
    for (int k = 0; k <= OUTDIR_MAX_SUFFIX; k++) {
        int len;
        if (explicit_dir)
            len = snprintf(made, mn, "%s", explicit_dir);
        else if (k == 0)
            len = snprintf(made, mn, "%.*s%s", bl, base, suffix);
        else
            len = snprintf(made, mn, "%.*s%s.%d", bl, base, suffix, k);
        if (len < 0 || (size_t)len >= mn) {
            snprintf(err, n, "%s: name too long", explicit_dir ? explicit_dir : base);
            return -1;
        }
        int rc = bundle_target_open(t, made, err, n);
        if (rc == -EEXIST && !explicit_dir)
            continue;
        if (rc == -EEXIST) /* as the commands have always said it */
            snprintf(err, n, "%s: %s", made, strerror(EEXIST));
        if (rc != 0)
            return -1;
        if (mkdirat(t->parent_fd, t->name, 0700) != 0) {
            snprintf(err, n, "%s: %s", made, strerror(errno));
            bundle_target_close(t);
            if (errno == EEXIST && !explicit_dir)
                continue;
            return -1;
        }
        int fd = openat(t->parent_fd, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            snprintf(err, n, "%s: %s", made, strerror(errno));
            (void)unlinkat(t->parent_fd, t->name, AT_REMOVEDIR);
            bundle_target_close(t);
        }
        return fd;
    }
    snprintf(err, n, "%.*s%s ... %s.%d: all taken (use -o DIR)", bl, base, suffix, suffix,
             OUTDIR_MAX_SUFFIX);
    return -1;
}

int outdir_write(int dfd, const char *name, const char *data, size_t len, char *err, size_t n)
{
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", name, strerror(errno));
        return -1;
    }
    int rc = fd_write_all(fd, data, len);
    if (rc != 0) {
        snprintf(err, n, "%s: %s", name, strerror(-rc));
        close(fd);
        return -1;
    }
    if (close(fd) != 0) {
        snprintf(err, n, "%s: %s", name, strerror(errno));
        return -1;
    }
    return 0;
}

void outdir_remove(int dfd, struct bundle_target *t, const char *const *names, size_t k)
{
    for (size_t i = 0; i < k; i++)
        (void)unlinkat(dfd, names[i], 0);
    close(dfd);
    (void)unlinkat(t->parent_fd, t->name, AT_REMOVEDIR);
}
