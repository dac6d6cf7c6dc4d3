#include "xalloc.h"
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void oom(void)
{
    fputs("perfreport: out of memory\n", stderr);
    exit(3);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

void xgrow(void *arrp, size_t *cap, size_t need, size_t size)
{
    void **arr = arrp;
    if (need <= *cap)
        return;
    size_t nc = *cap ? *cap : 8;
    while (nc < need)
        nc *= 2;
    *arr = xrealloc(*arr, nc * size);
    memset((char *)*arr + *cap * size, 0, (nc - *cap) * size);
    *cap = nc;
}

static size_t whole_pages(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX - pg)
        oom();
    return (n + pg - 1) / pg * pg;
}

void *xbig_realloc(void *p, size_t old_size, size_t new_size)
{
    size_t n = whole_pages(new_size);
    void *q;
    if (!p) {
        q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        size_t old = whole_pages(old_size);
        if (old == n)
            return p;
        q = mremap(p, old, n, MREMAP_MAYMOVE);
    }
    if (q == MAP_FAILED)
        oom();
    /* only a hint: it fails harmlessly where THP is off or unsupported */
    (void)madvise(q, n, MADV_HUGEPAGE);
    return q;
}

void xbig_free(void *p, size_t size)
{
    if (p)
        munmap(p, whole_pages(size));
}

char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        oom();
    return d;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = strndup(s, n);
    if (!d)
        oom();
    return d;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        oom();
    return s;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}
