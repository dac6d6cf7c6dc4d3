/* A minimal protocol-buffers writer (wire format only, no schema): enough
 * for pprof's profile.proto.  Every call appends to a strbuf; a nested
 * message is built in its own strbuf and appended with pb_bytes().
 * Nothing is omitted for being zero: callers leave out default fields. */
#ifndef PERFREPORT_PROTOBUF_H
#define PERFREPORT_PROTOBUF_H
#include <stddef.h>
#include <stdint.h>

struct strbuf;

enum pb_wire { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

/* Base-128 varint, least significant group first. */
void pb_varint(struct strbuf *b, uint64_t v);
/* The key of a field: (field << 3) | wire type, as a varint. */
void pb_key(struct strbuf *b, uint32_t field, enum pb_wire wire);
/* uint64 / bool field. */
void pb_uint(struct strbuf *b, uint32_t field, uint64_t v);
/* int64 field: two's complement in a varint (a negative takes 10 bytes);
 * not sint64's zigzag, which profile.proto does not use. */
void pb_int(struct strbuf *b, uint32_t field, int64_t v);
/* Length-delimited field: a string, bytes or an encoded message. */
void pb_bytes(struct strbuf *b, uint32_t field, const void *data, size_t len);
/* Packed repeated uint64 (one length-delimited field of varints); nothing
 * when n == 0, as an empty repeated field is absent. */
void pb_packed(struct strbuf *b, uint32_t field, const uint64_t *v, size_t n);
#endif
