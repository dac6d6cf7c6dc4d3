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
/* Large arrays (tens of MiB filled at once, such as a profile's nodes) in an
 * anonymous mapping of their own that asks for transparent huge pages:
 * every fresh 4 KiB page costs a page fault, microseconds each and tens of
 * them in some VMs, more than the work done in the page; a 2 MiB page costs
 * one.  Without THP the array simply stays in small pages.  p NULL makes a
 * new array; otherwise old_size is the size p was made with.  Contents up to
 * the smaller size are kept, the rest reads as zeros. */
void *xbig_realloc(void *p, size_t old_size, size_t new_size);
void xbig_free(void *p, size_t size); /* NULL is fine */
char *xstrdup(const char *s);        /* NULL stays NULL */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);
#endif
