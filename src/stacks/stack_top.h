/* The top of an aggregated stack map as a table: rows of (process, kernel
 * stack id, user stack id, value, count) from a BPF map, resolved once,
 * summed per (process, function) where the function is the leaf-most named
 * user frame (where the program itself made the call or touched the page),
 * and written as the heaviest rows of a model table with columns pid,
 * process, function, <value>, <count>, share_pct (of every row's value) and
 * stack (the heaviest stack of the function, leaf first, a few frames). */
#ifndef PERFREPORT_STACK_TOP_H
#define PERFREPORT_STACK_TOP_H
#include <stddef.h>
#include <stdint.h>

struct stack_top;
struct stack_resolver;
struct table;

struct stack_top *stack_top_new(size_t nrows);
/* Row i (< nrows); comm is copied. */
void stack_top_set(struct stack_top *st, size_t i, uint32_t tgid, const char *comm,
                   int64_t kstack, int64_t ustack, double value, double count);
/* Fills t (columns already added) with the `max` heaviest functions by
 * value; value_col/count_col name the table's columns (count_col may be
 * NULL).  Returns the rows written. */
size_t stack_top_fill(struct stack_top *st, struct stack_resolver *sr, struct table *t,
                      const char *value_col, const char *count_col, size_t max);
void stack_top_free(struct stack_top *st);
#endif
