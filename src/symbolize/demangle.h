/* Readable names for mangled C++ and Rust (legacy and v0) symbols, by
 * libiberty's demanglers, as perf shows them. */
#ifndef PERFREPORT_SYM_DEMANGLE_H
#define PERFREPORT_SYM_DEMANGLE_H
#include <stdbool.h>
#include <stddef.h>

/* Mangled names longer than this are shown as they are: a symbol table is
 * the user's, and the demangler's work grows with its input. */
#define SYM_DEMANGLE_IN_MAX 1024
/* A demangled name is cut at this many bytes (ending in "..."). */
#define SYM_DEMANGLE_OUT_MAX 1024

/* true when `name` looks mangled (the demangler is worth a call). */
bool sym_is_mangled(const char *name);
/* The demangled form of `name` into out (n >= 8 bytes; at most
 * SYM_DEMANGLE_OUT_MAX characters and the terminator are written); false,
 * out untouched, when it is not a valid mangled name, is too long, or n is
 * under 8.  Rust names lose their hash, C++ names keep their parameters. */
bool sym_demangle(const char *name, char *out, size_t n);
#endif
