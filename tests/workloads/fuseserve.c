/* A FUSE filesystem that serves one file and then stops answering:
 * fuseserve MOUNTPOINT FILE
 * Mounts at MOUNTPOINT (root needed; run it inside a private mount
 * namespace) a directory holding FILE's bytes as "libc.so.6", with
 * attributes and entries valid for no time, so every stat asks again.  On
 * SIGUSR1 it goes on reading requests but answers none: any stat or open
 * below MOUNTPOINT then blocks until this process exits, while a process
 * that mapped the file before keeps running.  Speaks the kernel protocol
 * (linux/fuse.h) directly.  Prints "ready" once mounted. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUFSZ (FUSE_MIN_READ_BUFFER + (128u << 10))
#define FILE_NODE 2

static volatile sig_atomic_t stalled;
static int dev_fd, file_fd;
static struct stat file_st;

static void on_usr1(int sig)
{
    (void)sig;
    stalled = 1;
}

static void reply(uint64_t unique, int error, const void *data, size_t len)
{
    static char out[BUFSZ];
    struct fuse_out_header *h = (struct fuse_out_header *)out;
    h->len = (uint32_t)(sizeof *h + len);
    h->error = error;
    h->unique = unique;
    if (len)
        memcpy(h + 1, data, len);
    (void)!write(dev_fd, out, h->len);
}

static void fill_attr(uint64_t node, struct fuse_attr *a)
{
    memset(a, 0, sizeof *a);
    a->ino = node;
    a->nlink = 1;
    a->blksize = 4096;
    if (node == FILE_NODE) {
        a->mode = S_IFREG | 0755;
        a->size = (uint64_t)file_st.st_size;
        a->blocks = (a->size + 511) / 512;
    } else {
        a->mode = S_IFDIR | 0755;
        a->nlink = 2;
    }
}

static void serve(struct fuse_in_header *in)
{
    switch (in->opcode) {
    case FUSE_INIT: {
        struct fuse_init_in *ii = (struct fuse_init_in *)(in + 1);
        struct fuse_init_out o;
        memset(&o, 0, sizeof o);
        o.major = FUSE_KERNEL_VERSION;
        o.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor : FUSE_KERNEL_MINOR_VERSION;
        o.max_readahead = ii->max_readahead;
        o.max_write = 128u << 10;
        o.max_background = 16;
        o.congestion_threshold = 12;
        o.time_gran = 1;
        reply(in->unique, 0, &o, sizeof o);
        printf("ready\n");
        fflush(stdout);
        return;
    }
    case FUSE_LOOKUP: {
        const char *name = (const char *)(in + 1);
        if (in->nodeid != FUSE_ROOT_ID || strcmp(name, "libc.so.6") != 0) {
            reply(in->unique, -ENOENT, NULL, 0);
            return;
        }
        struct fuse_entry_out e;
        memset(&e, 0, sizeof e);
        e.nodeid = FILE_NODE;
        e.generation = 1;
        fill_attr(FILE_NODE, &e.attr);
        reply(in->unique, 0, &e, sizeof e);
        return;
    }
    case FUSE_GETATTR: {
        struct fuse_attr_out a;
        memset(&a, 0, sizeof a);
        fill_attr(in->nodeid, &a.attr);
        reply(in->unique, 0, &a, sizeof a);
        return;
    }
    case FUSE_OPEN:
    case FUSE_OPENDIR: {
        struct fuse_open_out o;
        memset(&o, 0, sizeof o);
        reply(in->unique, 0, &o, sizeof o);
        return;
    }
    case FUSE_READ: {
        struct fuse_read_in *r = (struct fuse_read_in *)(in + 1);
        static char data[128u << 10];
        size_t want = r->size < sizeof data ? r->size : sizeof data;
        ssize_t got = pread(file_fd, data, want, (off_t)r->offset);
        reply(in->unique, got < 0 ? -EIO : 0, data, got < 0 ? 0 : (size_t)got);
        return;
    }
    case FUSE_FORGET:
    case FUSE_BATCH_FORGET:
    case FUSE_INTERRUPT:
        return; /* no reply */
    case FUSE_RELEASE:
    case FUSE_RELEASEDIR:
    case FUSE_FLUSH:
    case FUSE_ACCESS:
        reply(in->unique, 0, NULL, 0);
        return;
    default:
        reply(in->unique, -ENOSYS, NULL, 0);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fuseserve MOUNTPOINT FILE\n");
        return 2;
    }
    file_fd = open(argv[2], O_RDONLY | O_CLOEXEC);
    if (file_fd < 0 || fstat(file_fd, &file_st) != 0) {
        perror("fuseserve: FILE");
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    dev_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (dev_fd < 0) {
        perror("fuseserve: /dev/fuse");
        return 1;
    }
    char opts[128];
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40755,user_id=0,group_id=0,allow_other", dev_fd);
    if (mount("fuseserve", argv[1], "fuse.fuseserve", MS_NOSUID | MS_NODEV, opts) != 0) {
        perror("fuseserve: mount");
        return 1;
    }
    static char buf[BUFSZ];
    for (;;) {
        ssize_t n = read(dev_fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == ENOENT))
            continue;
        if (n < 0) {
            perror("fuseserve: read");
            return 1;
        }
        if ((size_t)n < sizeof(struct fuse_in_header))
            continue;
        struct fuse_in_header *in = (struct fuse_in_header *)buf;
        if (stalled && in->opcode != FUSE_INIT)
            continue; /* never answered from now on */
        serve(in);
    }
}
