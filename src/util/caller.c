/* See caller.h. */
#include "caller.h"
#include "xalloc.h"
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_GROUPS 4096

static struct caller g_caller;
static bool g_have;

/* What one thread gave up in caller_enter, given back by caller_leave. */
static _Thread_local int t_depth;
static _Thread_local uid_t t_fsuid;
static _Thread_local gid_t t_fsgid;
static _Thread_local gid_t *t_groups; /* owned while depth > 0 */
static _Thread_local int t_ngroups;
static _Thread_local struct __user_cap_data_struct t_caps[_LINUX_CAPABILITY_U32S_3];

bool parse_user_id(const char *s, unsigned long *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v >= (unsigned long)UINT_MAX)
        return false;
    *out = v;
    return true;
}

int user_groups(const char *name, gid_t gid, gid_t **out)
{
    int ng = 64;
    gid_t *g = xcalloc((size_t)ng, sizeof *g);
    if (name) {
        while (getgrouplist(name, gid, g, &ng) < 0) {
            if (ng <= 64 || ng > MAX_GROUPS) {
                ng = 0;
                break;
            }
            free(g);
            g = xcalloc((size_t)ng, sizeof *g);
        }
    } else {
        ng = 0;
    }
    if (ng == 0) {
        ng = 1;
        g[0] = gid;
    }
    *out = g;
    return ng;
}

void caller_init(void)
{
    unsigned long uid, gid;
    if (g_have || geteuid() != 0 || !parse_user_id(getenv("SUDO_UID"), &uid) || uid == 0)
        return;
    struct passwd *pw = getpwuid((uid_t)uid);
    g_caller.uid = (uid_t)uid;
    g_caller.gid = parse_user_id(getenv("SUDO_GID"), &gid) ? (gid_t)gid
                   : pw                               ? pw->pw_gid
                                                      : (gid_t)uid;
    if (pw) {
        g_caller.name = xstrdup(pw->pw_name);
        g_caller.home = xstrdup(pw->pw_dir);
    }
    g_caller.ngroups = user_groups(g_caller.name, g_caller.gid, &g_caller.groups);
    g_have = true;
}

const struct caller *caller_get(void) { return g_have ? &g_caller : NULL; }

/* setfsuid and setfsgid return the previous id whatever happens; asking
 * again with an invalid id (-1) tells the current one. */
static uid_t cur_fsuid(void) { return (uid_t)syscall(SYS_setfsuid, (uid_t)-1); }
static gid_t cur_fsgid(void) { return (gid_t)syscall(SYS_setfsgid, (gid_t)-1); }

uid_t fs_uid(void) { return cur_fsuid(); }

/* The calling thread's capability sets (capget and capset with pid 0 are
 * per thread; glibc's wrappers are not in every libc, the syscalls are). */
static int caps_get(struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3])
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    return syscall(SYS_capget, &h, d) == 0 ? 0 : -errno;
}

static int caps_set(const struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3])
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    return syscall(SYS_capset, &h, d) == 0 ? 0 : -errno;
}

/* Back to the saved identity: the effective capabilities first (setgroups
 * and setfsuid need CAP_SETGID and CAP_SETUID), then the ids. */
static void restore(void)
{
    (void)caps_set(t_caps);
    (void)syscall(SYS_setfsuid, t_fsuid);
    (void)syscall(SYS_setfsgid, t_fsgid);
    (void)syscall(SYS_setgroups, (size_t)t_ngroups, t_groups);
    free(t_groups);
    t_groups = NULL;
}

int caller_enter(void)
{
    if (!g_have)
        return 0;
    if (t_depth > 0) {
        t_depth++;
        return 0;
    }
    int n = getgroups(0, NULL);
    if (n < 0)
        return -errno;
    t_groups = xcalloc((size_t)n + 1, sizeof *t_groups);
    t_ngroups = getgroups(n, t_groups);
    t_fsuid = cur_fsuid();
    t_fsgid = cur_fsgid();
    int ce = t_ngroups < 0 ? 0 : caps_get(t_caps);
    if (t_ngroups < 0 || ce != 0) {
        int e = ce ? -ce : errno;
        free(t_groups);
        t_groups = NULL;
        return -e;
    }
    /* Groups first: with the caller's fsuid but root's groups (group 0
     * among them) the thread would have rights the caller has not. */
    if (syscall(SYS_setgroups, (size_t)g_caller.ngroups, g_caller.groups) != 0) {
        int e = errno;
        free(t_groups);
        t_groups = NULL;
        return -e;
    }
    (void)syscall(SYS_setfsgid, g_caller.gid);
    (void)syscall(SYS_setfsuid, g_caller.uid);
    if (cur_fsgid() != g_caller.gid || cur_fsuid() != g_caller.uid) {
        restore();
        return -EPERM;
    }
    /* A non-zero fsuid takes away only the file-permission capabilities.
     * The others stay effective, and the kernel checks some path walks
     * against them: /proc/PID/cwd, root, fd/N and map_files/ are followed
     * with CAP_SYS_PTRACE, so a path through root's process would reach
     * what the caller cannot search.  The thread keeps none effective
     * (permitted stays: restore raises them again). */
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
    memcpy(none, t_caps, sizeof none);
    for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
        none[i].effective = 0;
    int e = caps_set(none);
    if (e != 0) {
        restore();
        return e;
    }
    t_depth = 1;
    return 0;
}

bool caller_enter_msg(char *err, size_t n)
{
    int e = caller_enter();
    if (e != 0)
        snprintf(err, n, "cannot act as the user who ran sudo (uid %u): %s",
                 (unsigned)caller_get()->uid, strerror(-e));
    return e == 0;
}

void caller_leave(void)
{
    if (!g_have || t_depth == 0)
        return;
    if (--t_depth == 0)
        restore();
}

int become_user(uid_t uid, gid_t gid, const gid_t *groups, int ngroups)
{
    if (setgroups((size_t)ngroups, groups) != 0 || setgid(gid) != 0 || setuid(uid) != 0)
        return -errno;
    /* root must be gone for good, not just for now */
    if (uid != 0 && (setuid(0) == 0 || geteuid() != uid))
        return -EPERM;
    return 0;
}

int caller_become(void)
{
    if (!g_have)
        return 0;
    return become_user(g_caller.uid, g_caller.gid, g_caller.groups, g_caller.ngroups);
}
