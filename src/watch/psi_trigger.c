#include "psi_trigger.h"
#include "../collect/psi.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int psi_trigger_open(const struct watch_cond *c, char *err, size_t n)
{
    char path[64], trig[64];
    snprintf(path, sizeof path, "/proc/pressure/%s", watch_psi_res_name(c->psi_res));
    watch_psi_trigger_text(c, trig, sizeof trig);
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        int e = errno;
        snprintf(err, n, "%s: cannot open %s for its PSI trigger: %s%s", c->text, path,
                 strerror(e), e == ENOENT ? " (a kernel without PSI, or psi=0)" : "");
        return -e;
    }
    /* The kernel reads the line up to its terminating NUL, which must be
     * written with it (without it the last digit is cut off). */
    size_t len = strlen(trig) + 1;
    ssize_t w = write(fd, trig, len);
    if (w != (ssize_t)len) {
        int e = w < 0 ? errno : EIO;
        /* The kernel takes a trigger from a process without
         * CAP_SYS_RESOURCE (a container's root, often; this host's too)
         * only with a window of whole 2 s. */
        long ms = lround(c->for_s * 1000);
        snprintf(err, n, "%s: the kernel refused the PSI trigger '%s' in %s: %s%s", c->text, trig,
                 path, strerror(e),
                 e == EINVAL && ms % 2000 ? " (without CAP_SYS_RESOURCE its window must be "
                                            "2, 4, 6, 8 or 10 s)" : "");
        close(fd);
        return -e;
    }
    return fd;
}

double psi_trigger_avg10(const struct watch_cond *c)
{
    struct strbuf sb = STRBUF_INIT;
    struct psi_file f;
    double v = NAN;
    if (hostfs_readf(&sb, 4096, "/proc/pressure/%s", watch_psi_res_name(c->psi_res)) == 0 &&
        parse_psi(sb_str(&sb), &f) == 0) {
        const struct psi_line *l = c->psi_full ? &f.full : &f.some;
        if (l->have)
            v = l->avg10;
    }
    sb_free(&sb);
    return v;
}
