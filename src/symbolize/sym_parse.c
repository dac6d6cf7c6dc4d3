#include "sym_parse.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kallsyms ---------------------------------------------------------- */

bool sym_ksym_is_text(char type)
{
    return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static int leading_underscores(const char *s)
{
    int n = 0;
    while (s[n] == '_')
        n++;
    return n;
}

/* Among aliases at one address the first after sorting is the name shown:
 * text before data, global before local, fewer leading underscores. */
static int ksym_cmp(const void *a, const void *b)
{
    const struct ksym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    int tx = sym_ksym_is_text(x->type), ty = sym_ksym_is_text(y->type);
    if (tx != ty)
        return ty - tx;
    int gx = x->type >= 'A' && x->type <= 'Z', gy = y->type >= 'A' && y->type <= 'Z';
    if (gx != gy)
        return gy - gx;
    int ux = leading_underscores(x->name), uy = leading_underscores(y->name);
    if (ux != uy)
        return ux - uy;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool parse_hex(const char **p, uint64_t *v)
{
    const char *s = *p;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    uint64_t x = 0;
    int digits = 0;
    for (;; s++, digits++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F')
            d = *s - 'A' + 10;
        else
            break;
        if (digits >= 16)
            return false;
        x = x << 4 | (uint64_t)d;
    }
    if (!digits)
        return false;
    *v = x;
    *p = s;
    return true;
}

/* Sorts v[head, n) and merges it into the ordered v[0, head). */
static void merge_tail(struct ksym *v, size_t head, size_t n)
{
    size_t nt = n - head;
    struct ksym *t = xmalloc(nt * sizeof *t);
    memcpy(t, v + head, nt * sizeof *t);
    qsort(t, nt, sizeof *t, ksym_cmp);
    size_t i = head, j = nt, k = n; /* one past the next to take, each */
    while (j > 0) {
        if (i > 0 && v[i - 1].addr > t[j - 1].addr)
            v[--k] = v[--i];
        else
            v[--k] = t[--j];
    }
    free(t);
}

size_t sym_parse_kallsyms(char *text, struct ksym **out, bool *all_zero)
{
    /* One array of the right size: growing it and sorting a copy touched
     * ~8 MB of fresh pages for a 122,000-line kallsyms, ~35 ms of page
     * faults on the test VM (2026-11-25). */
    size_t cap = 1;
    for (const char *c = text; (c = strchr(c, '\n')) != NULL; c++)
        cap++;
    struct ksym *v = xcalloc(cap, sizeof *v);
    size_t n = 0;
    bool zero = true;
    size_t sorted_to = 0; /* v[0, sorted_to) is in address order */
    char *line = text;
    uint32_t seq = 0;
    while (line && *line && n < cap) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        const char *p = line;
        uint64_t addr;
        if (parse_hex(&p, &addr) && *p == ' ' && p[1] && p[2] == ' ' && p[3] && p[3] != '\t') {
            char type = p[1];
            char *name = (char *)p + 3;
            size_t nl_len = strcspn(name, " \t");
            char *rest = name + nl_len;
            const char *module = NULL;
            if (*rest) {
                *rest++ = '\0';
                while (*rest == ' ' || *rest == '\t')
                    rest++;
                if (*rest == '[') {
                    size_t ml = strcspn(rest, " \t\r");
                    rest[ml] = '\0';
                    module = rest;
                }
            }
            if (nl_len) {
                if (sorted_to == n && (!n || v[n - 1].addr <= addr))
                    sorted_to = n + 1;
                v[n++] = (struct ksym){addr, name, module, type, seq++};
                if (addr)
                    zero = false;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    /* The kernel lists its own symbols in address order, then those of
     * modules and BPF programs (the run's own, loaded by then) in no order:
     * only that tail is sorted, then merged in from the end.  Sorting all
     * 122,000 entries took a 3.9 MB buffer, ~25 ms on the test VM
     * (2026-11-26).  Aliases of the ordered part stay in file order; the
     * lookup picks the best of them. */
    if (sorted_to < n)
        merge_tail(v, sorted_to, n);
    *out = v;
    *all_zero = zero;
    return n;
}

#define KSYM_MAX_REACH (1u << 20) /* no kernel function is this long */

long sym_kallsyms_find(const struct ksym *k, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n; /* first index with k[i].addr > addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    size_t i = lo - 1;
    for (size_t j = i; j > 0 && k[j - 1].addr == k[i].addr; j--)
        if (ksym_cmp(&k[j - 1], &k[i]) < 0)
            i = j - 1; /* the best name among aliases (ksym_cmp's order) */
    if (!sym_ksym_is_text(k[i].type) || addr - k[i].addr >= KSYM_MAX_REACH)
        return -1;
    return (long)i;
}

/* ---- /proc/PID/maps ---------------------------------------------------- */

#define DELETED_SUFFIX " (deleted)"

int sym_parse_maps_line(const char *line, size_t len, struct sym_map *out)
{
    char buf[8192];
    if (len >= sizeof buf)
        return -EINVAL;
    memcpy(buf, line, len);
    buf[len] = '\0';
    struct sym_map m;
    memset(&m, 0, sizeof m);
    int pos = -1;
    if (sscanf(buf, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 "%n", &m.start,
               &m.end, m.perms, &m.offset, &m.dev_major, &m.dev_minor, &m.inode, &pos) < 7 ||
        pos < 0 || m.start >= m.end || (buf[pos] && buf[pos] != ' ' && buf[pos] != '\t'))
        return -EINVAL;
    char *path = buf + pos;
    while (*path == ' ' || *path == '\t')
        path++;
    size_t pl = strlen(path);
    size_t sl = strlen(DELETED_SUFFIX);
    if (pl >= sl && strcmp(path + pl - sl, DELETED_SUFFIX) == 0) {
        m.deleted = true;
        path[pl - sl] = '\0';
    }
    m.path = xstrdup(path);
    *out = m;
    return 0;
}

static int map_cmp(const void *a, const void *b)
{
    const struct sym_map *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

size_t sym_parse_maps(const char *text, size_t max, struct sym_map **out, bool *truncated)
{
    size_t n = 0, cap = 0;
    struct sym_map *v = NULL;
    bool sorted = true;
    *truncated = false;
    const char *line = text;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        struct sym_map m;
        if (sym_parse_maps_line(line, len, &m) == 0) {
            if (n >= max) {
                free(m.path);
                *truncated = true;
                break;
            }
            xgrow(&v, &cap, n + 1, sizeof *v);
            if (n && v[n - 1].start > m.start)
                sorted = false;
            v[n++] = m;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!sorted)
        qsort(v, n, sizeof *v, map_cmp);
    *out = v;
    return n;
}

void sym_maps_free(struct sym_map *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(m[i].path);
    free(m);
}

bool sym_map_is_file(const struct sym_map *m)
{
    return m->inode != 0 && m->path && m->path[0] == '/';
}

bool sym_map_is_kernel_special(const struct sym_map *m)
{
    static const char *const names[] = {"[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]",
                                        "[uprobes]"};
    if (m->inode != 0 || !m->path)
        return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(m->path, names[i]) == 0)
            return true;
    return false;
}

/* ---- perf JIT maps ------------------------------------------------------ */

#define JIT_NAME_MAX 4096
#define JIT_SCAN_BACK 64 /* overlapping entries considered per lookup */

static int jit_cmp(const void *a, const void *b)
{
    const struct jit_sym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t sym_parse_perf_map(char *text, struct jit_sym **out)
{
    bool truncated;
    return sym_parse_perf_map_max(text, SIZE_MAX, out, &truncated);
}

size_t sym_parse_perf_map_max(char *text, size_t max, struct jit_sym **out, bool *truncated)
{
    *truncated = false;
    size_t n = 0, cap = 0, seq = 0;
    struct jit_sym *v = NULL;
    char *line = text;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        const char *p = line;
        uint64_t start, size;
        seq++;
        if (parse_hex(&p, &start) && *p == ' ') {
            p++;
            if (parse_hex(&p, &size) && *p == ' ') {
                char *name = (char *)p + 1;
                size_t l = strlen(name);
                while (l && name[l - 1] == '\r')
                    name[--l] = '\0';
                if (l > JIT_NAME_MAX)
                    name[JIT_NAME_MAX] = '\0';
                if (l && size) {
                    if (n >= max) {
                        *truncated = true;
                        break;
                    }
                    xgrow(&v, &cap, n + 1, sizeof *v);
                    v[n++] = (struct jit_sym){start, size, name, seq};
                }
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    if (n > 1)
        qsort(v, n, sizeof *v, jit_cmp);
    *out = v;
    return n;
}

long sym_perf_map_find(const struct jit_sym *j, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    long best = -1;
    for (size_t k = 0; k < JIT_SCAN_BACK && k < lo; k++) {
        const struct jit_sym *e = &j[lo - 1 - k];
        if (addr - e->start < e->size && (best < 0 || e->seq > j[best].seq))
            best = (long)(lo - 1 - k);
    }
    return best;
}

/* ---- /proc/PID/mountinfo ------------------------------------------------ */

bool sym_mountinfo_fstype(const char *text, unsigned major, unsigned minor, char *out, size_t n)
{
    const char *line = text;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        unsigned ma, mi;
        int pos = 0;
        /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPEROPTS" */
        if (sscanf(line, "%*u %*u %u:%u%n", &ma, &mi, &pos) == 2 && pos > 0 && ma == major &&
            mi == minor) {
            for (size_t i = (size_t)pos; i + 3 <= len; i++) {
                if (line[i] != ' ' || line[i + 1] != '-' || line[i + 2] != ' ')
                    continue;
                const char *t = line + i + 3;
                size_t tl = 0;
                while (t + tl < line + len && t[tl] != ' ')
                    tl++;
                if (!tl || tl >= n)
                    return false;
                memcpy(out, t, tl);
                out[tl] = '\0';
                return true;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return false;
}
