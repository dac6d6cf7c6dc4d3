#include "folded.h"
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
static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

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
    size_t i = end;
    while (i && is_digit(line[i - 1]))
        i--;
    size_t int_end = end;
    bool round_up = false;
    if (i && line[i - 1] == '.') { /* flamegraph.pl accepts fractional counts */
        round_up = i < end && line[i] >= '5';
        int_end = i - 1;
        i = int_end;
        while (i && is_digit(line[i - 1]))
            i--;
    }
    if (i == int_end || i == 0 || !is_space(line[i - 1])) {
        bad(st, lineno, "missing count after the last space");
        return;
    }
    uint64_t count = 0;
    for (size_t k = i; k < int_end; k++) {
        unsigned d = (unsigned)(line[k] - '0');
        if (count > (UINT64_MAX - d) / 10) {
            bad(st, lineno, "count too large");
            return;
        }
        count = count * 10 + d;
    }
    if (round_up && count < UINT64_MAX)
        count++;
    size_t send = i - 1;
    while (send && is_space(line[send - 1]))
        send--;
    if (send == 0) {
        bad(st, lineno, "empty stack");
        return;
    }
    if (count == 0) {
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
    profile_bulk_add(fp->bulk, &(struct pstack){fp->fr, nfr, shared, count});
    st->stacks++;
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

/* ---- perf script ---- */

void perf_script_init(struct perf_script_parser *ps, struct profile *p)
{
    memset(ps, 0, sizeof *ps);
    ps->p = p;
    ps->names = xcalloc(1, sizeof *ps->names);
}

static void flush_sample(struct perf_script_parser *ps)
{
    if (!ps->in_sample)
        return;
    ps->in_sample = false;
    if (ps->skip_sample)
        return;
    size_t depth = ps->nframes + 1;
    xgrow(&ps->pf, &ps->cap_pf, depth, sizeof *ps->pf);
    const char *comm = ps->comm ? ps->comm : "";
    ps->pf[0] = (struct pframe){comm, strlen(comm), FRAME_PROCESS};
    for (size_t i = 0; i < ps->nframes; i++) {
        size_t j = ps->nframes - 1 - i; /* perf prints the leaf first */
        const char *n = ps->names->buf + ps->offs[j];
        ps->pf[i + 1] = (struct pframe){n, strlen(n), ps->kinds[j]};
    }
    if (profile_total(ps->p) == UINT64_MAX)
        return;
    profile_add_frames(ps->p, ps->pf, depth, 1);
    ps->st.stacks++;
}

/* "comm pid[/tid] [cpu] time: [period] event: ..." -- comm may hold spaces, so
 * the pid is the first all-digit word (optionally "/tid") after it. */
static bool parse_header(struct perf_script_parser *ps, const char *l, size_t len)
{
    size_t i = 1, comm_end = 0, after_pid = 0;
    while (i < len) {
        if (is_space(l[i - 1]) && is_digit(l[i])) {
            size_t j = i;
            while (j < len && is_digit(l[j]))
                j++;
            if (j < len && l[j] == '/') {
                j++;
                while (j < len && is_digit(l[j]))
                    j++;
            }
            if (j == len || is_space(l[j])) {
                comm_end = i - 1;
                after_pid = j;
                break;
            }
        }
        i++;
    }
    if (!after_pid)
        return false;
    while (comm_end && is_space(l[comm_end - 1]))
        comm_end--;
    free(ps->comm);
    ps->comm = xstrndup(l, comm_end);

    /* event: the word after the "secs.usecs:" time and an optional period */
    const char *ev = NULL;
    size_t evlen = 0;
    bool after_time = false;
    size_t k = after_pid;
    while (k < len) {
        while (k < len && is_space(l[k]))
            k++;
        size_t w = k;
        while (k < len && !is_space(l[k]))
            k++;
        if (w == k)
            break;
        if (!after_time) {
            if (l[k - 1] == ':' && is_digit(l[w]))
                after_time = true;
            continue;
        }
        bool digits = true;
        for (size_t m = w; m < k; m++)
            digits = digits && is_digit(l[m]);
        if (digits)
            continue;
        ev = l + w;
        evlen = k - w;
        break;
    }
    if (!ev) {
        ev = "";
        evlen = 0;
    }
    /* "cpu-clock:ppp:" and "cpu-clock:" are one event: drop the trailing ':'
     * and a modifier suffix, keep "sched:sched_switch" whole */
    if (evlen && ev[evlen - 1] == ':')
        evlen--;
    for (size_t m = evlen; m-- > 0;) {
        if (ev[m] == ':') {
            if (m + 1 < evlen)
                evlen = m;
            break;
        }
        if (!strchr("ukhpPGHISDWe", ev[m]))
            break;
    }
    if (!ps->event)
        ps->event = xstrndup(ev, evlen);
    ps->skip_sample = strlen(ps->event) != evlen || memcmp(ps->event, ev, evlen) != 0;
    if (ps->skip_sample)
        ps->st.other_events++;
    return true;
}

/* "addr symbol+0xoff (dso)" */
static void parse_frame(struct perf_script_parser *ps, const char *l, size_t len)
{
    size_t i = 0;
    while (i < len && is_space(l[i]))
        i++;
    size_t w = i;
    uint64_t addr = 0;
    bool have_addr = false;
    while (i < len && is_hex(l[i]))
        i++;
    if (i > w && (i == len || is_space(l[i]))) {
        have_addr = true;
        for (size_t k = w; k < i; k++) {
            char c = l[k];
            unsigned d = is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
            addr = addr << 4 | d;
        }
    } else {
        i = w;
    }
    while (i < len && is_space(l[i]))
        i++;
    const char *sym = l + i;
    size_t slen = len - i;
    const char *dso = "";
    size_t dlen = 0;
    if (slen && sym[slen - 1] == ')') {
        /* the dso is the balanced "(...)" at the end: paths may hold parentheses */
        int depth = 0;
        for (size_t k = slen; k-- > 0;) {
            if (sym[k] == ')')
                depth++;
            else if (sym[k] == '(' && --depth == 0) {
                dso = sym + k + 1;
                dlen = slen - 1 - (k + 1);
                slen = k;
                break;
            }
        }
    }
    while (slen && is_space(sym[slen - 1]))
        slen--;
    /* strip "+0x1f" */
    const char *plus = memrchr(sym, '+', slen);
    if (plus && (size_t)(sym + slen - plus) > 3 && plus[1] == '0' && plus[2] == 'x') {
        bool hex = true;
        for (const char *m = plus + 3; m < sym + slen; m++)
            hex = hex && is_hex(*m);
        if (hex)
            slen = (size_t)(plus - sym);
    }
    enum frame_kind kind = FRAME_USER;
    if ((dlen >= 8 && memcmp(dso, "[kernel.", 8) == 0) ||
        (dlen && dso[0] == '[' && have_addr && (addr >> 63)))
        kind = FRAME_KERNEL;
    else if ((dlen >= 10 && memcmp(dso, "/tmp/perf-", 10) == 0) ||
             (dlen >= 5 && memcmp(dso, "[JIT]", 5) == 0) ||
             memmem(dso, dlen, "/jitted-", 8))
        kind = FRAME_JIT;
    else if (dlen == 7 && memcmp(dso, "inlined", 7) == 0)
        kind = FRAME_INLINE;
    if (slen == 0 || (slen == 9 && memcmp(sym, "[unknown]", 9) == 0)) {
        sym = "[unknown]";
        slen = 9;
        kind = FRAME_UNKNOWN;
    }
    xgrow(&ps->offs, &ps->cap_frames, ps->nframes + 1, sizeof *ps->offs);
    ps->kinds = xrealloc(ps->kinds, ps->cap_frames);
    ps->offs[ps->nframes] = ps->names->len;
    ps->kinds[ps->nframes] = (uint8_t)kind;
    ps->nframes++;
    sb_addn(ps->names, sym, slen);
    sb_addc(ps->names, '\0');
}

void perf_script_line(struct perf_script_parser *ps, const char *line, size_t len, size_t lineno)
{
    ps->st.lines++;
    len = chomp(line, len);
    size_t k = 0;
    while (k < len && is_space(line[k]))
        k++;
    if (k == len) {
        flush_sample(ps);
        return;
    }
    if (k > 0) {
        if (!ps->in_sample) {
            bad(&ps->st, lineno, "frame line outside a sample");
            return;
        }
        if (!ps->skip_sample)
            parse_frame(ps, line, len);
        return;
    }
    if (line[0] == '#' && !ps->in_sample)
        return; /* perf script --header comments */
    flush_sample(ps);
    ps->nframes = 0;
    sb_reset(ps->names);
    if (!parse_header(ps, line, len)) {
        bad(&ps->st, lineno, "not a perf script sample header");
        return;
    }
    ps->in_sample = true;
}

void perf_script_finish(struct perf_script_parser *ps)
{
    flush_sample(ps);
    free(ps->event);
    free(ps->comm);
    sb_free(ps->names);
    free(ps->names);
    free(ps->offs);
    free(ps->kinds);
    free(ps->pf);
    ps->event = ps->comm = NULL;
    ps->names = NULL;
    ps->offs = NULL;
    ps->kinds = NULL;
    ps->pf = NULL;
}

size_t perf_script_parse(struct profile *p, const char *text, size_t len,
                         struct flame_parse_stats *st)
{
    struct perf_script_parser ps;
    perf_script_init(&ps, p);
    size_t lineno = 0;
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        perf_script_line(&ps, s, (size_t)(le - s), ++lineno);
        s = nl ? nl + 1 : end;
    }
    perf_script_finish(&ps);
    *st = ps.st;
    return st->stacks;
}

bool looks_like_perf_script(const char *text, size_t len)
{
    /* a frame line: indentation, a hex address, a space */
    const char *s = text, *end = text + len;
    int seen = 0;
    while (s < end && seen < 200) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        const char *q = s;
        if (q < le && is_space(*q)) {
            while (q < le && is_space(*q))
                q++;
            const char *h = q;
            while (q < le && is_hex(*q))
                q++;
            if (q > h && q < le && is_space(*q))
                return true;
        }
        seen++;
        s = nl ? nl + 1 : end;
    }
    return false;
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
