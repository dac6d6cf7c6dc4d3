/* Wait classification on synthetic stacks, off-CPU and lock rules at their
 * thresholds' boundaries on synthetic models, --min-block-us parsing. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/stacks/waitclass.h"
#include "../../src/model/model.h"
#include "../../src/model/run_command.h"
#include "../../src/run/options.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

TEST(waitclass_kernel_stacks_from_this_kernel)
{
    /* leaf first, as captured on 6.18 (tracing frames included) */
    static const char *const pipe[] = {"bpf_prog_6deef7357e7b4530_offcpu_switch_btf",
                                       "__traceiter_sched_switch", "__schedule", "schedule",
                                       "anon_pipe_read", "vfs_read", "ksys_read",
                                       "do_syscall_64", "entry_SYSCALL_64_after_hwframe"};
    CHECK(wait_classify(pipe, N(pipe), NULL, 0, 0) == WC_PIPE);
    static const char *const nap[] = {"__schedule", "schedule", "do_nanosleep",
                                      "hrtimer_nanosleep", "common_nsleep",
                                      "__x64_sys_clock_nanosleep", "do_syscall_64"};
    CHECK(wait_classify(nap, N(nap), NULL, 0, 230) == WC_SLEEP);
    static const char *const fut[] = {"__schedule", "schedule", "futex_do_wait", "__futex_wait",
                                      "futex_wait", "do_futex", "__x64_sys_futex"};
    CHECK(wait_classify(fut, N(fut), NULL, 0, 202) == WC_LOCK);
    /* a thread of a threaded HTTP server under -p, stopped on an allocation
     * uprobe while a sibling mapped memory: the probe's cost, not a lock */
    static const char *const up[] = {"__schedule", "schedule", "rwsem_down_read_slowpath",
                                     "down_read", "find_active_uprobe_rcu",
                                     "uprobe_notify_resume", "irqentry_exit_to_user_mode",
                                     "asm_exc_int3"};
    static const char *const up_user[] = {"__lll_lock_wait", "malloc"};
    CHECK(wait_classify(up, N(up), up_user, N(up_user), 202) == WC_PROBE);
    /* the same futex wait under pthread_cond_wait is a parked thread */
    static const char *const cv[] = {"futex_wait", "__futex_abstimed_wait_common",
                                     "___pthread_cond_wait", "worker_loop"};
    CHECK(wait_classify(fut, N(fut), cv, N(cv), 202) == WC_PARK);
    /* ... under pthread_join a thread waiting for another to end */
    static const char *const jn[] = {"__futex_abstimed_wait_common", "__pthread_clockjoin_ex",
                                     "main"};
    CHECK(wait_classify(fut, N(fut), jn, N(jn), 202) == WC_JOIN);
    /* ... and so whatever the frames when the BPF program saw the futex
     * word was a sibling thread's exit word (clear_child_tid) */
    CHECK(wait_classify(fut, N(fut), NULL, 0, WAIT_SYSCALL_JOIN) == WC_JOIN);
    CHECK(wait_classify(NULL, 0, NULL, 0, WAIT_SYSCALL_JOIN) == WC_JOIN);
    /* a shell waiting for its children */
    static const char *const wt[] = {"__schedule", "schedule", "do_wait", "kernel_wait4",
                                     "__do_sys_wait4", "do_syscall_64"};
    CHECK(wait_classify(wt, N(wt), NULL, 0, 61) == WC_CHILD);
    CHECK(wait_classify(NULL, 0, NULL, 0, 247) == WC_CHILD); /* waitid, no stack */
    static const char *const io[] = {"__schedule", "schedule", "io_schedule",
                                     "folio_wait_bit_common", "filemap_get_pages",
                                     "filemap_read", "vfs_read"};
    CHECK(wait_classify(io, N(io), NULL, 0, 0) == WC_IO);
    static const char *const ep[] = {"__schedule", "schedule", "schedule_hrtimeout_range_clock",
                                     "do_epoll_wait", "__x64_sys_epoll_wait"};
    CHECK(wait_classify(ep, N(ep), NULL, 0, 232) == WC_IDLE);
    static const char *const tcp[] = {"__schedule", "schedule", "schedule_timeout",
                                      "wait_woken", "sk_wait_data", "tcp_recvmsg_locked",
                                      "tcp_recvmsg", "inet_recvmsg", "sock_recvmsg"};
    CHECK(wait_classify(tcp, N(tcp), NULL, 0, 45) == WC_NET);
    /* a listener waiting for its next connection is waiting for input */
    static const char *const acc[] = {"schedule", "schedule_timeout", "inet_csk_wait_for_connect",
                                      "inet_csk_accept", "inet_accept", "do_accept"};
    CHECK(wait_classify(acc, N(acc), NULL, 0, 43) == WC_IDLE);
    CHECK(wait_classify(NULL, 0, NULL, 0, 288) == WC_IDLE); /* accept4, no stack */
    static const char *const con[] = {"schedule", "schedule_timeout", "inet_wait_for_connect",
                                      "__inet_stream_connect"};
    CHECK(wait_classify(con, N(con), NULL, 0, 42) == WC_NET);
    static const char *const blk[] = {"schedule", "io_schedule", "blk_mq_get_tag"};
    CHECK(wait_classify(blk, N(blk), NULL, 0, -1) == WC_IO);
    static const char *const ux[] = {"schedule", "schedule_timeout", "unix_stream_data_wait",
                                     "unix_stream_read_generic", "sock_recvmsg"};
    CHECK(wait_classify(ux, N(ux), NULL, 0, 45) == WC_IPC); /* leaf-most decides, not sock_ */
    /* a kernel mutex inside a write: lock, not disk */
    static const char *const rw[] = {"schedule", "schedule_preempt_disabled",
                                     "rwsem_down_write_slowpath", "down_write",
                                     "ext4_buffered_write_iter", "vfs_write"};
    CHECK(wait_classify(rw, N(rw), NULL, 0, 1) == WC_LOCK);
}

