/* Shared by the libFuzzer targets: input copies sized so that ASan catches
 * a parser reading one byte too far. */
#ifndef PERFREPORT_FUZZ_H
#define PERFREPORT_FUZZ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* NUL-terminated copy (caller frees).  An embedded NUL simply ends the text,
 * as it would for a C-string parser reading a real file. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Exact-size copy without terminator, for (text, len) parsers. */
static inline char *fuzz_bytes(const uint8_t *data, size_t size)
{
    char *s = malloc(size ? size : 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    return s;
}

/* Invariant violated: say which, then trap (libFuzzer saves the input). */
#define FUZZ_ASSERT(c)                                                                         \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c);          \
            __builtin_trap();                                                                  \
        }                                                                                      \
    } while (0)
#endif
