/* Wait-class tables.  Kept as data: a new kernel renaming a function (6.15
 * renamed pipe_read to anon_pipe_read) is a one-line change here. */
#include "waitclass.h"
#include "stacks.h"
#include <stdbool.h>
#include <string.h>

struct wc_name {
    const char *name;
    enum wait_class cls;
};

static bool has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Exact kernel function names. */
static const struct wc_name kexact[] = {
    /* disk I/O: page cache and buffer waits end in io_schedule */
    {"io_schedule", WC_IO}, {"io_schedule_timeout", WC_IO},
    {"folio_wait_bit_common", WC_IO}, {"folio_wait_bit", WC_IO},
    {"folio_wait_bit_killable", WC_IO}, {"folio_wait_writeback", WC_IO},
    {"__folio_lock", WC_IO}, {"__folio_lock_killable", WC_IO},
    {"wait_on_page_bit_common", WC_IO}, {"wait_on_page_writeback", WC_IO},
    {"__lock_page", WC_IO}, {"bit_wait_io", WC_IO}, {"__wait_on_buffer", WC_IO},
    {"submit_bio_wait", WC_IO}, {"blkdev_direct_IO", WC_IO}, {"__iomap_dio_rw", WC_IO},
    {"iomap_dio_rw", WC_IO}, {"ext4_sync_file", WC_IO}, {"file_write_and_wait_range", WC_IO},
    {"filemap_fdatawait_range", WC_IO}, {"__filemap_fdatawait_range", WC_IO},
    {"filemap_write_and_wait_range", WC_IO}, {"sync_inodes_sb", WC_IO},
    /* locks */
    {"futex_wait", WC_LOCK}, {"__futex_wait", WC_LOCK}, {"futex_do_wait", WC_LOCK}, {"futex_wait_queue", WC_LOCK},
    {"futex_wait_multiple", WC_LOCK}, {"futex_lock_pi", WC_LOCK},
    {"futex_wait_requeue_pi", WC_LOCK}, {"do_futex", WC_LOCK}, {"__x64_sys_futex", WC_LOCK},
    {"__x64_sys_futex_waitv", WC_LOCK}, {"rwsem_down_read_slowpath", WC_LOCK},
    {"rwsem_down_write_slowpath", WC_LOCK}, {"__mutex_lock", WC_LOCK},
    {"__mutex_lock_slowpath", WC_LOCK}, {"__mutex_lock_killable_slowpath", WC_LOCK},
    {"__mutex_lock_interruptible_slowpath", WC_LOCK}, {"__rt_mutex_slowlock", WC_LOCK},
    {"rt_mutex_slowlock", WC_LOCK}, {"rwbase_write_lock", WC_LOCK},
    {"percpu_rwsem_wait", WC_LOCK}, {"__percpu_down_read", WC_LOCK}, {"__down", WC_LOCK},
    {"__down_common", WC_LOCK}, {"__down_interruptible", WC_LOCK}, {"__down_killable", WC_LOCK},
    {"__down_timeout", WC_LOCK},
    /* network sockets */
    {"sk_wait_data", WC_NET}, {"__skb_wait_for_more_packets", WC_NET},
    {"__skb_recv_datagram", WC_NET}, {"__lock_sock", WC_NET}, {"lock_sock_nested", WC_NET},
    {"__sys_connect", WC_NET}, {"__sys_recvfrom", WC_NET},
    /* pipes and FIFOs: the process at the other end has not written/read yet */
    {"anon_pipe_read", WC_PIPE}, {"anon_pipe_write", WC_PIPE}, {"pipe_read", WC_PIPE},
    {"pipe_write", WC_PIPE}, {"pipe_wait_readable", WC_PIPE}, {"pipe_wait_writable", WC_PIPE},
    {"wait_for_partner", WC_PIPE}, {"fifo_open", WC_PIPE},
    /* other IPC: a local server or peer process */
    {"do_msgrcv", WC_IPC},
    {"do_msgsnd", WC_IPC}, {"do_semtimedop", WC_IPC}, {"wq_sleep", WC_IPC},
    {"eventfd_read", WC_IPC},
    /* a parent waiting for its children */
    {"do_wait", WC_CHILD}, {"kernel_wait4", WC_CHILD}, {"kernel_waitid", WC_CHILD},
    /* a listener waiting for the next connection (before the tcp_/inet_csk_ prefixes) */
    {"inet_csk_wait_for_connect", WC_IDLE}, {"inet_csk_accept", WC_IDLE},
    {"__sys_accept4", WC_IDLE}, {"do_accept", WC_IDLE}, {"unix_accept", WC_IDLE},
    /* event loops and terminals: waiting for something to do */
    {"ep_poll", WC_IDLE}, {"do_epoll_wait", WC_IDLE}, {"do_epoll_pwait", WC_IDLE},
    {"do_sys_poll", WC_IDLE}, {"do_poll", WC_IDLE}, {"do_select", WC_IDLE},
    {"core_sys_select", WC_IDLE}, {"io_cqring_wait", WC_IDLE}, {"read_events", WC_IDLE},
    {"inotify_read", WC_IDLE}, {"signalfd_dequeue", WC_IDLE}, {"do_sigtimedwait", WC_IDLE},
    {"sigsuspend", WC_IDLE}, {"__x64_sys_pause", WC_IDLE}, {"n_tty_read", WC_IDLE},
    /* sleeps */
    {"hrtimer_nanosleep", WC_SLEEP}, {"do_nanosleep", WC_SLEEP}, {"common_nsleep", WC_SLEEP},
    {"common_nsleep_timens", WC_SLEEP}, {"__x64_sys_nanosleep", WC_SLEEP},
    {"__x64_sys_clock_nanosleep", WC_SLEEP}, {"msleep", WC_SLEEP},
    {"msleep_interruptible", WC_SLEEP},
};

