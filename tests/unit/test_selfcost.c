/* perfreport's BPF programs' run time (src/collect/selfcost.c). */
#include "harness.h"
#include "kbpf/selfcost.h"
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

TEST(selfcost_fdinfo_fields)
{
    /* as a 6.x kernel shows a program's fdinfo */
    const char *prog = "pos:\t0\nflags:\t02000002\nmnt_id:\t16\nino:\t1057\n"
                       "prog_type:\t1\nprog_jited:\t1\nprog_tag:\t4d3f8ae2a5b3b1c5\n"
                       "memlock:\t4096\nprog_id:\t731\nrun_time_ns:\t123456\nrun_cnt:\t42\n"
                       "recursion_misses:\t0\nverified_insns:\t2\n";
    uint32_t id;
    uint64_t ns, runs;
    CHECK(selfcost_parse_fdinfo(prog, &id, &ns, &runs));
    CHECK_NUM(id, 731, 0);
    CHECK_NUM(ns, 123456, 0);
    CHECK_NUM(runs, 42, 0);
    /* an older kernel without the statistics: a program, nothing counted */
    CHECK(selfcost_parse_fdinfo("prog_type:\t1\nprog_tag:\tab\nprog_id:\t9\n", &id, &ns, &runs));
    CHECK_NUM(id, 9, 0);
    CHECK_NUM(ns + runs, 0, 0);
    /* a map's fdinfo is not a program's */
    CHECK(!selfcost_parse_fdinfo("map_type:\t1\nkey_size:\t4\nmap_id:\t5\n", &id, &ns, &runs));
    /* a garbled number is not taken */
    CHECK(selfcost_parse_fdinfo("prog_type:\t1\nprog_tag:\tab\nrun_time_ns:\t12x\n", &id, &ns,
                                &runs));
    CHECK_NUM(ns, 0, 0);
}

/* A program of ours run 1000 times with statistics on (enabled through
 * BPF_ENABLE_STATS, which turns them off again when its fd closes) is
 * found and its runs counted; another load of the same code is a second
 * program, the same program's second fd is not counted twice. */
TEST(selfcost_counts_our_program)
{
    if (running_on_valgrind()) {
        test_skip("bpf() under valgrind");
        return;
    }
    if (geteuid() != 0) {
        test_skip("needs root to load a BPF program");
        return;
    }
    struct bpf_cost before;
    CHECK_NUM(selfcost_bpf(&before), 0, 0);
    struct bpf_insn insns[] = {
        {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
        {.code = BPF_JMP | BPF_EXIT},
    };
    int prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "selfcost_t", "GPL", insns, 2, NULL);
    if (prog < 0) {
        test_skip("bpf_prog_load failed");
        return;
    }
    int again = dup(prog);
    int stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
    char data[64] = {0};
    LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = data, .data_size_in = sizeof data,
                .repeat = 1000);
    int rc = bpf_prog_test_run_opts(prog, &run);
    struct bpf_cost c;
    CHECK_NUM(selfcost_bpf(&c), 0, 0);
    CHECK_NUM(c.progs, before.progs + 1, 0);
    if (stats >= 0 && rc == 0) {
        CHECK(c.stats_on);
        CHECK(c.runs >= before.runs + 1000);
        CHECK(c.run_ns > before.run_ns);
    }
    if (stats >= 0)
        close(stats);
    close(again);
    close(prog);
}
