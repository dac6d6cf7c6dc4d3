/* Demangled names: C++ (Itanium), Rust legacy and Rust v0 as perf shows
 * them; anything else, too long or malformed, left as it is. */
#include "harness.h"
#include "../../src/symbolize/demangle.h"
#include <string.h>

static const char *dm(const char *in)
{
    static char out[SYM_DEMANGLE_OUT_MAX + 1];
    return sym_demangle(in, out, sizeof out) ? out : NULL;
}

TEST(demangle_cxx_with_parameters)
{
    CHECK_STR(dm("_ZN6prtest7SpinnerImE4spinEm"),
              "prtest::Spinner<unsigned long>::spin(unsigned long)");
    CHECK_STR(dm("_ZNSt6vectorIiSaIiEE9push_backERKi"),
              "std::vector<int, std::allocator<int> >::push_back(int const&)");
    /* a compiler's clone keeps its suffix, readable */
    CHECK_STR(dm("_ZN3foo3barEv.cold"), "foo::bar() [clone .cold]");
}

TEST(demangle_rust_legacy_drops_the_hash)
{
    CHECK_STR(dm("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
    CHECK_STR(dm("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h5a2c2b2e0d8f8e9aE"),
              "std::rt::lang_start::{{closure}}");
}

TEST(demangle_rust_v0)
{
    CHECK_STR(dm("_RNvNtCs1234_7mycrate3foo3bar"), "mycrate::foo::bar");
    CHECK_STR(dm("_RNvCs15kBYyAo9fc_7mycrate7example"), "mycrate::example");
}

TEST(demangle_leaves_other_names)
{
    CHECK(dm("main") == NULL);
    CHECK(dm("_start") == NULL);
    CHECK(dm("_Z") == NULL);
    CHECK(dm("_R") == NULL);
    CHECK(dm("_Zgarbage") == NULL);
    CHECK(dm("") == NULL);
    CHECK(!sym_is_mangled(NULL));
    char out[64];
    strcpy(out, "untouched");
    CHECK(!sym_demangle("not_mangled", out, sizeof out));
    CHECK_STR(out, "untouched");
}

/* A symbol table is the user's: a name past the input bound is not fed to
 * the demangler, and a long result is cut, marked, within the buffer. */
TEST(demangle_bounds_hostile_names)
{
    char in[SYM_DEMANGLE_IN_MAX + 64];
    strcpy(in, "_ZN");
    size_t n = 3;
    while (n + 5 < sizeof in - 2) {
        memcpy(in + n, "3abc", 4);
        n += 4;
    }
    strcpy(in + n, "Ev");
    CHECK(strlen(in) > SYM_DEMANGLE_IN_MAX);
    CHECK(dm(in) == NULL);
    /* within the input bound, a result larger than the caller's buffer */
    char small[32];
    CHECK(sym_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", small, sizeof small));
    CHECK(strlen(small) == sizeof small - 1);
    CHECK(strcmp(small + strlen(small) - 3, "...") == 0);
    /* substitutions that refer to nothing yet are refused */
    CHECK(dm("_ZN1aS_S_S_S_S_S_S_S_S_S_S_S_S_S_S_E") == NULL);
}