/* Whole subsystems, by their documented function-name prefix. */
static const struct wc_name kprefix[] = {
    {"blk_", WC_IO},  {"__blk_", WC_IO}, {"jbd2_", WC_IO},
    {"tcp_", WC_NET}, {"udp_", WC_NET},  {"udpv6_", WC_NET}, {"inet_csk_", WC_NET},
    {"inet_wait_for_connect", WC_NET}, {"sk_stream_", WC_NET},
    {"unix_", WC_IPC},
};

/* x86_64 syscall numbers, used when no kernel frame decided. */
static const struct {
    int nr;
    enum wait_class cls;
} sysnr[] = {
    {7, WC_IDLE},   /* poll */       {23, WC_IDLE},  /* select */
    {232, WC_IDLE}, /* epoll_wait */ {281, WC_IDLE}, /* epoll_pwait */
    {441, WC_IDLE}, /* epoll_pwait2 */ {271, WC_IDLE}, /* ppoll */
    {270, WC_IDLE}, /* pselect6 */   {34, WC_IDLE},  /* pause */
    {128, WC_IDLE}, /* rt_sigtimedwait */ {130, WC_IDLE}, /* rt_sigsuspend */
    {35, WC_SLEEP}, /* nanosleep */  {230, WC_SLEEP}, /* clock_nanosleep */
    {202, WC_LOCK}, /* futex */      {449, WC_LOCK}, /* futex_waitv */
    {455, WC_LOCK}, /* futex_wait */
    {42, WC_NET},   /* connect */    {43, WC_IDLE},  /* accept */
    {288, WC_IDLE}, /* accept4 */    {45, WC_NET},   /* recvfrom */
    {47, WC_NET},   /* recvmsg */    {299, WC_NET},  /* recvmmsg */
    {74, WC_IO},    /* fsync */      {75, WC_IO},    /* fdatasync */
    {162, WC_IO},   /* sync */       {306, WC_IO},   /* syncfs */
    {277, WC_IO},   /* sync_file_range */ {208, WC_IO}, /* io_getevents */
    {61, WC_CHILD}, /* wait4 */      {247, WC_CHILD}, /* waitid */
    {69, WC_IPC},   /* msgsnd */     {70, WC_IPC},   /* msgrcv */
    {65, WC_IPC},   /* semop */      {220, WC_IPC},  /* semtimedop */
    {243, WC_IPC},  /* mq_timedreceive */
};

