/* The rules below are those of stackcollapse-perf.pl (FlameGraph), worked
 * out from its regular expressions so that every line is classified and cut
 * where Perl's backtracking cuts it.  Perl's \s is [ \t\n\v\f\r], \d [0-9]
 * and \w [A-Za-z0-9_] here: the script reads bytes, not characters.
 *
 * --inline: the Perl script asks addr2line for the inline chain of every
 * user-space address.  This does not: it keeps what perf printed (frames
 * from `perf script --inline`, "a->b" chains), so --inline collapses as the
 * default does. */
#include "perf_collapse.h"
#include "../render/escape.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

struct bad_msg {
    size_t file, lineno; /* file: index into files, NO_FILE before any */
    const char *why;     /* static */
};

struct other_event {
    char *name;
    size_t count;
};

struct perf_collapse {
    struct collapse_opts o;
    char *event;             /* the kept event; NULL until known */
    bool event_defaulted;    /* taken from the first header, not named */
    struct stack_counts *counts;

    /* Perl's $pname, $m_period and @stack.  @stack survives a header (it
     * is emptied only by the blank line that counts it), and a header of a
     * filtered event leaves all three as they were. */
    bool have_pname;
    struct strbuf pname;
    struct strbuf period;    /* digits */
    struct strbuf fr;        /* frame names, back to back */
    size_t *fo;              /* fo[i]: start of frame i in fr */
    size_t nfr, cap_fo;
    size_t *gs;              /* first frame of each frame line's group */
    size_t ngrp, cap_gs;
    bool drop;               /* the open sample lost a line: not counted */
    bool skip_rest;          /* --skip-after matched: the callers are left out */
    size_t header_line, header_file;

    struct strbuf key, tmp;  /* scratch */

    char **files;
    size_t nfiles, cap_files, lineno;
    perf_collapse_where_fn where;
    void *where_ctx;

    struct perf_collapse_stats st;
    struct bad_msg msg[PERF_COLLAPSE_MAX_MSGS];
    size_t nmsg;
    char first_bad[PERF_COLLAPSE_EXAMPLE + 1]; /* the first bad line's text, cut */
    struct other_event other[PERF_COLLAPSE_MAX_EVENTS];
    size_t nother, other_rest;
    bool open_at_end;
};

#define NO_FILE ((size_t)-1)

void perf_collapse_set_where(struct perf_collapse *pc, perf_collapse_where_fn fn, void *ctx)
{
    pc->where = fn;
    pc->where_ctx = ctx;
}

/* "FILE:LINE" into sb */
static const char *place(const struct perf_collapse *pc, size_t file, size_t lineno,
                         struct strbuf *sb)
{
    sb_reset(sb);
    if (pc->where)
        pc->where(pc->where_ctx, lineno, sb);
    else
        sb_addf(sb, "%s:%zu", file == NO_FILE ? "<input>" : pc->files[file], lineno);
    return sb_str(sb);
}

