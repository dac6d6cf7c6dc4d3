/* SHA-256 (FIPS 180-4) and base64 (RFC 4648), for the HTML page's
 * Content-Security-Policy script hash. */
#ifndef PERFREPORT_SHA256_H
#define PERFREPORT_SHA256_H
#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t h[8];
    uint64_t len;     /* bytes hashed so far */
    uint8_t buf[64];
    size_t nbuf;
};
void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t n);
void sha256_final(struct sha256 *c, uint8_t out[32]);
void sha256(const void *data, size_t n, uint8_t out[32]);
/* Whether to use the CPU's SHA instructions when it has them (the default:
 * on); 0 forces the portable code (tests compare the two). */
void sha256_use_hw(int on);

/* Standard alphabet with '=' padding; out needs 4 * ((n + 2) / 3) + 1 bytes. */
void base64_encode(const uint8_t *in, size_t n, char *out);
#endif