/* The kernel handling a uprobe's breakpoint (a tracer's, perfreport's own
 * under -p): a wait below these is the probe's cost, not the program's. */
static const char *const probe_frames[] = {
    "uprobe_notify_resume", "handle_swbp", "find_active_uprobe_rcu", "find_active_uprobe",
};

/* Frames that show the thread took an exception (orig_ax = error code). */
static const char *const exception_frames[] = {
    "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", "handle_mm_fault",
};

/* User frames: glibc's mutex/rwlock slow paths versus its parking calls,
 * and the Go runtime's equivalents. */
static const struct {
    const char *name;
    enum futex_kind kind;
} uframes[] = {
    {"__lll_lock_wait", FK_MUTEX}, {"__lll_lock_wait_private", FK_MUTEX},
    {"pthread_mutex_lock", FK_MUTEX}, {"__pthread_mutex_lock", FK_MUTEX},
    {"___pthread_mutex_lock", FK_MUTEX}, {"__pthread_mutex_lock_full", FK_MUTEX},
    {"pthread_mutex_timedlock", FK_MUTEX}, {"__pthread_mutex_clocklock_common", FK_MUTEX},
    {"__pthread_mutex_cond_lock", FK_MUTEX}, {"__pthread_mutex_cond_lock_full", FK_MUTEX},
    {"pthread_rwlock_rdlock", FK_MUTEX}, {"pthread_rwlock_wrlock", FK_MUTEX},
    {"__pthread_rwlock_rdlock", FK_MUTEX}, {"__pthread_rwlock_wrlock", FK_MUTEX},
    {"__pthread_rwlock_rdlock_full64", FK_MUTEX}, {"__pthread_rwlock_wrlock_full64", FK_MUTEX},
    {"runtime.lock2", FK_MUTEX}, {"runtime.lockWithRank", FK_MUTEX},
    {"pthread_cond_wait", FK_PARK}, {"__pthread_cond_wait", FK_PARK},
    {"___pthread_cond_wait", FK_PARK}, {"__pthread_cond_wait_common", FK_PARK},
    {"pthread_cond_timedwait", FK_PARK}, {"___pthread_cond_timedwait", FK_PARK},
    {"__pthread_cond_timedwait", FK_PARK}, {"pthread_cond_clockwait", FK_PARK},
    {"__futex_abstimed_wait_common", FK_PARK}, {"__futex_abstimed_wait_cancelable64", FK_PARK},
    {"sem_wait", FK_PARK}, {"__new_sem_wait", FK_PARK}, {"__new_sem_wait_slow64", FK_PARK},
    {"sem_timedwait", FK_PARK}, {"sem_clockwait", FK_PARK}, {"pthread_join", FK_JOIN},
    {"__pthread_join", FK_JOIN}, {"___pthread_join", FK_JOIN},
    {"__pthread_clockjoin_ex", FK_JOIN}, {"pthread_timedjoin_np", FK_JOIN},
    {"pthread_clockjoin_np", FK_JOIN}, {"pthread_barrier_wait", FK_PARK},
    {"runtime.notesleep", FK_PARK}, {"runtime.notetsleep_internal", FK_PARK},
    {"runtime.mPark", FK_PARK}, {"runtime.stopm", FK_PARK},
};

/* Scheduler core: skipped when summarising, as is the stack-taking
 * machinery (stack_frame_is_tracing). */
static const char *const noise_exact[] = {
    "__schedule", "schedule", "schedule_idle", "schedule_preempt_disabled",
    "preempt_schedule_common",
};


const char *wait_class_name(enum wait_class c)
{
    static const char *const n[] = {"io",    "lock",  "net",   "ipc",  "idle", "sleep",
                                    "other", "child", "join", "park", "pipe", "probe"};
    return c < WC_COUNT ? n[c] : "?";
}

