/* Wait classes of off-CPU time and futex waits, decided from frame names
 * (pure functions; tests call them on synthetic stacks).
 *
 * Matching is on exact function names from the tables in waitclass.c, plus
 * a few documented whole-subsystem prefixes ("blk_", "jbd2_", "tcp_",
 * "unix_" ...); never on arbitrary substrings.  Kernel frames are scanned
 * leaf first and the first frame in a table decides, so the most specific
 * reason wins (a mutex taken inside a write is lock, not disk). */
#ifndef PERFREPORT_WAITCLASS_H
#define PERFREPORT_WAITCLASS_H
#include <stddef.h>

enum wait_class {
    WC_IO = 0, /* disk: page/buffer/writeback waits, block layer, fsync */
    WC_LOCK,   /* futex (mutex/rwlock/unknown) and kernel mutex/rwsem slow paths */
    WC_NET,    /* TCP/UDP/inet sockets: recv, connect, send buffer */
    WC_IPC,    /* unix sockets, SysV/POSIX queues, eventfd: another local process */
    WC_IDLE,   /* waiting for input: event loops (epoll/poll/select), accept, a terminal */
    WC_SLEEP,  /* nanosleep and friends: the program chose to wait */
    WC_OTHER,
    WC_CHILD,  /* wait4/waitid: a parent waiting for its children */
    WC_JOIN,   /* pthread_join: waiting for a thread to finish */
    WC_PARK,   /* a worker parked on a condition variable or semaphore: waiting for work */
    WC_PIPE,   /* a pipe or FIFO: a pipeline stage waiting for the next or the previous */
    WC_PROBE,  /* in the kernel's uprobe handling: a tracer's breakpoint, perfreport's own */
    WC_COUNT
};

/* The syscall number a wait carries when it is a futex wait on a sibling
 * thread's exit (its clear_child_tid word: pthread_join); set by the BPF
 * program (bpf/offcpu.h), never a real syscall number. */
#define WAIT_SYSCALL_JOIN (-2)

/* "io" "lock" "net" "ipc" "idle" "sleep" "other" "child" "join" "park" "pipe" "probe" */
const char *wait_class_name(enum wait_class c);
const char *wait_class_title(enum wait_class c); /* "disk I/O", "pipe/IPC" ... */
/* Class of a name from wait_class_name(), or WC_COUNT. */
enum wait_class wait_class_from_name(const char *s);

/* How a futex wait looks from user space. */
enum futex_kind {
    FK_UNKNOWN = 0, /* no recognised frame (stripped code, other runtimes) */
    FK_MUTEX,       /* a mutex/rwlock slow path: contention */
    FK_PARK,        /* condition variable, semaphore, barrier: idle parking */
    FK_JOIN,        /* pthread_join: waiting for a thread to end */
};
const char *futex_kind_name(enum futex_kind k); /* "unknown" "mutex" "park" "join" */
/* Leaf-first user frames -> kind (first recognised frame decides). */
enum futex_kind futex_kind_of(const char *const *user_leaf_first, size_t n);

/* kernel_leaf_first / user_leaf_first: frame names, leaf first (either may
 * be empty).  syscall: the syscall number in progress on x86_64 or -1.  The
 * kernel frames decide; the syscall only when no kernel frame is known (or
 * the stack is missing) and the thread was not in an exception (there
 * orig_ax is an error code, not a syscall).  Futex waits whose user stack
 * is a park or a join (futex_kind_of()) are WC_PARK or WC_JOIN, and
 * syscall WAIT_SYSCALL_JOIN is WC_JOIN whatever the frames.  A wait under
 * the kernel's uprobe handling is WC_PROBE whatever it waited for: the
 * breakpoint put it there (with -p, perfreport's allocation and DNS
 * probes force the slow lookup under the process's mmap lock). */
enum wait_class wait_classify(const char *const *kernel_leaf_first, size_t nk,
                              const char *const *user_leaf_first, size_t nu, int syscall);

/* True for frames that say nothing about the wait: the scheduler core and
 * the tracing machinery that took the stack (bpf_*, __traceiter_*, ...). */
int wait_frame_is_noise(const char *name);
#endif
