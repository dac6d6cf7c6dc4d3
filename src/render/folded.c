#include "folded.h"
#include "../model/profile_diff.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static void bad(struct flame_parse_stats *st, size_t lineno, const char *why)
{
    st->malformed++;
    if (st->nbad < FLAME_MAX_BAD) {
        st->bad_line[st->nbad] = lineno;
        st->bad_why[st->nbad] = why;
        st->nbad++;
    }
}

static size_t chomp(const char *line, size_t len)
{
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    return len;
}

static bool is_space(char c) { return c == ' ' || c == '\t'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

enum frame_kind folded_frame_kind(const char *name, size_t *len)
{
    size_t n = *len;
    if (n > 4 && name[n - 4] == '_' && name[n - 3] == '[' && name[n - 1] == ']') {
        enum frame_kind k = FRAME_KIND_COUNT;
        switch (name[n - 2]) {
        case 'k': k = FRAME_KERNEL; break;
        case 'j': k = FRAME_JIT; break;
        case 'i': k = FRAME_INLINE; break;
        default: break;
        }
        if (k != FRAME_KIND_COUNT) {
            *len = n - 4;
            return k;
        }
    }
    if (n == 9 && memcmp(name, "[unknown]", 9) == 0)
        return FRAME_UNKNOWN;
    return FRAME_USER;
}

/* Parses the count that ends line[0..end) ("12", "12.", "12.5": rounded
 * half up, as flamegraph.pl accepts fractions); *start is where its digits
 * begin, after a blank.  Returns NULL or why it is not a count. */
static const char *trailing_count(const char *line, size_t end, size_t *start, uint64_t *count)
{
    size_t i = end;
    while (i && is_digit(line[i - 1]))
        i--;
    size_t int_end = end;
    bool round_up = false;
    if (i && line[i - 1] == '.') {
        round_up = i < end && line[i] >= '5';
        int_end = i - 1;
        i = int_end;
        while (i && is_digit(line[i - 1]))
            i--;
    }
    if (i == int_end || i == 0 || !is_space(line[i - 1]))
        return "missing count after the last space";
    uint64_t v = 0;
    for (size_t k = i; k < int_end; k++) {
        unsigned d = (unsigned)(line[k] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return "count too large";
        v = v * 10 + d;
    }
    if (round_up && v < UINT64_MAX)
        v++;
    *start = i;
    *count = v;
    return NULL;
}

void folded_init(struct folded_parser *fp, struct profile *p)
{
    memset(fp, 0, sizeof *fp);
    fp->p = p;
}

#define BATCH_LINES 1024
#define BATCH_BYTES (4u << 20)

static void flush_batch(struct folded_parser *fp)
{
    if (fp->npend == 0)
        return;
    struct pframe *f = xmalloc(fp->nfr * sizeof *f + 1);
    struct pstack *st = xmalloc(fp->npend * sizeof *st);
    for (size_t i = 0; i < fp->nfr; i++)
        f[i] = (struct pframe){fp->blk + fp->fr[i].off, fp->fr[i].len, fp->fr[i].kind};
    for (size_t j = 0; j < fp->npend; j++)
        st[j] = (struct pstack){f + fp->pend[j].first, fp->pend[j].depth, fp->pend[j].shared,
                                fp->pend[j].count};
    profile_add_stacks(fp->p, st, fp->npend);
    free(f);
    free(st);
    fp->npend = fp->nfr = fp->blk_len = 0;
    fp->pend_total = 0;
}

void folded_finish(struct folded_parser *fp)
{
    flush_batch(fp);
    free(fp->blk);
    free(fp->fr);
    free(fp->pend);
    fp->blk = NULL;
    fp->fr = NULL;
    fp->pend = NULL;
    fp->blk_cap = fp->cap_fr = fp->cap_pend = 0;
}

void folded_line(struct folded_parser *fp, const char *line, size_t len, size_t lineno)
{
    struct flame_parse_stats *st = &fp->st;
    st->lines++;
    len = chomp(line, len);
    /* Names are C strings downstream: a NUL would cut one short, possibly to
     * nothing or to bare spaces that could not be written back. */
    if (memchr(line, '\0', len)) {
        bad(st, lineno, "NUL byte in line");
        return;
    }
    size_t end = len;
    while (end && is_space(line[end - 1]))
        end--;
    if (end == 0) {
        st->blank++;
        return;
    }
    /* the count is the number after the last space: names may hold spaces */
    uint64_t count = 0, count0 = 0;
    size_t i = 0;
    const char *why = trailing_count(line, end, &i, &count);
    if (why) {
        bad(st, lineno, why);
        return;
    }
    size_t send = i - 1;
    while (send && is_space(line[send - 1]))
        send--;
    /* difffolded.pl's "stack BEFORE AFTER": a second count before the last
     * one, as long as a stack is left before it */
    size_t j = 0;
    unsigned form = 1;
    const char *why0 = send ? trailing_count(line, send, &j, &count0) : "";
    if (why0 && strcmp(why0, "count too large") == 0) {
        bad(st, lineno, why0);
        return;
    }
    if (!why0) {
        size_t s2 = j - 1;
        while (s2 && is_space(line[s2 - 1]))
            s2--;
        if (s2) {
            form = 2;
            send = s2;
        }
    }
    if (send == 0) {
        bad(st, lineno, "empty stack");
        return;
    }
    if (!fp->form) {
        fp->form = form;
        fp->form_line = lineno;
    } else if (form != fp->form) {
        if (!st->mixed++)
            st->mixed_line = lineno;
        return;
    }
    if (count == 0 && (form == 1 || count0 == 0)) {
        st->zero++;
        return;
    }
    uint64_t sofar = profile_total(fp->p) + fp->pend_total;
    if (sofar > UINT64_MAX - count) {
        bad(st, lineno, "total count overflows");
        return;
    }

    size_t base = fp->blk_len;
    xgrow(&fp->blk, &fp->blk_cap, base + send + 1, 1);
    memcpy(fp->blk + base, line, send);
    fp->blk_len += send;
    size_t first = fp->nfr;
    const char *s = line;
    const char *stop = line + send;
    for (;;) {
        const char *semi = memchr(s, ';', (size_t)(stop - s));
        const char *fe = semi ? semi : stop;
        size_t n = (size_t)(fe - s);
        uint8_t k = (uint8_t)folded_frame_kind(s, &n);
        xgrow(&fp->fr, &fp->cap_fr, fp->nfr + 1, sizeof *fp->fr);
        fp->fr[fp->nfr++] = (struct folded_frame){base + (size_t)(s - line), n, k};
        if (!semi)
            break;
        s = semi + 1;
    }
    if (form == 2) { /* one at a time: the baseline needs the leaf (small inputs);
                      * nothing is pending, every line of this input has form 2 */
        struct pframe *pf = xmalloc((fp->nfr - first) * sizeof *pf);
        for (size_t k = first; k < fp->nfr; k++)
            pf[k - first] = (struct pframe){fp->blk + fp->fr[k].off, fp->fr[k].len, fp->fr[k].kind};
        profile_add_frames2(fp->p, pf, fp->nfr - first, count, count0);
        free(pf);
        fp->nfr = fp->blk_len = 0;
        st->stacks++;
        return;
    }
    /* frames shared with the previous pending line (sorted input shares many) */
    size_t shared = 0;
    if (fp->npend) {
        const struct folded_pending *pv = &fp->pend[fp->npend - 1];
        size_t depth = fp->nfr - first;
        while (shared < depth && shared < pv->depth) {
            const struct folded_frame *a = &fp->fr[first + shared], *b = &fp->fr[pv->first + shared];
            if (a->len != b->len || a->kind != b->kind ||
                memcmp(fp->blk + a->off, fp->blk + b->off, a->len) != 0)
                break;
            shared++;
        }
    }
    xgrow(&fp->pend, &fp->cap_pend, fp->npend + 1, sizeof *fp->pend);
    fp->pend[fp->npend++] = (struct folded_pending){first, fp->nfr - first, shared, count};
    fp->pend_total += count;
    st->stacks++;
    if (fp->npend >= BATCH_LINES || fp->blk_len >= BATCH_BYTES)
        flush_batch(fp);
}

size_t folded_parse(struct profile *p, const char *text, size_t len, struct flame_parse_stats *st)
{
    struct folded_parser fp;
    folded_init(&fp, p);
    fp.st = *st;
    size_t before = st->stacks, lineno = 0;
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        folded_line(&fp, s, (size_t)(le - s), ++lineno);
        s = nl ? nl + 1 : end;
    }
    folded_finish(&fp);
    *st = fp.st;
    return st->stacks - before;
}

/* ---- writer ---- */

static void put_name(struct strbuf *out, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        if (*s == ';' || *s == '\n' || *s == '\r') {
            sb_addn(out, run, (size_t)(s - run));
            sb_addc(out, '_');
            run = s + 1;
        }
    }
    sb_addn(out, run, (size_t)(s - run));
}

static int write_stack(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                       uint64_t self)
{
    struct strbuf *out = ctx;
    for (size_t d = 0; d < depth; d++) {
        if (d)
            sb_addc(out, ';');
        put_name(out, profile_node_name(p, path[d]));
        switch (profile_node_kind(p, path[d])) {
        case FRAME_KERNEL: sb_add(out, "_[k]"); break;
        case FRAME_JIT: sb_add(out, "_[j]"); break;
        case FRAME_INLINE: sb_add(out, "_[i]"); break;
        default: break;
        }
    }
    sb_addf(out, " %llu\n", (unsigned long long)self);
    return 0;
}

void folded_write(const struct profile *p, struct strbuf *out)
{
    profile_walk_stacks(p, write_stack, out);
}
