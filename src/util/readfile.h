/* Whole small files named by the user (option arguments), read with a size
 * cap: only regular files (a FIFO or a device would block or never end). */
#ifndef PERFREPORT_READFILE_H
#define PERFREPORT_READFILE_H
#include "strbuf.h"
#include <stddef.h>

/* Reads path into out (replacing its contents).  Returns 0, -errno, or
 * -EFBIG when the file is larger than max bytes, -EINVAL when it is not a
 * regular file. */
int read_small_file(const char *path, size_t max, struct strbuf *out);
/* Iterates over the lines of text[0..len): the next line is (*line, *n),
 * without its "\n" or "\r\n"; returns 0 at the end.  *pos starts at 0. */
int next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n);
#endif