TEST(waitclass_no_substring_matching)
{
    /* names that merely contain a known name or prefix do not match */
    static const char *const k[] = {"schedule", "my_futex_wait_helper", "xblk_thing",
                                     "not_anon_pipe_read", "ep_poll_callback_x"};
    CHECK(wait_classify(k, N(k), NULL, 0, -1) == WC_OTHER);
    static const char *const u[] = {"my_pthread_mutex_lock_wrapper", "cond_waiter"};
    CHECK(futex_kind_of(u, N(u)) == FK_UNKNOWN);
}

TEST(waitclass_syscall_fallback_and_exceptions)
{
    static const char *const missing[] = {"[missing kernel stack]"};
    CHECK(wait_classify(missing, 1, NULL, 0, 35) == WC_SLEEP);
    CHECK(wait_classify(NULL, 0, NULL, 0, 232) == WC_IDLE);
    CHECK(wait_classify(NULL, 0, NULL, 0, 74) == WC_IO);   /* fsync */
    CHECK(wait_classify(NULL, 0, NULL, 0, 0) == WC_OTHER); /* read: unknown fd type */
    CHECK(wait_classify(NULL, 0, NULL, 0, -1) == WC_OTHER);
    /* in a page fault orig_ax is the error code (6 would read as "close") */
    static const char *const pf[] = {"schedule", "schedule_timeout", "handle_mm_fault",
                                     "do_user_addr_fault", "exc_page_fault"};
    CHECK(wait_classify(pf, N(pf), NULL, 0, 35) == WC_OTHER);
}

