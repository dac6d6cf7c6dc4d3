/* Demangling through libiberty's callback interfaces: they allocate nothing
 * of their own and print through us, into a bounded buffer, and they stop
 * at their recursion limit on crafted input (DMGL_NO_RECURSE_LIMIT is not
 * set). */
#include "demangle.h"
#include <libiberty/demangle.h>
#include <string.h>

struct dm_out {
    char *buf;
    size_t cap, len; /* cap: usable bytes before the terminator */
    bool cut;
};

static void dm_put(const char *s, size_t n, void *opaque)
{
    struct dm_out *o = opaque;
    if (o->cut)
        return;
    if (n > o->cap - o->len) {
        n = o->cap - o->len;
        o->cut = true;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

bool sym_is_mangled(const char *name)
{
    /* _Z: Itanium C++ and Rust legacy; _R: Rust v0 */
    return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

bool sym_demangle(const char *name, char *out, size_t n)
{
    if (!sym_is_mangled(name) || !out || n < 8 || strnlen(name, SYM_DEMANGLE_IN_MAX + 1) >
                                                      SYM_DEMANGLE_IN_MAX)
        return false;
    char buf[SYM_DEMANGLE_OUT_MAX + 1];
    size_t cap = n - 1 < SYM_DEMANGLE_OUT_MAX ? n - 1 : SYM_DEMANGLE_OUT_MAX;
    struct dm_out o = {buf, cap, 0, false};
    /* Rust first: a legacy Rust name is also valid C++, which would keep its
     * hash as a last path segment ("...::h0123456789abcdef") */
    int ok = rust_demangle_callback(name, DMGL_PARAMS | DMGL_ANSI, dm_put, &o);
    if (!ok || o.len == 0) {
        o = (struct dm_out){buf, cap, 0, false};
        ok = name[1] == 'Z' &&
             cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI, dm_put, &o);
    }
    if (!ok || o.len == 0)
        return false;
    if (o.cut) { /* mark the cut, on a UTF-8 boundary (Rust v0 names decode
                  * punycode identifiers) */
        size_t p = o.len - 3;
        while (p > 0 && ((unsigned char)buf[p] & 0xC0) == 0x80)
            p--;
        memcpy(buf + p, "...", 3);
        o.len = p + 3;
    }
    memcpy(out, buf, o.len);
    out[o.len] = '\0';
    return true;
}
