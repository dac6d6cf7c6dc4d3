#include "priority.h"
#include "../model/model.h"
#include <errno.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* linux/ioprio.h's encoding (the header is not in every libc's path). */
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_BE_DEFAULT 4
#define IOPRIO_VALUE(cls, lvl) (((cls) << IOPRIO_CLASS_SHIFT) | (lvl))

/* The start's and finalisation's nice as root: a fair share of a CPU ~3x a
 * nice-0 spinner's (weight 3121 against 1024), so 10 spinners on 2 CPUs
 * leave the start ~0.75 CPU instead of ~0.35, for about a second in all.
 * Still far from real time: a saturated host's own work is not stalled. */
#define STAGE_NICE (-5)

static bool g_known;       /* prio_raise_for_start ran */
static int g_invoked_nice; /* nice at start */
static int g_stage_nice;   /* nice of the start and finalisation */
static int g_stage_ioprio = -1; /* ioprio of the same, -1 = leave as invoked */

static int thread_nice(void)
{
    errno = 0;
    int n = getpriority(PRIO_PROCESS, 0);
    return errno ? 0 : n;
}

int prio_set_thread_nice(int nice)
{
    /* PRIO_PROCESS with 0 is the calling thread on Linux */
    return setpriority(PRIO_PROCESS, 0, nice) == 0 ? 0 : -errno;
}

void prio_raise_for_start(struct report *r)
{
    g_invoked_nice = thread_nice();
    g_stage_nice = g_invoked_nice;
    g_known = true;
    const char *why = "";
    if (g_invoked_nice > STAGE_NICE) {
        int rc = prio_set_thread_nice(STAGE_NICE); /* lowering nice needs CAP_SYS_NICE */
        if (rc == 0)
            g_stage_nice = STAGE_NICE;
        else
            why = " (raising it was refused)";
    }
    long io = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
    int cls = io >= 0 ? (int)(io >> IOPRIO_CLASS_SHIFT) : -1;
    int lvl = io >= 0 ? (int)(io & 7) : 0;
    if (cls == IOPRIO_CLASS_IDLE || (cls == IOPRIO_CLASS_BE && lvl > IOPRIO_BE_DEFAULT)) {
        int v = IOPRIO_VALUE(IOPRIO_CLASS_BE, IOPRIO_BE_DEFAULT);
        if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, v) == 0)
            g_stage_ioprio = v;
    } else if (io >= 0) {
        g_stage_ioprio = (int)io;
    }
    if (r)
        kv_addf(&r->caps, "priority", "Priority (start and finalisation / window)",
                "nice %d / %d (invoked at %d%s)%s", g_stage_nice, prio_window_nice(),
                g_invoked_nice, why,
                cls == IOPRIO_CLASS_IDLE ? "; idle I/O class raised to best-effort" : "");
}

int prio_stage_nice(void) { return g_known ? g_stage_nice : thread_nice(); }

int prio_window_nice(void)
{
    int base = g_known ? g_invoked_nice : thread_nice();
    return base + 10 > 19 ? 19 : base + 10;
}

void prio_io_window(void)
{
    /* best-effort, lowest level: idle could starve the window's own reads */
    (void)syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
                  IOPRIO_VALUE(IOPRIO_CLASS_BE, 7));
}

void prio_io_stage(void)
{
    if (g_stage_ioprio >= 0)
        (void)syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, g_stage_ioprio);
}
