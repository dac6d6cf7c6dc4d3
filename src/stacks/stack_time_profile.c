/* A collector's stack_time store into its profile's time (stack_time.h). */
#include "stack_time.h"
#include "../model/model.h"
#include "../model/profile.h"
#include "../model/profile_time.h"

struct fill {
    struct profile_time *pt;
    const uint32_t *leaf;
    uint32_t nkeys;
};

static int fill_cell(void *ctx, const void *key, uint32_t k, uint32_t bucket, uint64_t value)
{
    (void)key;
    struct fill *f = ctx;
    if (bucket >= f->pt->nbuckets)
        return 0; /* cannot be: nbuckets covers the store's span */
    if (k < f->nkeys && f->leaf[k] != PROFILE_NONE)
        profile_time_add(f->pt, f->leaf[k], bucket, value);
    else
        f->pt->unstacked[bucket] += value;
    return 0;
}

void stack_time_to_profile(const struct stack_time *t, struct profile *p, const uint32_t *leaf,
                           uint32_t nbuckets, double bucket_s, struct ledger_entry *led)
{
    struct stack_time_stats st;
    stack_time_stats(t, &st);
    if (st.buckets > nbuckets)
        nbuckets = st.buckets;
    if (nbuckets > PROFILE_TIME_MAX_BUCKETS)
        nbuckets = PROFILE_TIME_MAX_BUCKETS;
    struct profile_time *pt =
        profile_time_new(bucket_s >= 1 ? bucket_s : 1, nbuckets ? nbuckets : 1);
    if (!pt || !p) {
        profile_time_free(pt);
        return;
    }
    for (uint32_t b = 0; b < pt->nbuckets; b++) {
        pt->total[b] = stack_time_total(t, b);
        pt->unstacked[b] = stack_time_unstacked(t, b);
    }
    struct fill f = {pt, leaf, stack_time_nkeys(t)};
    stack_time_walk(t, fill_cell, &f);
    profile_time_sort(pt);
    profile_time_free(p->time);
    p->time = pt;
    if (!led)
        return;
    const char *unit = p->unit ? p->unit : "";
    if (st.unstacked)
        ledger_note(led, "per-second stacks: %llu %s without a stack in the seconds' heat map "
                    "(%u keys or %u cells refused: the store's bound)",
                    (unsigned long long)st.unstacked, unit, st.key_refusals, st.cell_refusals);
    if (st.outside || st.key_refusals)
        ledger_note(led, "per-second stacks: %llu %s past the store's span of seconds and %u "
                    "readings of keys past its bound left out of the heat map",
                    (unsigned long long)st.outside, unit, st.key_refusals);
}
