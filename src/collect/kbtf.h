/* The kernel's BTF, read once per run for every BPF object's load.
 *
 * libbpf 1.1 (Debian 12) reads /sys/kernel/btf/vmlinux again for each
 * object it loads (CO-RE relocations, tp_btf targets).  That sysfs file
 * answers 4 KiB per read(): 5.5 MB took ~12 ms of CPU a load on the test
 * VM, eight loads a run, a quarter of an idle run's own CPU
 * (bench/RESULTS.md, 2026-11-25).  libbpf calls its exported
 * btf__load_vmlinux_btf() through its PLT, so kbtf.c defines that function
 * and libbpf's loads take it: the file is read once, and each call parses
 * a private copy of the bytes (~4 ms), which libbpf owns and frees as
 * before.  Where the file is missing or is not raw BTF, or after
 * kbtf_release(), libbpf's own function answers (found with
 * dlsym(RTLD_NEXT)).  A libbpf that bound the call internally would not
 * come here: its loads would be as slow as before, not different. */
#ifndef PERFREPORT_KBTF_H
#define PERFREPORT_KBTF_H
#include <stddef.h>
#include <stdint.h>

/* Upper bound on the kernel BTF read into memory (today's are 5-10 MB). */
#define KBTF_MAX_BYTES (64u << 20)

struct kbtf_stats {
    unsigned reads;  /* times the sysfs file was read whole */
    unsigned served; /* btf__load_vmlinux_btf() calls answered from memory */
    unsigned passed; /* calls passed on to libbpf's own function */
    size_t bytes;    /* size of the kernel BTF read */
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
