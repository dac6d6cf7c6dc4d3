/* The one hash of src/'s in-memory tables.  Every table it serves is open
 * addressed and only looked up through it, never walked in slot order for
 * output (what is written is sorted or kept in insertion order), so the
 * hash's values change no output, only speed; tables take its low bits as
 * the index and some its high 32 bits as a tag.  Inline: the profile hashes
 * every frame name of every stack with it. */
#ifndef PERFREPORT_UTIL_HASH_H
#define PERFREPORT_UTIL_HASH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* n bytes at s: a multiply-xorshift per 8-byte word, then a final mix so
 * that both the low and the high bits depend on every byte. */
static inline uint64_t hash_bytes(const void *data, size_t n)
{
    const char *s = data;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        for (size_t k = 0; k < n; k++)
            w |= (uint64_t)(unsigned char)s[k] << (8 * k);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    }
    h ^= h >> 29;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 32);
}

static inline uint64_t hash_str(const char *s) { return hash_bytes(s, strlen(s)); }

/* A 64-bit key spread over all 64 bits (an xorshift-multiply finaliser). */
static inline uint64_t hash_u64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return h;
}

/* Two keys, order mattering: hash_pair(hash_pair(a, b), c) for three. */
static inline uint64_t hash_pair(uint64_t a, uint64_t b)
{
    return hash_u64(a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull));
}
#endif
