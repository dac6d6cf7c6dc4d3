/* See proc_parse.h. */
#include "proc_parse.h"
#include "hostfs.h"
#include "strbuf.h"
#include "xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int profile_parse_cpu_list(const char *text, bool *on, size_t n)
{
    int count = 0;
    const char *s = text;
    while (*s && *s != '\n') {
        if (!isdigit((unsigned char)*s))
            return -1;
        char *end;
        unsigned long a = strtoul(s, &end, 10), b = a;
        s = end;
        if (*s == '-') {
            if (!isdigit((unsigned char)s[1]))
                return -1;
            b = strtoul(s + 1, &end, 10);
            s = end;
        }
        if (b < a)
            return -1;
        for (unsigned long i = a; i <= b && i < n; i++)
            if (!on[i]) {
                on[i] = true;
                count++;
            }
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return -1;
    }
    return count;
}

int parse_loadavg(const char *text, struct loadavg *out)
{
    struct loadavg l;
    int consumed = 0;
    if (sscanf(text, "%lf %lf %lf %ld/%ld%n", &l.load1, &l.load5, &l.load15, &l.running,
               &l.threads, &consumed) != 5 || consumed == 0)
        return -EINVAL;
    if (!isfinite(l.load1) || !isfinite(l.load5) || !isfinite(l.load15) || l.load1 < 0 ||
        l.load5 < 0 || l.load15 < 0 || l.running < 0 || l.threads < 0)
        return -EINVAL;
    *out = l;
    return 0;
}

bool proc_list_has(const char *f, size_t fl, const char *word)
{
    size_t wl = strlen(word), i = 0;
    while (i < fl) {
        size_t b = i;
        while (i < fl && f[i] != ',')
            i++;
        if (i - b == wl && memcmp(f + b, word, wl) == 0)
            return true;
        i++;
    }
    return false;
}

static void set_path(char **dst, const char *s, size_t n)
{
    if (!*dst)
        *dst = xstrndup(s, n);
}

int cg_parse_proc_cgroup(const char *text, struct cg_proc_paths *out)
{
    memset(out, 0, sizeof *out);
    int found = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *c1 = memchr(p, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - p)) : NULL;
        if (c2) {
            const char *ctl = c1 + 1;
            size_t cl = (size_t)(c2 - ctl);
            const char *path = c2 + 1;
            size_t pl = len - (size_t)(path - p);
            if (pl > 0 && path[0] == '/') {
                if (cl == 0 && c1 - p == 1 && p[0] == '0') {
                    set_path(&out->v2, path, pl);
                    found++;
                } else {
                    if (proc_list_has(ctl, cl, "cpu")) {
                        set_path(&out->cpu, path, pl);
                        found++;
                    }
                    if (proc_list_has(ctl, cl, "cpuacct")) {
                        set_path(&out->cpuacct, path, pl);
                        found++;
                    }
                    if (proc_list_has(ctl, cl, "memory")) {
                        set_path(&out->memory, path, pl);
                        found++;
                    }
                    if (proc_list_has(ctl, cl, "freezer")) {
                        set_path(&out->freezer, path, pl);
                        found++;
                    }
                }
            }
        }
        p = nl ? nl + 1 : NULL;
    }
    return found ? 0 : -ENOENT;
}

void cg_proc_paths_free(struct cg_proc_paths *p)
{
    free(p->v2);
    free(p->cpu);
    free(p->cpuacct);
    free(p->memory);
    free(p->freezer);
    memset(p, 0, sizeof *p);
}

int proc_read_cgroup(int pid, struct cg_proc_paths *out)
{
    memset(out, 0, sizeof *out);
    struct strbuf sb = STRBUF_INIT;
    int rc = pid > 0 ? hostfs_readf(&sb, PROC_CGROUP_MAX, "/proc/%d/cgroup", pid)
                     : hostfs_read("/proc/self/cgroup", &sb, PROC_CGROUP_MAX);
    if (rc == 0)
        rc = cg_parse_proc_cgroup(sb_str(&sb), out);
    sb_free(&sb);
    if (rc != 0)
        cg_proc_paths_free(out);
    return rc;
}

/* Copies one space-delimited field, undoing mountinfo's \ooo escapes. */
static const char *take_field(const char *p, const char *eol, char *out, size_t n)
{
    size_t o = 0;
    while (p < eol && *p == ' ')
        p++;
    while (p < eol && *p != ' ') {
        char c = *p++;
        if (c == '\\' && eol - p >= 3 && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' &&
            p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
            c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
            p += 3;
        }
        if (o + 1 < n)
            out[o++] = c;
    }
    if (n)
        out[o] = '\0';
    return p;
}

bool mountinfo_next(const char **cursor, struct mountinfo_entry *e)
{
    const char *p = *cursor;
    while (p && *p) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        const char *next = *eol ? eol + 1 : eol;
        /* id parent maj:min root mountpoint options [optional...] - fstype source superopts */
        char skip[256];
        const char *q = p;
        q = take_field(q, eol, skip, sizeof skip); /* id */
        q = take_field(q, eol, skip, sizeof skip); /* parent */
        q = take_field(q, eol, e->devno, sizeof e->devno);
        q = take_field(q, eol, e->root, sizeof e->root);
        const char *mp = q;
        while (mp < eol && *mp == ' ')
            mp++;
        q = take_field(q, eol, e->mountpoint, sizeof e->mountpoint);
        /* escapes shrink a field, so only a full buffer can have been cut */
        e->mountpoint_cut = strlen(e->mountpoint) == sizeof e->mountpoint - 1 &&
                            (size_t)(q - mp) > sizeof e->mountpoint - 1;
        q = take_field(q, eol, skip, sizeof skip); /* options */
        bool sep = false;
        while (q < eol) {
            q = take_field(q, eol, skip, sizeof skip);
            if (strcmp(skip, "-") == 0) {
                sep = true;
                break;
            }
        }
        if (sep && e->mountpoint[0] == '/') {
            q = take_field(q, eol, e->fstype, sizeof e->fstype);
            q = take_field(q, eol, e->source, sizeof e->source);
            take_field(q, eol, e->superopts, sizeof e->superopts);
            if (e->fstype[0]) {
                *cursor = next;
                return true;
            }
        }
        p = next;
    }
    *cursor = p;
    return false;
}
