/* Test subject for the symbolizer: symtest [LIB.so]
 * Prints "NAME ADDR LINE" for known code locations, then "ready", and waits
 * until stdin closes.  Lines are __LINE__ values so tests need no hard-coded
 * numbers.  With LIB.so it dlopens the library (built at a non-zero link
 * base) and reports its function too. */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

static volatile unsigned long g_sink;
static int g_inline_line, g_call_line;

static const int sym_leaf_line = __LINE__ + 1;
__attribute__((noinline)) int sym_leaf(int x) { g_sink += (unsigned)x; return (int)g_sink; }

__attribute__((noinline)) static void *where(void) { return __builtin_return_address(0); }

static inline __attribute__((always_inline)) void *sym_inlined(int x)
{
    g_sink += (unsigned)x;
    void *r = where(); g_inline_line = __LINE__;
    g_sink += 1;
    return r;
}

__attribute__((noinline)) void *sym_outer(int x)
{
    void *r = sym_inlined(x); g_call_line = __LINE__;
    g_sink += 2;
    return r;
}

int main(int argc, char **argv)
{
    char *ret = sym_outer(1);
    printf("sym_leaf %p %d\n", (void *)sym_leaf, sym_leaf_line);
    printf("inline_site %p %d %d\n", (void *)(ret - 1), g_inline_line, g_call_line);
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW);
        void *fn = h ? dlsym(h, "symlib_fn") : NULL;
        int *line = h ? dlsym(h, "symlib_fn_line") : NULL;
        if (!fn || !line) {
            fprintf(stderr, "symtest: %s\n", dlerror());
            return 1;
        }
        printf("symlib_fn %p %d\n", fn, *line);
    }
    printf("ready\n");
    fflush(stdout);
    char buf[64];
    while (read(0, buf, sizeof buf) > 0)
        ;
    return 0;
}
