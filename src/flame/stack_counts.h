/* Folded stacks ("a;b;c") and their counts, summed as stackcollapse-perf.pl
 * sums them: a Perl hash of numbers.  Counts are exact unsigned 64-bit
 * integers until a sum (or a period) no longer fits; from then on that entry
 * is a double, as Perl's is, and is printed as Perl prints it ("%.15g"). */
#ifndef PERFREPORT_STACK_COUNTS_H
#define PERFREPORT_STACK_COUNTS_H
#include "../util/strbuf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stack_count {
    uint64_t u;
    double d;  /* the value when nv */
    bool nv;
};

struct stack_entry {
    const char *key; /* owned by the table; not NUL-terminated, key_len bytes */
    size_t key_len;
    uint64_t hash;
    struct stack_count count;
};

struct stack_counts;

struct stack_counts *stack_counts_new(void);
void stack_counts_free(struct stack_counts *t);
/* Adds a decimal number (digits only, any length: leading zeros allowed) to
 * key's count; creates the entry (0 + n) when new. */
void stack_counts_add(struct stack_counts *t, const char *key, size_t key_len,
                      const char *digits, size_t ndigits);
/* The entries sorted as Perl's `sort { $a cmp $b }` sorts byte strings;
 * valid until the next add or free.  *n gets the number. */
const struct stack_entry *stack_counts_sorted(struct stack_counts *t, size_t *n);
/* Appends the count as Perl prints it. */
void stack_count_format(const struct stack_count *c, struct strbuf *out);
#endif
