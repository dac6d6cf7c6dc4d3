/* Small pieces of writing files by descriptor, shared by the bundle, the
 * metrics file, the archive and the comparison. */
#ifndef PERFREPORT_FDIO_H
#define PERFREPORT_FDIO_H
#include <stddef.h>

/* Writes all of data to fd (EINTR retried).  Returns 0 or -errno. */
int fd_write_all(int fd, const char *data, size_t len);
/* A fresh unpredictable name "<prefix>XXXXXXXXXX" (getrandom, else the
 * clock and pid), for temp entries another user must not guess. */
void fd_random_name(char *out, size_t n, const char *prefix);
#endif
