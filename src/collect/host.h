/* Parsers behind the "host" collector, pure functions over file text so
 * unit tests can feed them fixture contents. */
#ifndef PERFREPORT_COLLECT_HOST_H
#define PERFREPORT_COLLECT_HOST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Number of CPUs/nodes in a kernel range list such as "0-3,8,10-11";
 * -1 when the text is not a range list.  "" (or "\n") is 0. */
long host_parse_range_count(const char *list);

/* PRETTY_NAME of an os-release text (quotes and escapes undone); falls back
 * to NAME and VERSION.  false when neither is there. */
bool host_parse_os_release(const char *text, char *out, size_t n);

/* First "model name" of /proc/cpuinfo (x86; also "Processor"/"cpu model"
 * on some other architectures).  false when absent. */
bool host_parse_cpu_model(const char *cpuinfo, char *out, size_t n);

/* A "Key:   N kB" line of /proc/meminfo, in KiB.  0 or -ENOENT/-EINVAL. */
int host_parse_meminfo_kib(const char *meminfo, const char *key, uint64_t *kib);

/* First number of /proc/uptime, seconds.  0 or -EINVAL. */
int host_parse_uptime(const char *text, double *seconds);

/* "btime N" of /proc/stat.  0 or -ENOENT. */
int host_parse_btime(const char *stat, time_t *btime);


#endif
