/* Scheduling and I/O priority of the run's stages.
 *
 * perfreport is run on saturated hosts, often niced by a unit (Nice=10,
 * IOSchedulingClass=idle).  Its start (probe, BPF loads) and finalisation
 * (drain, symbolize, analyze, write) are short and decide how late the
 * window opens and the bundle appears, so they run at the invoking priority
 * or better: as root (CAP_SYS_NICE) at nice min(invoking, -5) and at least
 * the default best-effort I/O level.  Only the window's sampling runs at
 * invoking + 10 and the lowest best-effort I/O level.  No real-time class:
 * a bug or a huge /proc in a real-time thread could stall a production
 * host; nice -5 gets ~3x a nice-0 thread's share for the second or so the
 * stages take on a saturated host. */
#ifndef PERFREPORT_PRIORITY_H
#define PERFREPORT_PRIORITY_H

struct report;

/* Records the invoking priority and raises the calling thread to the stage
 * priority (threads created later inherit it).  Records both in r->caps
 * when r is given.  Call once, before any thread is created. */
void prio_raise_for_start(struct report *r);
/* Nice of the start and finalisation stages (the invoking nice when the
 * raise was refused or not done). */
int prio_stage_nice(void);
/* Nice of the window's sampling threads: invoking + 10, at most 19. */
int prio_window_nice(void);
/* Sets the calling thread's nice (0 or -errno). */
int prio_set_thread_nice(int nice);
/* I/O priority of the calling thread: the window's (best-effort 7) or the
 * stages' (as recorded by prio_raise_for_start). */
void prio_io_window(void);
void prio_io_stage(void);
#endif