TEST(waitclass_futex_kinds_and_names)
{
    static const char *const mx[] = {"futex_wait", "__GI___lll_lock_wait", "contend_on_lock"};
    CHECK(futex_kind_of(mx, N(mx)) == FK_MUTEX);
    static const char *const pk[] = {"futex_wait", "__futex_abstimed_wait_common",
                                     "___pthread_cond_wait", "pool_worker"};
    CHECK(futex_kind_of(pk, N(pk)) == FK_PARK);
    /* re-acquiring the mutex after a condvar wakeup is contention (leaf-most wins) */
    static const char *const re[] = {"__lll_lock_wait", "__pthread_mutex_cond_lock",
                                     "___pthread_cond_wait"};
    CHECK(futex_kind_of(re, N(re)) == FK_MUTEX);
    CHECK_STR(futex_kind_name(FK_PARK), "park");
    CHECK_STR(futex_kind_name(FK_JOIN), "join");
    static const char *const jn[] = {"futex_wait", "__futex_abstimed_wait_common",
                                     "___pthread_join", "main"};
    CHECK(futex_kind_of(jn, N(jn)) == FK_JOIN);
    for (int c = 0; c < WC_COUNT; c++) /* every class's name reads back */
        CHECK(wait_class_from_name(wait_class_name((enum wait_class)c)) == (enum wait_class)c);
    CHECK_STR(wait_class_name(WC_IPC), "ipc");
    CHECK(wait_class_from_name("sleep") == WC_SLEEP);
    CHECK(wait_class_from_name("nope") == WC_COUNT);
    CHECK(wait_frame_is_noise("__schedule"));
    CHECK(wait_frame_is_noise("bpf_prog_abc_offcpu_switch"));
    CHECK(!wait_frame_is_noise("schedule_timeout"));
}

TEST(options_min_block_us)
{
    struct options o;
    options_defaults(&o);
    CHECK(o.min_block_us == 1000);
    CHECK(options_set_min_block_us(&o, "250") == 0);
    CHECK(o.min_block_us == 250);
    CHECK(options_set_min_block_us(&o, "60000000") == 0);
    CHECK(o.min_block_us == 60000000);
    static const char *const bad[] = {"0", "-5", "", "12x", "1.5", " 7", "60000001",
                                      "99999999999999999999"};
    for (size_t i = 0; i < N(bad); i++) {
        CHECK(options_set_min_block_us(&o, bad[i]) == -1);
        CHECK(o.min_block_us == 60000000);
    }
    CHECK(options_set_min_block_us(&o, NULL) == -1);
}

/* ---- rules -------------------------------------------------------------- */

static const struct finding *find(const struct report *r, const char *id)
{
    return report_find_finding(r, id);
}

/* A target's 30 s window: `cls` blocked 10 s of thread time (or cls_s),
 * the rest of its working time on a CPU so that cls is `share` % of it
 * (profile samples at 100 Hz), plus the top stack row. */
static struct report *offcpu_model_s(const char *cls, double share, bool with_target, double cls_s,
                                     bool command)
{
    struct report *r = report_new();
    r->window.actual_s = 30;
    if (command) {
        r->command = run_command_new();
        r->command->line = strdup("make");
    }
    struct table *t = report_table(r, "offcpu.top_stacks", "x", "offcpu");
    static const char *const c[] = {"pid", "process", "class", "total_ms", "count", "stack"};
    for (size_t i = 0; i < N(c); i++)
        table_add_col(t, c[i], c[i], "", 1);
    size_t row = table_add_row(t);
    table_set_num(t, row, "pid", 123);
    table_set_str(t, row, "process", "reader");
    table_set_str(t, row, "class", cls);
    table_set_num(t, row, "total_ms", cls_s * 1000);
    table_set_num(t, row, "count", 1);
    table_set_str(t, row, "stack", "anon_pipe_read <- vfs_read <- ksys_read");
    if (with_target) {
        static const char *const all[] = {"io",    "lock",  "net",  "ipc",  "idle", "sleep",
                                          "other", "child", "join", "park", "pipe"};
        for (size_t i = 0; i < N(all); i++) {
            char m[64];
            snprintf(m, sizeof m, "offcpu.target.%s_ms", all[i]);
            report_metric(r, m, m, "ms", "offcpu", strcmp(all[i], cls) ? 0 : cls_s * 1000);
        }
        double cpu_s = cls_s * (100 - share) / share;
        report_metric(r, "profile.hz", "hz", "Hz", "profile", 100);
        report_metric(r, "profile.samples", "n", "", "profile", cpu_s * 100);
    }
    report_metric(r, "offcpu.total_ms", "t", "ms", "offcpu", cls_s * 1000);
    analyze_run(r);
    return r;
}

