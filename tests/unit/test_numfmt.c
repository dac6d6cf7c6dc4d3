/* strbuf's number formatters must write exactly what printf writes: the
 * SVG goldens and every chart depend on the digits. */
#include "harness.h"
#include "../../src/util/strbuf.h"
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int fixed_matches(double v, int decimals)
{
    char want[512];
    snprintf(want, sizeof want, "%.*f", decimals, v);
    struct strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '>'); /* appends, after what is there */
    sb_add_fixed(&sb, v, decimals);
    int ok = sb.buf[0] == '>' && strcmp(sb.buf + 1, want) == 0;
    if (!ok)
        test_fail(__FILE__, __LINE__, "%%.%df of %.17g: \"%s\", printf says \"%s\"", decimals, v,
                  sb.buf + 1, want);
    sb_free(&sb);
    return ok;
}

TEST(numfmt_fixed_like_printf)
{
    /* exact ties round to even; near-ties by their binary value */
    static const double special[] = {0,      0.125,  0.375,  2.5,    3.5,     0.05,    0.15,
                                     0.25,   1.005,  1.015,  1.025,  2.675,   1e-300,  0.0049999,
                                     0.995,  9.995,  99.995, 1179.99, 1180,   0.1,     12.345,
                                     0.5,    1.5,    1e9,    3.999999e9, 123456.785, 0.45, 0.55};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        for (int d = 0; d <= 6; d++)
            fixed_matches(special[i], d);
    /* outside the fast range: printf itself */
    static const double odd[] = {-0.0, -1.25, 1e20, 5e9, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
        for (int d = 0; d <= 2; d++)
            fixed_matches(odd[i], d);
    /* what the flame graph writes: x and widths of count / total * usable px */
    uint64_t s = 12345;
    int bad = 0;
    for (int i = 0; i < 200000 && bad < 5; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double v;
        switch (i % 4) {
        case 0: v = (double)(s >> 40) * (1180.0 / 1000000.0); break;
        case 1: v = (double)(s >> 11) / (double)(1ull << 53) * 2000; break;
        case 2: v = (double)((s >> 20) % 100000) / 1000.0; break; /* decimal-looking, near ties */
        default: v = (double)((s >> 30) % 2000000) / 200.0; break;   /* k/200: many exact .xx5 */
        }
        bad += !fixed_matches(v, 1 + i % 2);
    }
    CHECK(bad == 0);
}

TEST(numfmt_u64_and_addf_growth)
{
    static const unsigned long long v[] = {0, 7, 10, 999, 1000, 1234567890123ull, ULLONG_MAX};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char want[32];
        snprintf(want, sizeof want, "%llu", v[i]);
        struct strbuf sb = STRBUF_INIT;
        sb_add_u64(&sb, v[i]);
        CHECK_STR(sb_str(&sb), want);
        sb_free(&sb);
    }
    /* sb_addf formats into free space first: text that does not fit, that
     * exactly fits, and many appends in a row */
    struct strbuf sb = STRBUF_INIT;
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sb_addf(&sb, "%s", "ab");
    sb_addf(&sb, "[%s]", big);
    CHECK_NUM(sb.len, 2 + 301, 0);
    CHECK(sb.buf[0] == 'a' && sb.buf[2] == '[' && sb.buf[sb.len - 1] == ']' && sb.buf[sb.len] == '\0');
    sb_reset(&sb);
    size_t room = sb.cap - 1; /* leaves the terminating NUL */
    char exact[1024];
    REQUIRE(room < sizeof exact);
    memset(exact, 'y', room);
    exact[room] = '\0';
    sb_addf(&sb, "%s", exact);
    CHECK_NUM(sb.len, room, 0);
    CHECK(strcmp(sb.buf, exact) == 0);
    sb_reset(&sb);
    for (int i = 0; i < 1000; i++)
        sb_addf(&sb, "%d,", i);
    CHECK(strncmp(sb.buf, "0,1,2,", 6) == 0 && strstr(sb.buf, ",998,999,") != NULL);
    CHECK_NUM(sb.len, 10 * 2 + 90 * 3 + 900 * 4, 0);
    sb_free(&sb);
}
