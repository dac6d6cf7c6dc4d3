/* Pure parsers behind the symbolizer: text in, arrays out (unit-tested on
 * fixture text).  Host-controlled names are kept byte for byte. */
#ifndef PERFREPORT_SYM_PARSE_H
#define PERFREPORT_SYM_PARSE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One /proc/kallsyms line.  name and module point into the parsed text. */
struct ksym {
    uint64_t addr;
    const char *name;
    const char *module; /* "[ext4]" as written, or NULL for the core kernel */
    char type;          /* 'T', 't', 'D', ... */
    uint32_t seq;       /* line number: tie-break among aliases */
};

/* Parses kallsyms text IN PLACE (writes NULs into text) into *out (caller
 * frees with free()), sorted by address (aliases in any order).
 * *all_zero is set when every address is 0 (kptr_restrict).  Returns the
 * number of entries. */
size_t sym_parse_kallsyms(char *text, struct ksym **out, bool *all_zero);
/* Index of the entry naming addr (a text symbol at or below it whose next
 * distinct symbol lies above it; among aliases text before data, global
 * before local, fewer leading underscores, then the earlier line), or -1. */
long sym_kallsyms_find(const struct ksym *k, size_t n, uint64_t addr);
bool sym_ksym_is_text(char type);

/* One /proc/PID/maps line. */
struct sym_map {
    uint64_t start, end, offset;
    unsigned dev_major, dev_minor;
    uint64_t inode;
    char perms[5];
    bool deleted;  /* " (deleted)" suffix, stripped from path */
    char *path;    /* owned; "" for anonymous mappings, "[heap]" style pseudo names kept */
};

/* One line (without its newline); returns 0 or -EINVAL.  out->path is
 * allocated only on success. */
int sym_parse_maps_line(const char *line, size_t len, struct sym_map *out);
/* Whole maps text: at most max entries (sorted by start) into *out; malformed
 * lines are skipped; *truncated set when entries were dropped.  Returns the
 * count; free with sym_maps_free(). */
size_t sym_parse_maps(const char *text, size_t max, struct sym_map **out, bool *truncated);
void sym_maps_free(struct sym_map *m, size_t n);
/* True for mappings backed by a file that could hold an ELF image. */
bool sym_map_is_file(const struct sym_map *m);
/* A mapping the kernel provides ([vdso], [vvar], [vsyscall], [uprobes]):
 * code in it is the kernel's, never a JIT's. */
bool sym_map_is_kernel_special(const struct sym_map *m);

/* One perf JIT map entry ("START SIZE name", hex).  name points into the text. */
struct jit_sym {
    uint64_t start, size;
    const char *name;
    size_t seq; /* line order: a later line wins over an earlier overlapping one */
};
/* Parses perf map text IN PLACE into *out (caller frees), sorted by start;
 * bad lines are skipped.  Returns the count. */
size_t sym_parse_perf_map(char *text, struct jit_sym **out);
/* The same, keeping at most max entries; *truncated set when a valid entry
 * was left out (then *out holds the first max). */
size_t sym_parse_perf_map_max(char *text, size_t max, struct jit_sym **out, bool *truncated);
/* Entry containing addr (latest line wins on overlap), or -1. */
long sym_perf_map_find(const struct jit_sym *j, size_t n, uint64_t addr);

/* Filesystem type of the mount with device MAJOR:MINOR in /proc/PID/mountinfo
 * text ("ext4", "fuse.sshfs") copied into out; false when no line has it. */
bool sym_mountinfo_fstype(const char *text, unsigned major, unsigned minor, char *out, size_t n);
#endif