static struct report *offcpu_model(const char *cls, double share, bool with_target)
{
    return offcpu_model_s(cls, share, with_target, 10, false);
}

TEST(rules_offcpu_boundaries)
{
    static const struct {
        const char *cls, *id;
        enum severity at_warn, at_crit;
    } cases[] = {
        {"io", "offcpu.io_wait", SEV_WARNING, SEV_CRITICAL},
        {"lock", "offcpu.lock_wait", SEV_WARNING, SEV_CRITICAL},
        /* under -p a server's threads wait on sockets for requests too */
        {"net", "offcpu.net_wait", SEV_WARNING, SEV_WARNING},
        /* the cause is in the process at the other end */
        {"ipc", "offcpu.ipc_wait", SEV_WARNING, SEV_WARNING},
        /* a pipeline's stages wait on each other by design */
        {"pipe", "offcpu.ipc_wait", SEV_INFO, SEV_INFO},
        /* the program's own choice */
        {"sleep", "offcpu.sleep", SEV_INFO, SEV_INFO},
    };
    for (size_t k = 0; k < N(cases); k++) {
        struct report *r = offcpu_model(cases[k].cls, 49.9, true);
        CHECK(sev_of(r, cases[k].id) == SEV_NONE);
        report_free(r);
        r = offcpu_model(cases[k].cls, 50, true);
        CHECK(sev_of(r, cases[k].id) == cases[k].at_warn);
        report_free(r);
        r = offcpu_model(cases[k].cls, 80, true);
        CHECK(sev_of(r, cases[k].id) == cases[k].at_crit);
        report_free(r);
    }
    /* a command waiting on the network is waiting for its answers */
    struct report *r = offcpu_model_s("net", 80, true, 10, true);
    CHECK(sev_of(r, "offcpu.net_wait") == SEV_CRITICAL);
    report_free(r);
    r = offcpu_model("io", 96, true);
    const struct finding *f = find(r, "offcpu.io_wait");
    REQUIRE(f);
    CHECK_STR(f->title, "pid 123 (reader) waited on disk I/O for 96% of its working time (10.0 "
                        "of 10.4 s) in anon_pipe_read <- vfs_read <- ksys_read");
    bool thr = false;
    for (size_t i = 0; i < f->nevidence; i++)
        thr |= strstr(f->evidence[i], "80") != NULL;
    CHECK(thr);
    report_free(r);
    /* nothing without a target (an idle host sleeps) */
    r = offcpu_model("ipc", 100, false);
    CHECK(report_worst_severity(r) < SEV_WARNING);
    report_free(r);
    /* a process that barely runs and waited 2 s of a 30 s window on disk:
     * 95 % of its working time, but under a tenth of one thread's window */
    r = offcpu_model_s("io", 95, true, 2.9, false);
    CHECK(sev_of(r, "offcpu.io_wait") == SEV_NONE);
    report_free(r);
    r = offcpu_model_s("io", 95, true, 3, false);
    CHECK(sev_of(r, "offcpu.io_wait") == SEV_CRITICAL);
    report_free(r);
}

/* Waiting by design is not a problem: a shell waiting for its children, a
 * main thread joining its workers, a parked pool, an event loop, at any
 * share.  The time still shows in target.time, marked as such. */