static bool p_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
static bool p_digit(char c) { return c >= '0' && c <= '9'; }
static bool p_word(char c)
{
    return p_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool lower_hex(char c) { return p_digit(c) || (c >= 'a' && c <= 'f'); }
static bool any_hex(char c) { return lower_hex(c) || (c >= 'A' && c <= 'F'); }

struct perf_collapse *perf_collapse_new(const struct collapse_opts *o)
{
    struct perf_collapse *pc = xcalloc(1, sizeof *pc);
    pc->o = *o;
    pc->o.event_filter = NULL;
    if (o->event_filter && *o->event_filter)
        pc->event = xstrdup(o->event_filter);
    pc->counts = stack_counts_new();
    return pc;
}

void perf_collapse_free(struct perf_collapse *pc)
{
    if (!pc)
        return;
    free(pc->event);
    stack_counts_free(pc->counts);
    sb_free(&pc->pname);
    sb_free(&pc->period);
    sb_free(&pc->fr);
    sb_free(&pc->key);
    sb_free(&pc->tmp);
    free(pc->fo);
    free(pc->gs);
    for (size_t i = 0; i < pc->nfiles; i++)
        free(pc->files[i]);
    free(pc->files);
    for (size_t i = 0; i < pc->nother; i++)
        free(pc->other[i].name);
    free(pc);
}

void perf_collapse_begin_file(struct perf_collapse *pc, const char *file)
{
    xgrow(&pc->files, &pc->cap_files, pc->nfiles + 1, sizeof *pc->files);
    pc->files[pc->nfiles++] = xstrdup(file);
    pc->lineno = 0;
}

static void bad(struct perf_collapse *pc, const char *why, const char *l, size_t len)
{
    if (pc->st.bad++ == 0) {
        size_t n = len < PERF_COLLAPSE_EXAMPLE ? len : PERF_COLLAPSE_EXAMPLE;
        memcpy(pc->first_bad, l, n);
        pc->first_bad[n] = '\0';
    }
    if (pc->nmsg < PERF_COLLAPSE_MAX_MSGS)
        pc->msg[pc->nmsg++] = (struct bad_msg){pc->nfiles ? pc->nfiles - 1 : NO_FILE, pc->lineno,
                                                why};
}

static void clear_stack(struct perf_collapse *pc)
{
    sb_reset(&pc->fr);
    pc->nfr = pc->ngrp = 0;
    pc->drop = false;
    pc->skip_rest = false;
}

/* ---- the sample header: comm, blanks, pid, optionally "/" and tid, a blank ---- */

struct header {
    size_t comm_len;
    const char *pid, *tid; /* tid NULL when absent */
    size_t pid_len, tid_len;
};

/* The lazy comm ends at the first e >= 2 where "\s+\d+(/+\d*)?\s" follows.
 * Every e inside one run of blanks sees the same rest, so each run is
 * looked at once, from its first position that may end the comm. */
static bool match_header(const char *l, size_t len, struct header *h)
{
    if (len < 2 || p_space(l[0]))
        return false;
    size_t e = 1;
    while (e < len) {
        if (!p_space(l[e])) {
            e++;
            continue;
        }
        size_t run = e;
        while (run < len && p_space(l[run]))
            run++;
        size_t first = e < 2 ? 2 : e; /* comm is at least two characters */
        if (first < run) {
            size_t d1 = run;
            while (d1 < len && p_digit(l[d1]))
                d1++;
            if (d1 > run && d1 < len) {
                h->comm_len = first;
                h->pid = l + run;
                h->pid_len = d1 - run;
                h->tid = NULL;
                h->tid_len = 0;
                if (p_space(l[d1]))
                    return true;
                if (l[d1] == '/') {
                    size_t s = d1;
                    while (s < len && l[s] == '/')
                        s++;
                    size_t d2 = s;
                    while (d2 < len && p_digit(l[d2]))
                        d2++;
                    if (d2 < len && p_space(l[d2])) {
                        if (d2 > s) {
                            h->tid = l + s;
                            h->tid_len = d2 - s;
                        }
                        return true;
                    }
                }
            }
        }
        e = run;
    }
    return false;
}

/* /:\s*(\d+)*\s+(\S+):\s*$/ : the event is the last word less its final
 * ':', the period the digits between it and the ':' before them. */
static bool match_event(const char *l, size_t len, const char **ev, size_t *evlen,
                        const char **per, size_t *perlen)
{
    size_t L = len;
    while (L && p_space(l[L - 1]))
        L--;
    if (L < 2 || l[L - 1] != ':')
        return false;
    size_t j = L - 1;
    while (j && !p_space(l[j - 1]))
        j--;
    if (j == 0 || j == L - 1)
        return false;
    size_t t1 = j; /* blanks, digits, blanks back from the last word */
    while (t1 && p_space(l[t1 - 1]))
        t1--;
    size_t t2 = t1;
    while (t2 && p_digit(l[t2 - 1]))
        t2--;
    size_t t3 = t2;
    if (t2 < t1)
        while (t3 && p_space(l[t3 - 1]))
            t3--;
    if (t3 == 0 || l[t3 - 1] != ':')
        return false;
    *ev = l + j;
    *evlen = L - 1 - j;
    *per = l + t2;
    *perlen = t1 - t2;
    return true;
}

static void count_other_event(struct perf_collapse *pc, const char *ev, size_t n)
{
    pc->st.filtered++;
    for (size_t i = 0; i < pc->nother; i++)
        if (strlen(pc->other[i].name) == n && memcmp(pc->other[i].name, ev, n) == 0) {
            pc->other[i].count++;
            return;
        }
    if (pc->nother < PERF_COLLAPSE_MAX_EVENTS)
        pc->other[pc->nother++] = (struct other_event){xstrndup(ev, n > 200 ? 200 : n), 1};
    else
        pc->other_rest++;
}

static void header_line(struct perf_collapse *pc, const char *l, size_t len,
                        const struct header *h)
{
    const char *ev, *per = NULL;
    size_t evlen, perlen = 0;
    if (match_event(l, len, &ev, &evlen, &per, &perlen)) {
        if (!pc->event) {
            pc->event = xstrndup(ev, evlen);
            pc->event_defaulted = true;
        } else if (strlen(pc->event) != evlen || memcmp(pc->event, ev, evlen) != 0) {
            count_other_event(pc, ev, evlen);
            return;
        }
    }
    sb_reset(&pc->period);
    if (perlen == 0 || (perlen == 1 && per[0] == '0')) /* Perl: not $period */
        sb_addc(&pc->period, '1');
    else
        sb_addn(&pc->period, per, perlen);

    sb_reset(&pc->pname);
    sb_addn(&pc->pname, l, h->comm_len);
    const char *pid = h->pid, *tid = h->tid;
    size_t pid_len = h->pid_len, tid_len = h->tid_len;
    if (!tid || (tid_len == 1 && tid[0] == '0')) { /* no tid: the number is the tid */
        tid = pid;
        tid_len = pid_len;
        pid = "?";
        pid_len = 1;
    }
    if (pc->o.tid || pc->o.pid) {
        sb_addc(&pc->pname, '-');
        sb_addn(&pc->pname, pid, pid_len);
        if (pc->o.tid) {
            sb_addc(&pc->pname, '/');
            sb_addn(&pc->pname, tid, tid_len);
        }
    }
    for (size_t i = 0; i < pc->pname.len; i++)
        if (pc->pname.buf[i] == ' ')
            pc->pname.buf[i] = '_';
    pc->have_pname = true;
    pc->header_line = pc->lineno;
    pc->header_file = pc->nfiles ? pc->nfiles - 1 : NO_FILE;
}

/* ---- a frame line: /^\s*(\w+)\s*(.+) \((.*)\)/ ---- */

struct frame_line {
    const char *pc, *func, *mod;
    size_t pc_len, func_len, mod_len;
};

/* (.*)\) takes the last ')'; (.+) the last " (" before it; the address
 * (\w+) gives characters back only when (.+) would otherwise be empty. */
static bool match_frame(const char *l, size_t len, struct frame_line *f)
{
    size_t s0 = 0;
    while (s0 < len && p_space(l[s0]))
        s0++;
    size_t w = s0;
    while (w < len && p_word(l[w]))
        w++;
    if (w == s0)
        return false;
    size_t a_max = w;
    while (a_max < len && p_space(l[a_max]))
        a_max++;
    const char *rp = memrchr(l, ')', len);
    if (!rp)
        return false;
    size_t R = (size_t)(rp - l);
    size_t q = R;
    for (;;) {
        if (q < 2)
            return false;
        q--;
        /* looking for " (" at q with q + 2 <= R */
        if (q + 2 <= R && l[q] == ' ' && l[q + 1] == '(')
            break;
    }
    if (q < s0 + 2)
        return false;
    size_t a = a_max < q - 1 ? a_max : q - 1;
    f->pc = l + s0;
    f->pc_len = (a >= w ? w : a) - s0;
    f->func = l + a;
    f->func_len = q - a;
    f->mod = l + q + 2;
    f->mod_len = R - (q + 2);
    return true;
}

static bool contains(const char *s, size_t n, const char *needle)
{
    return memmem(s, n, needle, strlen(needle)) != NULL;
}

/* m/\.\(.*\)\./: a Go method such as "net/http.(*Client).Do" */
static bool go_like(const char *s, size_t n)
{
    const char *open = memmem(s, n, ".(", 2);
    if (!open)
        return false;
    for (size_t j = n; j-- > 1;)
        if (s[j - 1] == ')' && s[j] == '.')
            return s + j - 1 >= open + 2;
    return false;
}

/* m:/tmp/perf-\d+\.map: */
static bool perf_map(const char *m, size_t n)
{
    const char *p = m, *end = m + n;
    while ((p = memmem(p, (size_t)(end - p), "/tmp/perf-", 10)) != NULL) {
        const char *d = p + 10;
        while (d < end && p_digit(*d))
            d++;
        if (d > p + 10 && end - d >= 4 && memcmp(d, ".map", 4) == 0)
            return true;
        p++;
    }
    return false;
}

static void add_name(struct perf_collapse *pc, const struct frame_line *f, const char *func,
                     size_t n, bool first_of_line)
{
    struct strbuf *t = &pc->tmp;
    sb_reset(t);
    if (n == 9 && memcmp(func, "[unknown]", 9) == 0) {
        /* the library's name stands in for a symbol perf could not find */
        sb_addc(t, '[');
        if (!(f->mod_len == 9 && memcmp(f->mod, "[unknown]", 9) == 0)) {
            const char *slash = memrchr(f->mod, '/', f->mod_len);
            const char *b = slash ? slash + 1 : f->mod;
            sb_addn(t, b, (size_t)(f->mod + f->mod_len - b));
        } else {
            sb_add(t, "unknown");
        }
        if (pc->o.addrs) {
            sb_add(t, " <");
            sb_addn(t, f->pc, f->pc_len);
            sb_addc(t, '>');
        }
        sb_addc(t, ']');
    } else {
        sb_addn(t, func, n);
    }
    /* tidy: ';' would split the stack; an argument list after the first
     * '(' (but "(anonymous namespace)") is noise unless it is a Go
     * receiver; quotes go. */
    for (size_t i = 0; i < t->len; i++)
        if (t->buf[i] == ';')
            t->buf[i] = ':';
    if (!go_like(t->buf, t->len)) {
        for (size_t i = 0; i < t->len; i++) {
            if (t->buf[i] != '(')
                continue;
            static const char anon[] = "anonymous namespace)";
            if (t->len - i - 1 >= sizeof anon - 1 && memcmp(t->buf + i + 1, anon, sizeof anon - 1) == 0)
                continue;
            t->len = i;
            t->buf[i] = '\0';
            break;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < t->len; i++)
        if (t->buf[i] != '"' && t->buf[i] != '\'')
            t->buf[k++] = t->buf[i];
    t->len = k;
    t->buf[k] = '\0';
    /* Java: "Ljava/lang/Thread;.run" -> "java/lang/Thread:.run" */
    if (pc->pname.len >= 4 && memcmp(pc->pname.buf, "java", 4) == 0 && t->len &&
        t->buf[0] == 'L' && memchr(t->buf, '/', t->len)) {
        memmove(t->buf, t->buf + 1, t->len);
        t->len--;
    }
    if (!first_of_line) {
        if (!contains(t->buf, t->len, "_[i]"))
            sb_add(t, "_[i]");
    } else if (pc->o.kernel && f->mod_len &&
               (f->mod[0] == '[' ||
                (f->mod_len >= 7 && memcmp(f->mod + f->mod_len - 7, "vmlinux", 7) == 0)) &&
               !contains(f->mod, f->mod_len, "unknown")) {
        sb_add(t, "_[k]");
    } else if (pc->o.jit && perf_map(f->mod, f->mod_len)) {
        if (!contains(t->buf, t->len, "_[j]"))
            sb_add(t, "_[j]");
    }
    if (pc->fr.len + t->len > PERF_COLLAPSE_MAX_STACK) {
        pc->drop = true;
        return;
    }
    xgrow(&pc->fo, &pc->cap_fo, pc->nfr + 1, sizeof *pc->fo);
    pc->fo[pc->nfr++] = pc->fr.len;
    sb_addn(&pc->fr, t->buf, t->len);
}

static void frame_line(struct perf_collapse *pc, const struct frame_line *f)
{
    const char *s = f->func;
    size_t n = f->func_len;
    /* s/\+0x[\da-f]+$// : the offset after the last '+' */
    const char *plus = memrchr(s, '+', n);
    if (plus && (size_t)(s + n - plus) > 3 && plus[1] == '0' && plus[2] == 'x') {
        bool hex = true;
        for (const char *c = plus + 3; c < s + n && hex; c++)
            hex = lower_hex(*c);
        if (hex)
            n = (size_t)(plus - s);
    }
    if (n && s[0] == '(')
        return; /* a process name in place of a symbol */
    if (pc->skip_rest)
        return;
    for (size_t k = 0; k < pc->o.nskip_after; k++)
        if (strlen(pc->o.skip_after[k]) == n && memcmp(pc->o.skip_after[k], s, n) == 0)
            pc->skip_rest = true; /* this frame is kept, its callers are not */
    /* split /->/: inline chains; trailing empty names are dropped, as
     * Perl's split drops them */
    size_t end = n;
    while (end >= 2 && s[end - 2] == '-' && s[end - 1] == '>')
        end -= 2;
    if (end == 0)
        return;
    xgrow(&pc->gs, &pc->cap_gs, pc->ngrp + 1, sizeof *pc->gs);
    pc->gs[pc->ngrp++] = pc->nfr;
    size_t i = 0;
    bool first = true;
    for (;;) {
        const char *arrow = memmem(s + i, end - i, "->", 2);
        size_t fe = arrow ? (size_t)(arrow - s) : end;
        add_name(pc, f, s + i, fe - i, first);
        first = false;
        if (!arrow)
            break;
        i = fe + 2;
    }
}

static void count_sample(struct perf_collapse *pc)
{
    if (pc->drop) {
        pc->st.dropped++;
        return;
    }
    struct strbuf *k = &pc->key;
    sb_reset(k);
    sb_addn(k, pc->pname.buf, pc->pname.len);
    for (size_t g = pc->ngrp; g-- > 0;) {
        size_t last = g + 1 < pc->ngrp ? pc->gs[g + 1] : pc->nfr;
        for (size_t i = pc->gs[g]; i < last; i++) {
            size_t e = i + 1 < pc->nfr ? pc->fo[i + 1] : pc->fr.len;
            sb_addc(k, ';');
            sb_addn(k, pc->fr.buf + pc->fo[i], e - pc->fo[i]);
        }
    }
    if (k->len > PERF_COLLAPSE_MAX_STACK) {
        pc->st.dropped++;
        return;
    }
    stack_counts_add(pc->counts, k->buf, k->len, pc->period.buf, pc->period.len);
    pc->st.samples++;
}

void perf_collapse_line(struct perf_collapse *pc, const char *l, size_t len)
{
    pc->st.lines++;
    pc->lineno++;
    if (len && l[len - 1] == '\n')
        len--;
    if (len && l[len - 1] == '\r')
        len--;
    if (len && l[0] == '#')
        return; /* perf script --header, comments */
    if (len > PERF_COLLAPSE_MAX_LINE || memchr(l, '\0', len)) {
        bad(pc, len > PERF_COLLAPSE_MAX_LINE ? "line longer than 1 MiB: its sample is dropped"
                                             : "NUL byte in line: its sample is dropped",
            l, len);
        if (pc->have_pname)
            pc->drop = true;
        return;
    }
    if (len == 0) {
        if (!pc->have_pname)
            return; /* a filtered sample or stray blank: @stack stays as it is */
        count_sample(pc);
        clear_stack(pc);
        pc->have_pname = false;
        return;
    }
    struct header h;
    if (match_header(l, len, &h)) {
        header_line(pc, l, len, &h);
        return;
    }
    struct frame_line f;
    if (match_frame(l, len, &f)) {
        if (pc->have_pname)
            frame_line(pc, &f);
        return;
    }
    bad(pc, "neither a sample header nor a frame line: ignored", l, len);
}

void perf_collapse_end(struct perf_collapse *pc) { pc->open_at_end = pc->have_pname; }

const struct stack_entry *perf_collapse_stacks(struct perf_collapse *pc, size_t *n)
{
    return stack_counts_sorted(pc->counts, n);
}

void perf_collapse_write(struct perf_collapse *pc, struct strbuf *out)
{
    size_t n;
    const struct stack_entry *e = perf_collapse_stacks(pc, &n);
    for (size_t i = 0; i < n; i++) {
        sb_addn(out, e[i].key, e[i].key_len);
        sb_addc(out, ' ');
        stack_count_format(&e[i].count, out);
        sb_addc(out, '\n');
    }
}

const struct perf_collapse_stats *perf_collapse_stats(const struct perf_collapse *pc)
{
    return &pc->st;
}

const char *perf_collapse_event(const struct perf_collapse *pc)
{
    return pc->event ? pc->event : "";
}

void perf_collapse_report(const struct perf_collapse *pc, FILE *f, const char *prog)
{
    struct strbuf at = STRBUF_INIT;
    /* One line for all of them, however many (`perf script -F +srcline`
     * adds one per frame: 228k warnings): the count, the first one's place
     * and text. */
    const char *cut = strlen(pc->first_bad) == PERF_COLLAPSE_EXAMPLE ? "..." : "";
    if (pc->st.bad == 1)
        term_printf(f, "%s: %s: %s: '%s'%s", prog,
                    place(pc, pc->msg[0].file, pc->msg[0].lineno, &at), pc->msg[0].why,
                    pc->first_bad, cut);
    else if (pc->st.bad > 1)
        term_printf(f, "%s: %zu lines not understood; the first, %s: %s: '%s'%s", prog,
                    pc->st.bad, place(pc, pc->msg[0].file, pc->msg[0].lineno, &at),
                    pc->msg[0].why, pc->first_bad, cut);
    if (pc->st.dropped)
        term_printf(f, "%s: %zu samples dropped (NUL byte, line over 1 MiB or stack over 16 MiB)",
                    prog, pc->st.dropped);
    for (size_t i = 0; i < pc->nother; i++)
        term_printf(f, "%s: %zu samples of event '%s' skipped: only '%s' is kept (%s; "
                       "--event-filter EVENT chooses)",
                    prog, pc->other[i].count, pc->other[i].name, pc->event,
                    pc->event_defaulted ? "the first event seen" : "--event-filter");
    if (pc->other_rest)
        term_printf(f, "%s: %zu samples of further events skipped", prog, pc->other_rest);
    if (pc->open_at_end)
        term_printf(f, "%s: %s: the last sample has no blank line after it: not counted "
                       "(as stackcollapse-perf.pl)",
                    prog, place(pc, pc->header_file, pc->header_line, &at));
    if (pc->o.inline_frames)
        term_printf(f, "%s: --inline: addr2line is not run; inline frames that perf printed "
                       "are kept", prog);
    sb_free(&at);
}

/* ---- input detection ---- */

bool perf_collapse_sniff(const char *text, size_t len)
{
    const char *s = text, *end = text + len;
    bool prev_header = false;
    for (int seen = 0; s < end && seen < 200; seen++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = (size_t)((nl ? nl : end) - s);
        if (n && s[n - 1] == '\r')
            n--;
        /* `perf script --header`: its comment block can outlast the lines
         * looked at (a line per CPU) */
        static const char *const marks[] = {"# captured on", "# perf version", "# cmdline :"};
        for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
            if (n >= strlen(marks[i]) && memcmp(s, marks[i], strlen(marks[i])) == 0)
                return true;
        struct header h;
        struct frame_line f;
        const char *ev, *per;
        size_t evlen, perlen;
        bool header = n && s[0] != '#' && match_header(s, n, &h);
        if (header && match_event(s, n, &ev, &evlen, &per, &perlen))
            return true;
        if (!header && match_frame(s, n, &f)) {
            bool hex = true;
            for (size_t i = 0; i < f.pc_len && hex; i++)
                hex = any_hex(f.pc[i]);
            if (hex && (prev_header || p_space(s[0])))
                return true;
        }
        prev_header = header;
        s = nl ? nl + 1 : end;
    }
    return false;
}
