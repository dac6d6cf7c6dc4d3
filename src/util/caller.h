/* The user perfreport acts for under sudo.
 *
 * Run through sudo (euid 0, SUDO_UID set and not 0), perfreport holds root's
 * authority for a user who may be allowed nothing else (a sudoers rule for
 * perfreport alone).  That authority serves the capture only: every path
 * that user names and perfreport writes, removes or reads back (-o and the
 * default output in the current directory, --metrics, --archive, --keep,
 * the obfuscation map, --baseline, --thresholds) is used with the user's own
 * rights.  The thread doing it takes the user's filesystem identity (fsuid,
 * fsgid and supplementary groups: the kernel's permission checks, and the
 * owner of what it creates), with no capability effective (the kernel
 * checks some path walks through /proc against those, not the fsuid), for
 * just those steps and gives it back after;
 * the subcommands (render, diff, history, flamegraph, collapse), which need
 * no privilege at all, become the user for good at their start.
 *
 * SUDO_UID is sudo's word: with env_reset (sudo's default) the user cannot
 * set it.  Outside sudo, and when root itself ran sudo, nothing changes. */
#ifndef PERFREPORT_UTIL_CALLER_H
#define PERFREPORT_UTIL_CALLER_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct caller {
    uid_t uid;
    gid_t gid;
    gid_t *groups;     /* owned: what a login gives it (getgrouplist) */
    int ngroups;
    char *name, *home; /* owned; NULL when its passwd entry is missing */
};

/* Resolved once, in main before any thread exists (getpwuid and
 * getgrouplist are no calls for a signal handler or a forked child). */
void caller_init(void);
/* The user who ran sudo, or NULL when perfreport does not act for one. */
const struct caller *caller_get(void);

/* A uid or gid written in decimal, nothing else ("65534"). */
bool parse_user_id(const char *s, unsigned long *out);

/* The supplementary groups of `name` with primary group gid, as a login
 * gives them; only gid when name is NULL or has too many.  *out is owned
 * by the caller; returns the count. */
int user_groups(const char *name, gid_t gid, gid_t **out);

/* The calling thread (and only it: raw system calls, not glibc's
 * process-wide setgroups) takes the caller's filesystem identity; a no-op
 * outside sudo.  Calls nest.  0, or -errno with nothing changed: the step
 * that needed it must then not be done with root's rights. */
int caller_enter(void);
/* caller_enter for a step on a path the caller named: false with err
 * filled ("cannot act as the user who ran sudo ...") when that identity
 * cannot be taken, and the step must then not be done at all. */
bool caller_enter_msg(char *err, size_t n);
/* Undoes one caller_enter that returned 0. */
void caller_leave(void);

/* Drops root for good: the whole process becomes uid with gid and the
 * supplementary groups given, and root cannot be taken back (setuid(0)
 * must fail) unless uid is 0.  Single-threaded callers only (a forked
 * child, a subcommand); only system calls.  0 or -errno. */
int become_user(uid_t uid, gid_t gid, const gid_t *groups, int ngroups);
/* become_user for the caller: for the subcommands.  0 or -errno. */
int caller_become(void);

/* The uid the calling thread acts as on files (its fsuid): the owner of
 * what it creates now, and the one whose files it may treat as its own. */
uid_t fs_uid(void);
#endif
