/* Stack profiles as pprof profiles (github.com/google/pprof, profile.proto),
 * gzip-compressed as pprof, Pyroscope, Parca and Grafana read them.
 *
 * What goes in, from the model (struct profile through its public API):
 *  - per stack that folded_write() writes, one Sample per process that ran
 *    it (profile_sites.h: labels comm, pid, thread, cgroup, container) with
 *    that process's count, and one for what no process claims (a stack read
 *    from a folded file: the comm label only); together the stack's count,
 *    leaf first; the stack's process frame (kind "process") is not a
 *    location;
 *  - a Location per frame, except that an inline frame joins the location
 *    of the frame it was inlined into (Location.line: innermost first,
 *    as profile.proto asks); with the frame's site (profile_sites.h) its
 *    address and mapping;
 *  - a Function per frame name and source file (the site's file, else
 *    profile_node_source "file:line"), Line.line the site's line;
 *  - a Mapping per file the sites name (path, build-id, range, offset) and
 *    "[kernel]" and "[jit]" for kernel and JIT frames; user frames without
 *    a site (a profile read from a folded file) have none (mapping_id 0).
 * Strings are the names as they are, except bytes that are not UTF-8, which
 * become U+FFFD (proto3 readers refuse a profile over one such string).
 * Values: "samples" profiles (the on-CPU one) have samples/count and, when
 * the report has the sampling rate (metric profile.hz), cpu/nanoseconds =
 * samples x 1e9/hz; "us" profiles (off-CPU) have wait/nanoseconds.
 *
 * Renderer "pprof" writes <name>.pb.gz (flame_filename) for every profile:
 * the file the profile keeps (profile_keep_pprof: perfreport render), else
 * this encoding. */
#ifndef PERFREPORT_PPROF_H
#define PERFREPORT_PPROF_H
#include <stddef.h>

struct report;
struct profile;
struct strbuf;

/* The uncompressed profile.proto message of p into out (appended).  r gives
 * the window (time_nanos, duration_nanos) and the sampling rate; it may be
 * NULL (then neither is written). */
void pprof_encode(const struct report *r, const struct profile *p, struct strbuf *out);
/* gzip of data[0..len) into out (appended).  Returns 0, -EFBIG above 2 GiB
 * (zlib counts in 32 bits), or -ENOMEM/-EIO when zlib fails. */
int pprof_gzip(const char *data, size_t len, struct strbuf *out);
#endif
