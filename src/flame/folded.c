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

/* Parses the count that ends line[0..end) ("12", "12.", "12.5"); *start is
 * where its digits begin, after a blank.  *whole gets the integer part,
 * *frac and *nfrac the digits after the point (none: *nfrac 0).  Returns
 * NULL or why it is not a count. */
static const char *trailing_count(const char *line, size_t end, size_t *start, uint64_t *whole,
                                  const char **frac, size_t *nfrac)
{
    size_t i = end;
    while (i && is_digit(line[i - 1]))
        i--;
    size_t int_end = end;
    *frac = line + end;
    *nfrac = 0;
    if (i && line[i - 1] == '.') {
        *frac = line + i;
        *nfrac = end - i;
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
    *start = i;
    *whole = v;
    return NULL;
}

static uint64_t pow10u(unsigned n)
{
    uint64_t m = 1;
    while (n--)
        m *= 10;
    return m;
}

/* The count in units of 10^-decimals: whole, then the first `decimals`
 * digits of the fraction (missing ones are 0), the next one rounding half up. */
static bool fixed_count(uint64_t whole, const char *frac, size_t nfrac, unsigned decimals,
                        uint64_t *out)
{
    uint64_t m = pow10u(decimals);
    if (whole > UINT64_MAX / m)
        return false;
    uint64_t v = whole * m, f = 0;
    for (unsigned k = 0; k < decimals; k++)
        f = f * 10 + (k < nfrac ? (uint64_t)(frac[k] - '0') : 0);
    if (v > UINT64_MAX - f)
        return false;
    v += f;
    if (nfrac > decimals && frac[decimals] >= '5') {
        if (v == UINT64_MAX)
            return false;
        v++;
    }
    *out = v;
    return true;
}

/* Digits of a fraction that count: trailing zeros say nothing. */
static size_t significant(const char *frac, size_t nfrac)
{
    while (nfrac && frac[nfrac - 1] == '0')
        nfrac--;
    return nfrac;
}

void folded_init(struct folded_parser *fp, struct profile *p)
{
    memset(fp, 0, sizeof *fp);
    fp->p = p;
    fp->bulk = profile_bulk_new(p);
}

void folded_finish(struct folded_parser *fp)
{
    profile_bulk_end(fp->bulk);
    free(fp->fr);
    free(fp->prev);
    fp->bulk = NULL;
    fp->fr = NULL;
    fp->prev = NULL;
    fp->cap_fr = fp->prev_len = fp->prev_cap = 0;
}

/* Length of the common prefix of a and b. */
static size_t common_prefix(const char *a, size_t na, const char *b, size_t nb)
{
    size_t n = na < nb ? na : nb, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            break;
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

void folded_line(struct folded_parser *fp, const char *line, size_t len, size_t lineno)
{
    struct flame_parse_stats *st = &fp->st;
    st->lines++;
    len = chomp(line, len);
    if (len > FOLDED_MAX_LINE) {
        bad(st, lineno, "line longer than 16 MiB");
        return;
    }
    /* Names are C strings downstream: a NUL would cut one short, possibly to
     * nothing or to bare spaces that could not be written back. */
    if (memchr(line, '\0', len)) {
        bad(st, lineno, "NUL byte in line");
        return;
    }
    size_t end = len;
    while (end && is_space(line[end - 1]))
        end--;
    if (end == 0 || (fp->comments && line[0] == '#')) {
        st->blank++;
        return;
    }
    /* the count is the number after the last space: names may hold spaces */
    uint64_t whole = 0, whole0 = 0;
    const char *frac = NULL, *frac0 = NULL;
    size_t nfrac = 0, nfrac0 = 0;
    size_t i = 0;
    const char *why = trailing_count(line, end, &i, &whole, &frac, &nfrac);
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
    const char *why0 = send ? trailing_count(line, send, &j, &whole0, &frac0, &nfrac0) : "";
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
    if (form == 1)
        nfrac0 = 0;
    /* Fractions: exact in units of 10^-decimals, the finest the input has
     * used so far (at most FOLDED_MAX_DECIMALS); what was added before in
     * coarser units is scaled up first.  Without exact_fractions a count is
     * rounded half up to a whole one. */
    unsigned want = 0;
    if (fp->exact_fractions) {
        size_t w = significant(frac, nfrac), w0 = significant(frac0, nfrac0);
        w = w > w0 ? w : w0;
        want = w > FOLDED_MAX_DECIMALS ? FOLDED_MAX_DECIMALS : (unsigned)w;
    }
    if (want > fp->decimals) {
        /* the pending stacks are merged first: the bulk holds counts too */
        profile_bulk_end(fp->bulk);
        fp->bulk = profile_bulk_new(fp->p);
        fp->prev_len = 0;
        if (!profile_scale(fp->p, pow10u(want - fp->decimals))) {
            bad(st, lineno, "count too large");
            return;
        }
        fp->decimals = want;
    }
    uint64_t count = 0, count0 = 0;
    if (!fixed_count(whole, frac, nfrac, fp->decimals, &count) ||
        (form == 2 && !fixed_count(whole0, frac0, nfrac0, fp->decimals, &count0))) {
        bad(st, lineno, "count too large");
        return;
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
    if (profile_total(fp->p) > UINT64_MAX - count) {
        bad(st, lineno, "total count overflows");
        return;
    }

    /* Frames, and how many lead the previous stack too (sorted input, as
     * stackcollapse writes it, shares many): frame i is shared when the
     * common text reaches its end and both stacks have a boundary there. */
    size_t lcp = common_prefix(line, send, fp->prev, fp->prev_len);
    bool edge = fp->prev_len && (lcp == send || line[lcp] == ';') &&
                (lcp == fp->prev_len || fp->prev[lcp] == ';');
    size_t nfr = 0, shared = 0;
    const char *s = line;
    const char *stop = line + send;
    for (;;) {
        const char *semi = memchr(s, ';', (size_t)(stop - s));
        const char *fe = semi ? semi : stop;
        size_t n = (size_t)(fe - s);
        uint8_t k = (uint8_t)folded_frame_kind(s, &n);
        if (fp->bundle_kinds && nfr == 0)
            k = FRAME_PROCESS;
        else if (fp->bundle_kinds && k == FRAME_USER && n >= 2 && s[0] == '[' && s[n - 1] == ']')
            k = FRAME_UNKNOWN;
        if (nfr == FOLDED_MAX_DEPTH) {
            bad(st, lineno, "stack deeper than 65536 frames");
            return;
        }
        if (nfr == fp->cap_fr) {
            fp->cap_fr = fp->cap_fr ? fp->cap_fr * 2 : 64;
            fp->fr = xrealloc(fp->fr, fp->cap_fr * sizeof *fp->fr);
        }
        fp->fr[nfr++] = (struct pframe){s, n, k};
        size_t fend = (size_t)(fe - line);
        if (fend < lcp || (fend == lcp && edge))
            shared = nfr;
        if (!semi)
            break;
        s = semi + 1;
    }
    if (form == 2) { /* one at a time: the baseline needs the leaf (small inputs);
                      * nothing waits in the bulk, every line of this input has form 2 */
        profile_add_frames2(fp->p, fp->fr, nfr, count, count0);
    } else if (fp->p->chart) { /* a flame chart keeps the input's order: no sorting */
        profile_add_stacks(fp->p, &(struct pstack){fp->fr, nfr, 0, count}, 1);
    } else {
        profile_bulk_add(fp->bulk, &(struct pstack){fp->fr, nfr, shared, count});
    }
    st->stacks++;
    if (fp->on_stack)
        fp->on_stack(fp->on_stack_ctx, lineno, fp->fr, nfr);
    if (send > fp->prev_cap) {
        fp->prev_cap = send * 2;
        free(fp->prev);
        fp->prev = xmalloc(fp->prev_cap);
    }
    memcpy(fp->prev, line, send);
    fp->prev_len = send;
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

/* A name as one frame of a line: ';' would split it, a line break end the
 * line, and no other control byte (an escape sequence in a comm or symbol)
 * reaches a terminal that shows the file. */
static void put_name(struct strbuf *out, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        if (*s == ';' || (unsigned char)*s < 0x20 || *s == 0x7f) {
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
