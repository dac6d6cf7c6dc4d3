#include "protobuf.h"
#include "../util/strbuf.h"

/* A varint is at most 10 bytes (64 bits in groups of 7). */
#define PB_VARINT_MAX 10

static size_t varint_encode(uint8_t out[PB_VARINT_MAX], uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

void pb_varint(struct strbuf *b, uint64_t v)
{
    uint8_t tmp[PB_VARINT_MAX];
    size_t n = varint_encode(tmp, v);
    sb_addn(b, (const char *)tmp, n);
}

void pb_key(struct strbuf *b, uint32_t field, enum pb_wire wire)
{
    pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void pb_uint(struct strbuf *b, uint32_t field, uint64_t v)
{
    pb_key(b, field, PB_VARINT);
    pb_varint(b, v);
}

void pb_int(struct strbuf *b, uint32_t field, int64_t v)
{
    pb_uint(b, field, (uint64_t)v);
}

void pb_bytes(struct strbuf *b, uint32_t field, const void *data, size_t len)
{
    pb_key(b, field, PB_LEN);
    pb_varint(b, len);
    if (len)
        sb_addn(b, data, len);
}

void pb_packed(struct strbuf *b, uint32_t field, const uint64_t *v, size_t n)
{
    if (!n)
        return;
    size_t len = 0;
    uint8_t tmp[PB_VARINT_MAX];
    for (size_t i = 0; i < n; i++)
        len += varint_encode(tmp, v[i]);
    pb_key(b, field, PB_LEN);
    pb_varint(b, len);
    for (size_t i = 0; i < n; i++)
        pb_varint(b, v[i]);
}
