/* The cgroup of a process, read once per pid from /proc/PID/cgroup (through
 * hostfs), for the labels of its samples in the pprof export: the cgroup
 * path (v2, else the v1 cpu hierarchy's) and, when the path names one, the
 * container or unit in human terms (cgroup_name.h).  A process gone before
 * its first look has neither.  Owned by its user; one thread at a time. */
#ifndef PERFREPORT_PROC_LABELS_H
#define PERFREPORT_PROC_LABELS_H
#include <stddef.h>
#include <stdint.h>

struct proc_labels;

#define PROC_LABELS_MAX 65536u /* pids remembered; later ones get no cgroup */

struct proc_labels *proc_labels_new(void);
void proc_labels_free(struct proc_labels *pl);
/* Reads pid's cgroup now unless done: called while the process lives. */
void proc_labels_note(struct proc_labels *pl, uint32_t pid);
/* *cgroup and *container (NULL when unknown), valid until pl is freed. */
void proc_labels_get(struct proc_labels *pl, uint32_t pid, const char **cgroup,
                     const char **container);
#endif
