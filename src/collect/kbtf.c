/* The kernel's BTF, read once per run: see kbtf.h. */
#include "kbtf.h"
#include <bpf/btf.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KBTF_PATH "/sys/kernel/btf/vmlinux"

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *g_raw; /* owned: the file's bytes, freed when released and unused */
static size_t g_len;
static unsigned g_users;  /* kbtf_raw_get calls not yet put */
static bool g_tried;      /* read (or failed) once: a failure is not retried */
static bool g_released;   /* kbtf_release ran: no new users */
static struct kbtf_stats g_st;

/* The raw BTF header (include/uapi/linux/btf.h), native endian. */
struct btf_raw_header {
    uint16_t magic;
    uint8_t version, flags;
    uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

/* Reads the whole file; the raw header must describe sections inside it. */
static uint8_t *read_raw(size_t *len)
{
    int fd = open(KBTF_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size < (off_t)sizeof(struct btf_raw_header) ||
        (uint64_t)st.st_size > KBTF_MAX_BYTES) {
        int e = errno ? errno : EFBIG;
        close(fd);
        errno = e;
        return NULL;
    }
    size_t want = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(want);
    if (!buf) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    while (got < want) {
        ssize_t r = read(fd, buf + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    struct btf_raw_header h;
    if (got == want)
        memcpy(&h, buf, sizeof h);
    if (got != want || h.magic != 0xEB9F || h.hdr_len < sizeof h || h.hdr_len > want ||
        (uint64_t)h.type_off + h.type_len > want - h.hdr_len ||
        (uint64_t)h.str_off + h.str_len > want - h.hdr_len) {
        free(buf);
        errno = EPROTO; /* not raw native-endian BTF: libbpf knows the others */
        return NULL;
    }
    *len = want;
    return buf;
}

const uint8_t *kbtf_raw_get(size_t *len)
{
    pthread_mutex_lock(&g_mu);
    if (!g_raw && !g_tried && !g_released) {
        g_tried = true;
        g_raw = read_raw(&g_len);
        if (g_raw) {
            g_st.reads++;
            g_st.bytes = g_len;
        }
    }
    const uint8_t *raw = g_released ? NULL : g_raw;
    if (raw) {
        g_users++;
        *len = g_len;
    }
    pthread_mutex_unlock(&g_mu);
    if (!raw)
        errno = ENOENT;
    return raw;
}

const char *kbtf_str_section(const uint8_t *raw, size_t *len)
{
    struct btf_raw_header h;
    memcpy(&h, raw, sizeof h); /* read_raw checked it against the file's size */
    *len = h.str_len;
    return (const char *)raw + h.hdr_len + h.str_off;
}

void kbtf_raw_put(void)
{
    pthread_mutex_lock(&g_mu);
    if (g_users && --g_users == 0 && g_released) {
        free(g_raw);
        g_raw = NULL;
    }
    pthread_mutex_unlock(&g_mu);
}

void kbtf_release(void)
{
    pthread_mutex_lock(&g_mu);
    g_released = true;
    if (!g_users) {
        free(g_raw);
        g_raw = NULL;
    }
    pthread_mutex_unlock(&g_mu);
}

void kbtf_get_stats(struct kbtf_stats *out)
{
    pthread_mutex_lock(&g_mu);
    *out = g_st;
    pthread_mutex_unlock(&g_mu);
}

/* libbpf's own btf__load_vmlinux_btf, for what the raw file cannot answer. */
static struct btf *(*g_next)(void);
static void find_next(void)
{
    void *f = dlsym(RTLD_NEXT, "btf__load_vmlinux_btf");
    memcpy(&g_next, &f, sizeof f); /* POSIX: a data pointer to a function */
}

/* Takes libbpf's calls (see kbtf.h); the result is the caller's to
 * btf__free, as libbpf's own: NULL with errno set on failure. */
struct btf *btf__load_vmlinux_btf(void)
{
    size_t len;
    const uint8_t *raw = kbtf_raw_get(&len);
    if (raw) {
        struct btf *b = btf__new(raw, (uint32_t)len); /* copies the bytes */
        kbtf_raw_put();
        if (b) {
            pthread_mutex_lock(&g_mu);
            g_st.served++;
            pthread_mutex_unlock(&g_mu);
            return b;
        }
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_next);
    if (!g_next || g_next == btf__load_vmlinux_btf) {
        errno = ENOENT;
        return NULL;
    }
    pthread_mutex_lock(&g_mu);
    g_st.passed++;
    pthread_mutex_unlock(&g_mu);
    return g_next();
}