const char *wait_class_title(enum wait_class c)
{
    static const char *const n[] = {"disk I/O",
                                    "locks (futex/mutex)",
                                    "network sockets",
                                    "IPC (unix sockets, message queues)",
                                    "waiting for input (event loop, accept, terminal)",
                                    "sleep",
                                    "other",
                                    "waiting for child processes",
                                    "joining a thread",
                                    "parked workers (condition variable, semaphore)",
                                    "a pipe (a pipeline's other stage)",
                                    "uprobe handling (a tracer's breakpoints)"};
    return c < WC_COUNT ? n[c] : "?";
}

enum wait_class wait_class_from_name(const char *s)
{
    for (int c = 0; s && c < WC_COUNT; c++)
        if (strcmp(s, wait_class_name((enum wait_class)c)) == 0)
            return (enum wait_class)c;
    return WC_COUNT;
}

const char *futex_kind_name(enum futex_kind k)
{
    switch (k) {
    case FK_MUTEX: return "mutex";
    case FK_PARK: return "park";
    case FK_JOIN: return "join";
    case FK_UNKNOWN: break;
    }
    return "unknown";
}

/* glibc's futex wrappers, under condition variables, semaphores and joins
 * alike: a park unless a caller further up says which. */
static bool generic_futex_wrapper(const char *name)
{
    return strcmp(name, "__futex_abstimed_wait_common") == 0 ||
           strcmp(name, "__futex_abstimed_wait_cancelable64") == 0;
}

enum futex_kind futex_kind_of(const char *const *u, size_t n)
{
    enum futex_kind tentative = FK_UNKNOWN;
    for (size_t i = 0; i < n; i++) {
        if (!u[i])
            continue;
        /* glibc's debug info names internal calls by their hidden alias,
         * "__GI_" + the public name */
        const char *name = has_prefix(u[i], "__GI_") ? u[i] + 5 : u[i];
        for (size_t j = 0; j < sizeof uframes / sizeof uframes[0]; j++) {
            if (strcmp(name, uframes[j].name) != 0)
                continue;
            if (!generic_futex_wrapper(name))
                return uframes[j].kind;
            tentative = uframes[j].kind;
        }
    }
    return tentative;
}

int wait_frame_is_noise(const char *name)
{
    if (!name)
        return 1;
    for (size_t i = 0; i < sizeof noise_exact / sizeof noise_exact[0]; i++)
        if (strcmp(name, noise_exact[i]) == 0)
            return 1;
    return stack_frame_is_tracing(name);
}

static enum wait_class kernel_frame_class(const char *f)
{
    for (size_t j = 0; j < sizeof kexact / sizeof kexact[0]; j++)
        if (strcmp(f, kexact[j].name) == 0)
            return kexact[j].cls;
    for (size_t j = 0; j < sizeof kprefix / sizeof kprefix[0]; j++)
        if (has_prefix(f, kprefix[j].name))
            return kprefix[j].cls;
    return WC_COUNT;
}

enum wait_class wait_classify(const char *const *k, size_t nk, const char *const *u, size_t nu,
                              int syscall)
{
    if (syscall == WAIT_SYSCALL_JOIN)
        return WC_JOIN;
    enum wait_class c = WC_COUNT;
    bool exception = false;
    for (size_t i = 0; i < nk; i++) {
        if (!k[i])
            continue;
        for (size_t j = 0; j < sizeof probe_frames / sizeof probe_frames[0]; j++)
            if (strcmp(k[i], probe_frames[j]) == 0)
                return WC_PROBE;
        for (size_t j = 0; j < sizeof exception_frames / sizeof exception_frames[0]; j++)
            exception |= strcmp(k[i], exception_frames[j]) == 0;
        if (c == WC_COUNT)
            c = kernel_frame_class(k[i]);
    }
    if (c == WC_COUNT && !exception && syscall >= 0)
        for (size_t j = 0; j < sizeof sysnr / sizeof sysnr[0]; j++)
            if (sysnr[j].nr == syscall)
                c = sysnr[j].cls;
    if (c == WC_COUNT)
        return WC_OTHER;
    if (c == WC_LOCK) {
        enum futex_kind fk = futex_kind_of(u, nu);
        if (fk == FK_PARK)
            return WC_PARK;
        if (fk == FK_JOIN)
            return WC_JOIN;
    }
    return c;
}
