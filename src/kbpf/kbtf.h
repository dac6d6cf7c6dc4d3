/* The kernel's BTF, read and parsed once per run for every BPF object's load.
 *
 * libbpf 1.1 (Debian 12) reads /sys/kernel/btf/vmlinux again for each
 * object it loads (CO-RE relocations, tp_btf targets).  That sysfs file
 * answers 4 KiB per read(): 5.5 MB took ~12 ms of CPU a load on the test
 * VM, eight loads a run, a quarter of an idle run's own CPU
 * (bench/RESULTS.md, 2026-11-25).  libbpf calls its exported
 * btf__load_vmlinux_btf() through its PLT, so kbtf.c defines that function
 * and libbpf's loads take it: the file is read once.  Parsing a private copy
 * for each load still cost 20-30 ms of first-touch page faults on a thread
 * whose memory was fresh (2026-11-25), so every load gets the same parsed
 * BTF.  libbpf only reads the kernel's BTF (type lookups, candidates for
 * CO-RE relocations, the base of module BTFs) and gives it back with
 * btf__free() at the end of bpf_object__load(), which it also calls
 * through its PLT (Debian's libbpf.so.1: 17 call sites, none bound
 * inside); kbtf.c defines btf__free too, counts the shared BTF's users down
 * and passes every other BTF on to libbpf.  Both functions are exported
 * alike, so a libbpf that bound its calls internally would bind both and
 * never come here: its loads would be as slow as before, not unsafe.
 * Where the file is missing or is not raw BTF, or after kbtf_release(),
 * libbpf's own functions answer (found with dlsym(RTLD_NEXT)). */
#ifndef PERFREPORT_KBTF_H
#define PERFREPORT_KBTF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Upper bound on the kernel BTF read into memory (today's are 5-10 MB). */
#define KBTF_MAX_BYTES (64u << 20)

struct kbtf_stats {
    unsigned reads;  /* times the sysfs file was read whole */
    unsigned parses; /* times the bytes were parsed (1 while all goes well) */
    unsigned served; /* btf__load_vmlinux_btf() calls given the shared BTF */
    unsigned passed; /* calls passed on to libbpf's own function */
    unsigned unfreed; /* btf__free calls with no libbpf function to pass them to
                       * (dlsym found none: cannot happen with a shared libbpf,
                       * which is the only kind that links beside kbtf.c) */
    size_t bytes;    /* size of the kernel BTF read */
    bool mapped;     /* the file was mapped (kernels from 6.16), not read */
};

/* The raw kernel BTF, read on the first call and kept until kbtf_release().
 * NULL (errno set) when /sys/kernel/btf/vmlinux is missing, too large or
 * not raw BTF.  Every successful call must be paired with kbtf_raw_put(),
 * after which the bytes may go. */
const uint8_t *kbtf_raw_get(size_t *len);
void kbtf_raw_put(void);
/* The string section of bytes from kbtf_raw_get (names, each NUL-ended). */
const char *kbtf_str_section(const uint8_t *raw, size_t *len);
/* Frees the bytes once their last user is done; later loads go to libbpf's
 * own reader.  The runner calls it when the BPF collectors have started. */
void kbtf_release(void);
void kbtf_get_stats(struct kbtf_stats *out);

#endif
