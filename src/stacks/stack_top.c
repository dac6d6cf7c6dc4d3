/* Top functions of an aggregated stack map (see stack_top.h). */
#include "stack_top.h"
#include "../model/frame_kind.h"
#include "../model/model.h"
#include "../util/strbuf.h"
#include "../util/strmap.h"
#include "../util/xalloc.h"
#include "stacks.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_TOP_FRAMES 4 /* frames of the stack column */
#define STACK_TOP_NAME 200 /* bytes kept of a function name */

struct st_row {
    uint32_t tgid;
    char comm[17];
    double value, count;
    char *func;  /* owned: the leaf-most named user frame, or the leaf */
    char *stack; /* owned: a few frames leaf first */
};

struct stack_top {
    struct st_row *rows;
    struct stack_row *srows;
    size_t n;
};

struct stack_top *stack_top_new(size_t nrows)
{
    struct stack_top *st = xcalloc(1, sizeof *st);
    st->n = nrows;
    st->rows = xcalloc(nrows ? nrows : 1, sizeof *st->rows);
    st->srows = xcalloc(nrows ? nrows : 1, sizeof *st->srows);
    return st;
}

void stack_top_set(struct stack_top *st, size_t i, uint32_t tgid, const char *comm,
                   int64_t kstack, int64_t ustack, double value, double count)
{
    if (i >= st->n)
        return;
    struct st_row *r = &st->rows[i];
    r->tgid = tgid;
    snprintf(r->comm, sizeof r->comm, "%s", comm ? comm : "");
    r->value = value;
    r->count = count;
    st->srows[i] = (struct stack_row){.tgid = tgid, .kstack_id = kstack, .ustack_id = ustack};
}

static bool named_user(uint8_t k)
{
    return k == FRAME_USER || k == FRAME_INLINE || k == FRAME_JIT;
}

static void on_row(void *ctx, size_t row, const char *const *names, const uint8_t *kinds, size_t n)
{
    struct stack_top *st = ctx;
    struct st_row *r = &st->rows[row];
    size_t leaf = 0;
    while (leaf < n && !named_user(kinds[leaf]))
        leaf++;
    if (leaf == n)
        leaf = 0;
    free(r->func);
    r->func = n ? xstrndup(names[leaf], STACK_TOP_NAME) : xstrdup("[no stack]");
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = leaf, k = 0; i < n && k < STACK_TOP_FRAMES; i++, k++) {
        if (k)
            sb_add(&sb, " <- ");
        sb_addf(&sb, "%.*s", STACK_TOP_NAME, names[i]);
    }
    free(r->stack);
    r->stack = sb_detach(&sb);
}

struct st_agg {
    size_t first;        /* row with the heaviest stack */
    double value, count;
};

static int by_value_desc(const void *a, const void *b)
{
    const struct st_agg *x = a, *y = b;
    return (x->value < y->value) - (x->value > y->value);
}

size_t stack_top_fill(struct stack_top *st, struct stack_resolver *sr, struct table *t,
                      const char *value_col, const char *count_col, size_t max)
{
    if (!st || st->n == 0)
        return 0;
    stack_resolver_rows(sr, st->srows, st->n, on_row, st);
    /* Sum per (pid, function), found by "pid:function" in a hash map (a
     * scan of the sums so far was quadratic: 8192 keys, 33 M compares). */
    struct st_agg *agg = xcalloc(st->n, sizeof *agg);
    size_t na = 0;
    double total = 0;
    struct strmap at = STRMAP_INIT; /* "pid:function" -> index in agg + 1 */
    struct strbuf key = STRBUF_INIT;
    for (size_t i = 0; i < st->n; i++) {
        const struct st_row *r = &st->rows[i];
        total += r->value;
        if (!r->func)
            continue;
        sb_reset(&key);
        sb_addf(&key, "%u:%s", (unsigned)r->tgid, r->func);
        void **slot = strmap_slot(&at, sb_str(&key));
        size_t j = *slot ? (size_t)(uintptr_t)*slot - 1 : na;
        if (j == na) {
            *slot = (void *)(uintptr_t)(na + 1);
            agg[na++] = (struct st_agg){i, 0, 0};
        } else if (r->value > st->rows[agg[j].first].value) {
            agg[j].first = i;
        }
        agg[j].value += r->value;
        agg[j].count += r->count;
    }
    strmap_free(&at, NULL);
    sb_free(&key);
    if (na > 1)
        qsort(agg, na, sizeof *agg, by_value_desc);
    size_t out = 0;
    for (size_t j = 0; j < na && out < max; j++, out++) {
        const struct st_row *r = &st->rows[agg[j].first];
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", r->tgid);
        table_set_str(t, row, "process", r->comm[0] ? r->comm : "[unknown]");
        table_set_str(t, row, "function", r->func);
        table_set_num(t, row, value_col, agg[j].value);
        if (count_col)
            table_set_num(t, row, count_col, agg[j].count);
        table_set_num(t, row, "share_pct", total > 0 ? 100.0 * agg[j].value / total : 0);
        table_set_str(t, row, "stack", r->stack ? r->stack : "");
    }
    free(agg);
    return out;
}

void stack_top_free(struct stack_top *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++) {
        free(st->rows[i].func);
        free(st->rows[i].stack);
    }
    free(st->rows);
    free(st->srows);
    free(st);
}
