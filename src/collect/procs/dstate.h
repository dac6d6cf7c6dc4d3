/* Tasks in uninterruptible sleep (D state), followed tick by tick for the
 * procs collector, and the pure parsers behind it.
 *
 * A task in D cannot be interrupted, not even by SIGKILL, until what it
 * waits for completes: a disk I/O (milliseconds), or the reply of a file
 * system that stopped answering (maybe never).  One sample per tick tells
 * the two apart by following each task: seen in D at two ticks in a row
 * without having run in between (its schedstat run count did not move), it
 * spent the whole interval in ONE wait.  The short waits of normal I/O are
 * seen at single ticks, or at consecutive ticks with runs in between, and
 * never add up to a long wait.
 *
 * Threads count: /proc/PID/stat is only the main thread's state, so the
 * threads of multi-threaded processes are read too, DSTATE_THREAD_READS a
 * tick in turns (a thread's stat costs as much as a process's, 10-30 us on a
 * VM), and a task once seen in D is read again at every tick.  The reads of
 * tasks in D (their schedstat, their wchan once a wait, the stat of those
 * followed) take at most DSTATE_TASK_READS a tick; the follow-ups resume
 * where the last tick's stopped.
 *
 * What a stuck task waits for is read once, when its wait reaches two
 * ticks, without touching the file system it may be stuck on: its kernel
 * stack (root only) names the file system's functions; its mountinfo lists
 * the mounts its namespace sees; readlink of its cwd and fds gives the names
 * the kernel keeps for its files (no lookup).  Nothing under a mount point
 * is ever opened or stat'ed. */
#ifndef PERFREPORT_COLLECT_DSTATE_H
#define PERFREPORT_COLLECT_DSTATE_H
#include "../../procfs/procs_parse.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DSTATE_TRACK_MAX 4096  /* distinct tasks seen in D that are remembered */
#define DSTATE_THREAD_READS 256 /* thread stat reads per tick, in turns */
#define DSTATE_TASK_READS 512  /* reads of tasks in D per tick (see above) */
#define DSTATE_RESOLVE_MAX 128 /* stuck tasks whose stack and mount are read */
#define DSTATE_RESOLVE_PER_TICK 8
#define DSTATE_STACK_MAX 4096   /* bytes of a kernel stack read */
#define DSTATE_STACK_FRAMES 6   /* frames kept in the summary */
#define DSTATE_STACK_TEXT 200   /* bytes of the summary */
#define DSTATE_FD_LINKS 32      /* fd paths read per stuck task, besides its cwd */
#define DSTATE_MOUNTINFO_MAX (1u << 20)

struct report;
struct dstate;

struct dstate *dstate_new(void);
void dstate_free(struct dstate *d);
/* A tick: begin (t on the collector's clock), every process read at this
 * tick (its main thread's stat), then end, which reads threads in turns,
 * follows the tasks that were in D and returns how many tasks are in D. */
void dstate_tick_begin(struct dstate *d, double t);
void dstate_process(struct dstate *d, const struct pid_stat *ps);
size_t dstate_tick_end(struct dstate *d);
/* Table proc.dstate, metrics and series proc.dstate_* (NAMES.md). */
void dstate_to_model(struct dstate *d, struct report *r);

/* ---- pure parsers (text from the host: bounded, never trusted) ---- */

/* /proc/PID/schedstat "run_ns wait_ns timeslices": the timeslices (times the
 * task ran).  0, or -EINVAL; -ENODATA for "0 0 0" (the kernel keeps no
 * schedstat: the count cannot tell one wait from many). */
int dstate_parse_schedstat(const char *text, size_t len, uint64_t *timeslices);
/* /proc/PID/sched: se.exec_start, the scheduler clock's milliseconds when
 * the task last ran (for a task asleep, when its sleep began).  Only past
 * the header's dashes line, as the header holds the task's own name.  0,
 * -ENOENT without the field, -EINVAL for anything malformed. */
int dstate_parse_exec_start(const char *text, size_t len, double *ms);
/* A kernel stack ("[<0>] func+0x1/0x2 [module]" lines) into "f1 < f2 < f3"
 * (the first DSTATE_STACK_FRAMES frames, at most n bytes) and the file
 * system family it waits in: the topmost frame naming a file system, else
 * "block" when a frame waits for a block I/O, else "". */
void dstate_parse_stack(const char *text, size_t len, char *summary, size_t n,
                        const char **family);
/* Whether mountinfo fstype belongs to family ("fuse": fuse, fuseblk, fuse.X). */
bool dstate_fstype_in_family(const char *fstype, const char *family);
/* Whether family is served from elsewhere (FUSE, network file systems):
 * its mount can stop answering while the host is fine. */
bool dstate_family_remote(const char *family);
/* SigPnd of /proc/PID/task/TID/status holds SIGKILL (group exit included). */
bool dstate_sigkill_pending(const char *status, size_t len);

struct dstate_mount {
    char mountpoint[256];
    char fstype[64];
    char source[128];
    char devno[24];
};
enum dstate_mount_how {
    DM_NONE = 0,
    DM_BY_PATH,   /* its cwd or an open file is on the mount */
    DM_ONLY_ONE,  /* the only mount of its family in its namespace */
    DM_AMBIGUOUS, /* several mounts of its family and no path to choose */
};
/* The mount a task waits on, from its namespace's mountinfo text (NUL
 * terminated), the family its stack names ("" = unknown: then only a path
 * on a remote family's mount counts) and its cwd and fd paths (cwd first).
 * *nfamily: mounts of that family seen. */
enum dstate_mount_how dstate_pick_mount(const char *mountinfo, const char *family,
                                        const char *const *paths, size_t npaths,
                                        struct dstate_mount *out, size_t *nfamily);
#endif
