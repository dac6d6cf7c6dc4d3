/* /proc/PID/{stat,statm,limits,cmdline} and file-nr parsers.  They take
 * (text, len), so the copy has no terminator: a read past len is caught. */
#include "fuzz.h"
#include "collect/procs/procs.h"

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_bytes(data, size);
    struct pid_stat st;
    if (proc_parse_stat(text, size, &st) == 0)
        FUZZ_ASSERT(strlen(st.comm) <= PROC_COMM_MAX);
    uint64_t a, b;
    proc_parse_statm(text, size, &a, &a);
    proc_parse_limits_nofile(text, size, &a);
    proc_parse_file_nr(text, size, &a, &b);
    proc_parse_kib_field(text, size, "MemTotal", &a);
    proc_parse_kib_field(text, size, "RssAnon", &b);

    char out[PROC_CMDLINE_BYTES + 1];
    memset(out, 0x5a, sizeof out);
    proc_format_cmdline(text, size, "comm", out);
    size_t ol = strnlen(out, sizeof out);
    FUZZ_ASSERT(ol < sizeof out);
    FUZZ_ASSERT(utf8_chars(out) <= PROC_CMDLINE_KEEP + 2); /* "[comm]" aside */
    for (size_t i = 0; i < ol; i++)
        FUZZ_ASSERT(out[i] != '\0');
    free(text);
    return 0;
}
