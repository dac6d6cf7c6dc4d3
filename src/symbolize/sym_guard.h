/* Limits the symbolizer puts on what other users' files may cost us.
 *
 * Budgets: every symbolizer of the process draws on two pools, so that peak
 * memory stays bounded however many hostile binaries and perf maps there
 * are: SYM_POOL_SYMS (symbol tables), SYM_POOL_DEBUG (DWARF sections held,
 * compressed and inflated) and SYM_POOL_JIT (perf map text and entries).
 * Symbol tables have their own pool so that debug data, the first thing to
 * give up, never crowds out function names.  A taker returns what it took
 * when it frees the data.
 *
 * Deadlines: a file on a FUSE or network filesystem may never answer, and a
 * task waiting for an answer its server has read but never sends cannot be
 * killed, not even by exit: a stuck thread of ours would keep perfreport
 * from ever exiting.  So sym_run_bounded() does such I/O in a server child
 * that writes what it read into a pipe; the caller stops waiting at the
 * deadline and leaves the stuck server behind (SIGKILLed: it dies when its
 * request ends; reparented to init when we exit).  What stalled is marked
 * (sym_mark_stalled) so that no later frame waits on it again.
 *
 * Thread-safe. */
#ifndef PERFREPORT_SYM_GUARD_H
#define PERFREPORT_SYM_GUARD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sym_pool { SYM_POOL_SYMS, SYM_POOL_DEBUG, SYM_POOL_JIT, SYM_POOL_COUNT };

/* Together at most 32 MiB over perfreport's own ~32 MiB: design §9's 64. */
#define SYM_SYMS_BUDGET (8u << 20)   /* symbol and string tables held (x2) */
#define SYM_DEBUG_BUDGET (16u << 20) /* debug sections held, inflated */
#define SYM_JIT_BUDGET (8u << 20)    /* perf map bytes + entries held */
#define SYM_IO_DEADLINE_MS 1000     /* one open+read of another process's file */
#define SYM_MAX_STUCK 8             /* stuck children before giving up on slow files */

/* Takes n bytes from pool when they fit; false (nothing taken) otherwise. */
bool sym_budget_take(enum sym_pool pool, uint64_t n);
void sym_budget_put(enum sym_pool pool, uint64_t n);
uint64_t sym_budget_limit(enum sym_pool pool);
uint64_t sym_budget_used(enum sym_pool pool);
/* Tests: replaces a pool's limit (0 restores the default). */
void sym_budget_set_limit(enum sym_pool pool, uint64_t limit);

/* Filesystems by what reading a file there may do to us. */
enum sym_fs {
    SYM_FS_LOCAL,  /* disk, tmpfs, overlay...: reads end */
    SYM_FS_REMOTE, /* FUSE and network filesystems: a read may never end */
    SYM_FS_PSEUDO, /* procfs, sysfs, tracefs...: reading has side effects or
                      exposes kernel state */
};
enum sym_fs sym_fs_of_magic(int64_t f_type);   /* statfs f_type */
enum sym_fs sym_fs_of_name(const char *fstype); /* mountinfo type ("fuse.sshfs") */
/* Whether device major:minor is, in a process's mountinfo text, a FUSE or
 * network filesystem (its type in fstype): opening a file there may block
 * for good, so another process's file there is not opened.  procfs answers
 * mountinfo without asking the filesystem. */
bool sym_dev_is_remote(const char *mountinfo, unsigned major, unsigned minor, char *fstype,
                       size_t n);

/* Runs fn(arg, fd) in the server child (a copy of arg_len bytes of arg,
 * at most SYM_JOB_MAX_ARG, aligned as malloc's); fn writes its result to fd
 * (a pipe, closed for it when fn returns), must return rather than exit and
 * use async-signal-safe calls only (the server is forked from a threaded
 * process), closing what it opens.  Reads at most cap bytes of the result
 * into *out (malloc'd, NUL-terminated, caller frees; NULL on error), waiting
 * at most ms in all.  Returns the byte count when the job finished in time
 * (a result longer than cap is cut at cap + 1 bytes, so callers can tell),
 * -ETIMEDOUT when it did not (the server is then killed and left behind),
 * -EBUSY when SYM_MAX_STUCK servers are stuck already (nothing run), or
 * -errno.  Jobs run one at a time.  With a stall_key (not 0), a timeout
 * marks (stall_kind, stall_key) stalled, and a job whose key is marked
 * already returns -ETIMEDOUT at once: threads queued behind a stalled job
 * on the same mount do not each wait out the deadline. */
#define SYM_JOB_MAX_ARG 8192
long sym_run_bounded(void (*fn)(void *arg, int fd), const void *arg, size_t arg_len, size_t cap,
                     int ms, char stall_kind, uint64_t stall_key, char **out);
/* Forks the server now, while the process is small (else the first job
 * does); 0 or -errno. */
int sym_bounded_start(void);
/* Ends the server and reaps it (and stuck ones that have ended).  A later
 * job forks a new server. */
void sym_bounded_stop(void);
/* CPU time (user + system) of the servers reaped so far: part of
 * perfreport's own cost that getrusage(RUSAGE_SELF) does not hold. */
double sym_bounded_cpu_ms(void);

/* Stall marks, process-wide: kind 'B' (a binary's device) or 'N' (a mount
 * namespace whose /tmp did not answer), key the device or namespace inode. */
void sym_mark_stalled(char kind, uint64_t key);
bool sym_is_stalled(char kind, uint64_t key);
#endif
