/* Allocation wrappers: out of memory is not recoverable for a one-shot
 * report tool, so these print a message and exit(3) instead of returning NULL. */
#ifndef PERFREPORT_XALLOC_H
#define PERFREPORT_XALLOC_H
#include <stddef.h>
#include <stdarg.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows *arr (elements of size `size`) so that index `need-1` fits. */
void xgrow(void *arrp, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);        /* NULL stays NULL */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);
#endif
