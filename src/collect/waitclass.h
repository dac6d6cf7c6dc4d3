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
    WC_NET,    /* TCP/UDP/inet sockets: recv, accept, connect, send buffer */
    WC_IPC,    /* pipes, FIFOs, unix sockets, SysV/POSIX queues, waiting for a child */
    WC_IDLE,   /* event-loop idle (epoll/poll/select) and parked threads (condvar, join) */
    WC_SLEEP,  /* nanosleep and friends: the program chose to wait */
    WC_OTHER,
    WC_COUNT
};

const char *wait_class_name(enum wait_class c);  /* "io" "lock" "net" "ipc" "idle" "sleep" "other" */
const char *wait_class_title(enum wait_class c); /* "disk I/O", "pipe/IPC" ... */
/* Class of a name from wait_class_name(), or WC_COUNT. */
enum wait_class wait_class_from_name(const char *s);

/* How a futex wait looks from user space. */
enum futex_kind {
    FK_UNKNOWN = 0, /* no recognised frame (stripped code, other runtimes) */
    FK_MUTEX,       /* a mutex/rwlock slow path: contention */
    FK_PARK,        /* condition variable, semaphore, join, barrier: idle parking */
};
const char *futex_kind_name(enum futex_kind k); /* "unknown" "mutex" "park" */
/* Leaf-first user frames -> kind (first recognised frame decides). */
enum futex_kind futex_kind_of(const char *const *user_leaf_first, size_t n);

/* kernel_leaf_first / user_leaf_first: frame names, leaf first (either may
 * be empty).  syscall: the syscall number in progress on x86_64 or -1.  The
 * kernel frames decide; the syscall only when no kernel frame is known (or
 * the stack is missing) and the thread was not in an exception (there
 * orig_ax is an error code, not a syscall).  Futex waits whose user stack
 * is a park (futex_kind_of() == FK_PARK) are WC_IDLE. */
enum wait_class wait_classify(const char *const *kernel_leaf_first, size_t nk,
                              const char *const *user_leaf_first, size_t nu, int syscall);

/* True for frames that say nothing about the wait: the scheduler core and
 * the tracing machinery that took the stack (bpf_*, __traceiter_*, ...). */
int wait_frame_is_noise(const char *name);
#endif
