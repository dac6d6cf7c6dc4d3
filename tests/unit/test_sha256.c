/* SHA-256 against the FIPS 180-4 / NIST example vectors; base64 against
 * RFC 4648 section 10. */
#include "harness.h"
#include "../../src/util/sha256.h"
#include <stdlib.h>

static void hex(const uint8_t d[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

TEST(sha256_fips_vectors)
{
    uint8_t d[32];
    char h[65];
    sha256("abc", 3, d);
    hex(d, h);
    CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha256("", 0, d);
    hex(d, h);
    CHECK_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256(two, strlen(two), d);
    hex(d, h);
    CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
                       "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    sha256(four, strlen(four), d);
    hex(d, h);
    CHECK_STR(h, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    /* one million 'a', fed in odd-sized pieces to cross block boundaries */
    char *a = malloc(1000000);
    REQUIRE(a);
    memset(a, 'a', 1000000);
    struct sha256 c;
    sha256_init(&c);
    for (size_t off = 0; off < 1000000;) {
        size_t k = 1000000 - off < 997 ? 1000000 - off : 997;
        sha256_update(&c, a + off, k);
        off += k;
    }
    sha256_final(&c, d);
    hex(d, h);
    CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

TEST(base64_rfc4648)
{
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *want[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char out[16];
        base64_encode((const uint8_t *)in[i], strlen(in[i]), out);
        CHECK_STR(out, want[i]);
    }
    uint8_t d[32];
    char b[45];
    sha256("abc", 3, d);
    base64_encode(d, 32, b);
    CHECK_STR(b, "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
}

/* The CPU's SHA instructions (when it has them) and the portable code agree
 * on every length around the block and padding boundaries, and on the FIPS
 * vectors above (which ran with the instructions where present). */
TEST(sha256_hw_matches_portable)
{
    if (!__builtin_cpu_supports("sha")) {
        test_skip("this CPU has no SHA instructions: only the portable code runs");
        return;
    }
    uint8_t buf[1100];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    for (size_t n = 0; n <= sizeof buf; n += n < 200 ? 1 : 37) {
        uint8_t a[32], b[32];
        sha256_use_hw(1);
        sha256(buf, n, a);
        sha256_use_hw(0);
        sha256(buf, n, b);
        sha256_use_hw(1);
        if (memcmp(a, b, 32) != 0) {
            test_fail(__FILE__, __LINE__, "length %zu: the two differ", n);
            return;
        }
    }
}
