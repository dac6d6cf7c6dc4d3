/* Lines of a stream with a bound on what one line may cost: a line longer
 * than max is returned cut to max + 1 bytes (so the caller sees it is too
 * long) and the rest of it is read and thrown away.  The reader owns its
 * buffers; lr_free() releases them, not the FILE. */
#ifndef PERFREPORT_LINE_READER_H
#define PERFREPORT_LINE_READER_H
#include "strbuf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct line_reader {
    FILE *f;
    size_t max;
    char *buf;          /* read buffer */
    size_t pos, len;
    struct strbuf line; /* a line that spans reads */
    bool eof, err;
};

void lr_init(struct line_reader *r, FILE *f, size_t max);
/* 1: *line and *len hold the next line without its "\n" (valid until the next
 * call); 0: end of input; -1: read error (errno as fread left it). */
int lr_next(struct line_reader *r, const char **line, size_t *len);
void lr_free(struct line_reader *r);
#endif
