/* See procs_parse.h. */
#include "procs_parse.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unsigned decimal at *p (leading blanks skipped), bounded by end. */
static bool next_u64(const char **p, const char *end, uint64_t *v)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || *s < '0' || *s > '9')
        return false;
    uint64_t x = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
        s++;
    }
    *p = s;
    *v = x;
    return true;
}

static bool next_i64(const char **p, const char *end, int64_t *v)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    bool neg = s < end && *s == '-';
    if (neg)
        s++;
    uint64_t u;
    if (!next_u64(&s, end, &u) || u > (uint64_t)INT64_MAX)
        return false;
    *p = s;
    *v = neg ? -(int64_t)u : (int64_t)u;
    return true;
}

/* Skips one blank-separated token. */
static bool skip_token(const char **p, const char *end)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (s >= end || *s == '\n')
        return false;
    while (s < end && *s != ' ' && *s != '\n')
        s++;
    *p = s;
    return true;
}

int proc_parse_stat(const char *text, size_t len, struct pid_stat *out)
{
    memset(out, 0, sizeof *out);
    out->rss_pages = -1;
    const char *end = text + len;
    /* comm may contain anything, including "(" ")" and newlines: it spans
     * from the first '(' to the LAST ')', and nothing after it can hold ')'. */
    const char *open = memchr(text, '(', len);
    const char *close = memrchr(text, ')', len);
    if (!open || !close || close < open)
        return -EINVAL;
    const char *p = text;
    int64_t pid;
    if (!next_i64(&p, open, &pid) || pid <= 0 || pid > INT_MAX)
        return -EINVAL;
    out->pid = (int)pid;
    size_t cl = (size_t)(close - open - 1);
    if (cl > PROC_COMM_MAX)
        cl = PROC_COMM_MAX;
    memcpy(out->comm, open + 1, cl);
    out->comm[cl] = '\0';

    p = close + 1;
    while (p < end && *p == ' ')
        p++;
    if (p >= end || !isalpha((unsigned char)*p))
        return -EINVAL;
    out->state = *p++;
    /* Fields 4..24 (1-based as in proc(5)); stop once rss is read. */
    for (int field = 4; field <= 24; field++) {
        int64_t i = 0;
        bool ok;
        switch (field) {
        case 4:
            ok = next_i64(&p, end, &i);
            out->ppid = (int)i;
            break;
        case 9:
            ok = next_u64(&p, end, &out->flags);
            break;
        case 14:
            ok = next_u64(&p, end, &out->utime);
            break;
        case 15:
            ok = next_u64(&p, end, &out->stime);
            break;
        case 20:
            ok = next_i64(&p, end, &i);
            out->num_threads = (long)i;
            break;
        case 22:
            ok = next_u64(&p, end, &out->starttime);
            break;
        case 24:
            /* Optional: statm is preferred, so a short line still parses. */
            if (next_i64(&p, end, &i))
                out->rss_pages = i;
            return 0;
        default:
            ok = skip_token(&p, end);
        }
        if (!ok)
            return field > 22 ? 0 : -EINVAL;
    }
    return 0;
}

int proc_parse_statm(const char *text, size_t len, uint64_t *resident_pages,
                     uint64_t *shared_pages)
{
    const char *p = text, *end = text + len;
    uint64_t size, shared;
    if (!next_u64(&p, end, &size) || !next_u64(&p, end, resident_pages))
        return -EINVAL;
    if (shared_pages)
        *shared_pages = next_u64(&p, end, &shared) ? shared : UINT64_MAX;
    return 0;
}

/* Start of the line in [text, end) that begins with `key`, or NULL. */
static const char *find_line(const char *text, const char *end, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = text; l < end;) {
        if ((size_t)(end - l) >= kl && memcmp(l, key, kl) == 0)
            return l;
        const char *nl = memchr(l, '\n', (size_t)(end - l));
        if (!nl)
            break;
        l = nl + 1;
    }
    return NULL;
}

int proc_parse_limits_nofile(const char *text, size_t len, uint64_t *soft)
{
    const char *end = text + len;
    const char *l = find_line(text, end, "Max open files");
    if (!l)
        return -ENOENT;
    const char *p = l + strlen("Max open files");
    while (p < end && *p == ' ')
        p++;
    if ((size_t)(end - p) >= 9 && memcmp(p, "unlimited", 9) == 0) {
        *soft = UINT64_MAX;
        return 0;
    }
    if (!next_u64(&p, end, soft))
        return -ENOENT;
    return 0;
}

void proc_format_cmdline(const char *text, size_t len, const char *comm, char *out)
{
    while (len > 0 && text[len - 1] == '\0')
        len--;
    if (len == 0) {
        /* Kernel threads and zombies have no argv; ps shows them as [comm]. */
        snprintf(out, PROC_CMDLINE_BYTES + 1, "[%s]", comm);
        return;
    }
    size_t o = 0, chars = 0, char_start = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        bool cont = (c & 0xC0) == 0x80;
        if (!cont) {
            if (++chars > PROC_CMDLINE_KEEP)
                break;
            char_start = o;
        }
        if (o >= PROC_CMDLINE_BYTES) {
            /* Never leave half a multibyte character at the end. */
            if (cont)
                o = char_start;
            break;
        }
        out[o++] = c == '\0' ? ' ' : (char)c;
    }
    out[o] = '\0';
}

int proc_parse_file_nr(const char *text, size_t len, uint64_t *used, uint64_t *max)
{
    const char *p = text, *end = text + len;
    uint64_t alloc, unused;
    if (!next_u64(&p, end, &alloc) || !next_u64(&p, end, &unused) || !next_u64(&p, end, max))
        return -EINVAL;
    *used = alloc >= unused ? alloc - unused : 0;
    return 0;
}

int proc_parse_kib_field(const char *text, size_t len, const char *key, uint64_t *kib)
{
    const char *end = text + len;
    const char *l = find_line(text, end, key);
    if (!l)
        return -ENOENT;
    const char *p = l + strlen(key);
    uint64_t v;
    if (!next_u64(&p, end, &v))
        return -ENOENT;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p < 2 || memcmp(p, "kB", 2) != 0)
        return -ENOENT;
    *kib = v;
    return 0;
}
