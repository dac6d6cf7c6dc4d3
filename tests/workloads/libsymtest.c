/* Shared library for symbolizer tests, linked at a non-zero base
 * (-Ttext-segment) so that p_vaddr != p_offset and load-bias arithmetic is
 * really exercised. */
static volatile unsigned long g_lib_sink;

const int symlib_fn_line = __LINE__ + 1;
__attribute__((noinline)) int symlib_fn(int x) { g_lib_sink += (unsigned)x; return (int)g_lib_sink; }

__attribute__((noinline)) int symlib_other(int x) { g_lib_sink ^= (unsigned)x; return (int)g_lib_sink; }
