/* A FUSE filesystem that never answers: fusestall MOUNTPOINT
 * Mounts an empty FUSE filesystem at MOUNTPOINT (root needed; run it inside
 * a private mount namespace), answers the kernel's INIT and then reads every
 * request without ever replying, so any lookup, open, stat or statfs below
 * MOUNTPOINT blocks until this process exits.  Speaks the kernel protocol
 * (linux/fuse.h) directly: no libfuse needed.  Prints "ready" once mounted. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define BUFSZ (FUSE_MIN_READ_BUFFER + (128u << 10))

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fusestall MOUNTPOINT\n");
        return 2;
    }
    int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        perror("fusestall: /dev/fuse");
        return 1;
    }
    char opts[128];
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40755,user_id=0,group_id=0,allow_other", fd);
    if (mount("fusestall", argv[1], "fuse.fusestall", MS_NOSUID | MS_NODEV, opts) != 0) {
        perror("fusestall: mount");
        return 1;
    }
    static char buf[BUFSZ];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == ENOENT))
            continue;
        if (n < 0) {
            perror("fusestall: read");
            return 1;
        }
        if ((size_t)n < sizeof(struct fuse_in_header))
            continue;
        struct fuse_in_header *in = (struct fuse_in_header *)buf;
        if (in->opcode != FUSE_INIT)
            continue; /* never answered */
        struct fuse_init_in *ii = (struct fuse_init_in *)(in + 1);
        struct {
            struct fuse_out_header h;
            struct fuse_init_out o;
        } rep;
        memset(&rep, 0, sizeof rep);
        rep.h.len = sizeof rep;
        rep.h.unique = in->unique;
        rep.o.major = FUSE_KERNEL_VERSION;
        rep.o.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor : FUSE_KERNEL_MINOR_VERSION;
        rep.o.max_readahead = ii->max_readahead;
        rep.o.max_write = 128u << 10;
        rep.o.max_background = 16;
        rep.o.congestion_threshold = 12;
        rep.o.time_gran = 1;
        if (write(fd, &rep, sizeof rep) != (ssize_t)sizeof rep) {
            perror("fusestall: init reply");
            return 1;
        }
        printf("ready\n");
        fflush(stdout);
    }
}