TEST(rules_offcpu_waits_by_design_stay_quiet)
{
    static const char *const cls[] = {"child", "join", "park", "idle", "other"};
    for (size_t k = 0; k < N(cls); k++) {
        struct report *r = offcpu_model(cls[k], 99, true);
        CHECK(report_worst_severity(r) < SEV_WARNING);
        for (size_t i = 0; i < r->nfindings; i++)
            CHECK(strncmp(r->findings[i].id, "offcpu.", 7) != 0);
        const struct table *t = report_find_table(r, "target.time");
        REQUIRE(t && t->nrows == 2);
        CHECK_STR(table_str(t, 0, "state"), cls[k]);
        CHECK_NUM(table_num(t, 0, "share_pct"), 99, 1e-9);
        CHECK_STR(table_str(t, 0, "kind"), k < 4 ? "by design" : "unclassified");
        CHECK_STR(table_str(t, 1, "state"), "cpu");
        /* nothing wrong: the headline says where the time went */
        CHECK_CONTAINS(r->headline, "No problem found");
        CHECK_CONTAINS(r->headline, "The target's time: ");
        CHECK_CONTAINS(r->headline, k < 4 ? "99% (by design), running on a CPU 1%."
                                          : "other waits 99%, running on a CPU 1%.");
        report_free(r);
    }
}

static struct report *lock_model(const char *kind, double wait_pct, double count, double mean_ms)
{
    struct report *r = report_new();
    struct table *t = report_table(r, "lock.futex_waits", "x", "lock");
    static const char *const c[] = {"pid", "process", "kind", "op", "total_ms", "count",
                                    "max_ms", "mean_ms", "threads", "wait_pct", "stack"};
    for (size_t i = 0; i < N(c); i++)
        table_add_col(t, c[i], c[i], "", 1);
    /* the process's wait split over two rows of the same kind */
    for (int i = 0; i < 2; i++) {
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", 77);
        table_set_str(t, row, "process", "mutexfight");
        table_set_str(t, row, "kind", kind);
        table_set_str(t, row, "op", "FUTEX_WAIT");
        table_set_num(t, row, "total_ms", count * mean_ms / 2);
        table_set_num(t, row, "count", count / 2);
        table_set_num(t, row, "max_ms", mean_ms * 4);
        table_set_num(t, row, "mean_ms", mean_ms);
        table_set_num(t, row, "threads", 4);
        table_set_num(t, row, "wait_pct", wait_pct / 2);
        table_set_str(t, row, "stack", i ? "futex_wait <- __lll_lock_wait <- other_fn"
                                         : "futex_wait <- __lll_lock_wait <- contend_on_lock");
    }
    analyze_run(r);
    return r;
}

TEST(rules_lock_contention_boundaries_and_parks)
{
    struct report *r = lock_model("mutex", 19.9, 1000, 0.5);
    CHECK(sev_of(r, "lock.contention") == SEV_NONE);
    report_free(r);
    r = lock_model("mutex", 20, 1000, 0.5);
    CHECK(sev_of(r, "lock.contention") == SEV_WARNING);
    report_free(r);
    r = lock_model("mutex", 50, 1000, 0.5);
    CHECK(sev_of(r, "lock.contention") == SEV_CRITICAL);
    const struct finding *f = find(r, "lock.contention");
    REQUIRE(f);
    CHECK_CONTAINS(f->title, "mutexfight (pid 77)");
    CHECK_CONTAINS(f->title, "contend_on_lock");
    report_free(r);
    /* a pool parked on a condition variable is never contention */
    r = lock_model("park", 95, 1000, 0.5);
    CHECK(sev_of(r, "lock.contention") == SEV_NONE);
    report_free(r);
    /* unknown stacks need many short waits: one long park is not contention */
    r = lock_model("unknown", 95, 2, 1500);
    CHECK(sev_of(r, "lock.contention") == SEV_NONE);
    report_free(r);
    r = lock_model("unknown", 95, 98, 1); /* 49 waits per stack row < 50 */
    CHECK(sev_of(r, "lock.contention") == SEV_NONE);
    report_free(r);
    r = lock_model("unknown", 95, 100, 10); /* 50 waits per stack row, mean 10: at both limits */
    CHECK(sev_of(r, "lock.contention") == SEV_CRITICAL);
    report_free(r);
    r = lock_model("unknown", 95, 1000, 10.5);
    CHECK(sev_of(r, "lock.contention") == SEV_NONE);
    report_free(r);
}
