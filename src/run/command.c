/* See command.h. */
#include "command.h"
#include "../model/run_command.h"
#include "pty_relay.h"
#include "../util/caller.h"
#include "../util/clock.h"
#include "../util/redact.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#define LINE_MAX_BYTES 4096 /* of the command line kept in the model */

/* What the child tells the parent on the status pipe: one message before it
 * waits (stage READY, or why it cannot run), and one more only if the exec
 * fails (the pipe is close-on-exec: a successful exec closes it). */
enum stage { ST_READY = 0, ST_USER, ST_FIND, ST_EXEC, ST_TTY };
struct child_msg {
    int stage;
    int err;
};

struct command {
    char *const *argv; /* borrowed */
    pid_t pid;
    int pidfd;         /* -1: waitid polling instead */
    int go_fd;         /* write end: one byte lets the child exec; -1 once used */
    int status_fd;     /* read end of the child's messages; -1 once done */
    char *user;        /* owned: who it runs as */
    bool started;      /* exec'd */
    bool ended;        /* exited or killed (not reaped until command_finish) */
    bool reaped;
    int wstatus;       /* waitpid-style status once ended */
    char *error;       /* owned: why it did not start, or NULL */
    struct pty_relay *pty; /* owned: its terminal, or NULL (pty_relay.h) */
    double t_go_ms, t_end_ms;
};

/* The pid signals are passed on to; 0 when there is none to signal (not
 * started yet, or reaped: a reaped pid may belong to someone else). */
static volatile sig_atomic_t g_fwd_pid;
/* The command runs in a session of its own (see own_session): the
 * terminal's signals reach perfreport only, and are passed on. */
static volatile sig_atomic_t g_fwd_tty_signals;
static bool g_sigpipe_ignored;

void command_note_sigpipe(bool ignored) { g_sigpipe_ignored = ignored; }

pid_t command_pid(const struct command *c) { return c->pid; }
const char *command_user(const struct command *c) { return c->user; }
bool command_ended(const struct command *c) { return c->ended; }

/* ---- the user ------------------------------------------------------------ */

struct target_user {
    bool change;     /* setgroups/setgid/setuid in the child */
    uid_t uid;
    gid_t gid;
    gid_t *groups;   /* owned */
    int ngroups;
    char *name, *home; /* owned; NULL when the passwd entry is missing */
};

static void target_user_free(struct target_user *u)
{
    free(u->groups);
    free(u->name);
    free(u->home);
}

/* The user who ran sudo, as caller_init resolved it (its SUDO_GID, the
 * groups a login gives it); perfreport is root then, and it is not. */
static int from_caller(const struct caller *sudo, struct target_user *u)
{
    u->change = true;
    u->uid = sudo->uid;
    u->gid = sudo->gid;
    u->name = sudo->name ? xstrdup(sudo->name) : NULL;
    u->home = sudo->home ? xstrdup(sudo->home) : NULL;
    u->ngroups = sudo->ngroups;
    u->groups = xcalloc((size_t)sudo->ngroups, sizeof *u->groups);
    memcpy(u->groups, sudo->groups, (size_t)sudo->ngroups * sizeof *u->groups);
    return 0;
}

/* Resolved in the parent (getpwnam and getgrouplist are not for a child
 * between fork and exec).  --user wins; else the user who ran sudo
 * (util/caller.h); else the command runs as perfreport does. */
static int resolve_user(const char *opt_user, struct target_user *u, char *err, size_t n)
{
    memset(u, 0, sizeof *u);
    struct passwd *pw = NULL;
    unsigned long id;
    bool have_uid = false;
    const struct caller *sudo = caller_get();
    if (opt_user) {
        errno = 0;
        pw = getpwnam(opt_user);
        if (!pw && parse_user_id(opt_user, &id)) {
            pw = getpwuid((uid_t)id);
            u->uid = (uid_t)id;
            have_uid = true;
        }
        if (!pw && !have_uid) {
            snprintf(err, n, "--user: no user '%.64s'", opt_user);
            return -1;
        }
        if (pw)
            u->uid = pw->pw_uid;
        if (u->uid != geteuid() && geteuid() != 0) {
            snprintf(err, n, "--user: running a command as another user needs root");
            return -1;
        }
        /* Under sudo, the caller may be allowed perfreport and nothing else:
         * --user must not become a way to run commands as root or as a
         * third user.  Only the caller's own user is accepted. */
        if (sudo && u->uid != sudo->uid) {
            snprintf(err, n, "--user: under sudo the command runs as the user who ran sudo "
                             "(uid %u), not as another", (unsigned)sudo->uid);
            return -1;
        }
        if (sudo)
            return from_caller(sudo, u);
        u->gid = pw ? pw->pw_gid : (gid_t)u->uid;
    } else if (sudo) {
        return from_caller(sudo, u);
    } else {
        pw = getpwuid(geteuid());
        u->name = pw ? xstrdup(pw->pw_name) : NULL;
        return 0;
    }
    u->change = geteuid() == 0 && (u->uid != 0 || getuid() != 0);
    if (pw) {
        u->name = xstrdup(pw->pw_name);
        u->home = xstrdup(pw->pw_dir);
    }
    /* Its supplementary groups, as a login gives them; without a passwd
     * entry only its own group. */
    u->ngroups = user_groups(u->name, u->gid, &u->groups);
    return 0;
}

/* ---- the child ----------------------------------------------------------- */

static void child_say(int fd, int stage, int e)
{
    struct child_msg m = {stage, e};
    ssize_t w;
    do
        w = write(fd, &m, sizeof m);
    while (w < 0 && errno == EINTR);
}

/* Every descriptor past stderr is closed at exec: the lock, the bundle's
 * directory, the metrics file must not outlive perfreport in the command. */
static void cloexec_above_stderr(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (int fd = 3; fd < max; fd++) {
        int fl = fcntl(fd, F_GETFD);
        if (fl >= 0)
            (void)fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    }
}

/* The executable as execvp would find it, without running it: a name with
 * a '/' as is, else the first executable regular file on PATH.  As the
 * target user (access() checks the real uid).  0, or an errno: ENOENT when
 * nothing was found, EACCES when something was but may not be run. */
static int find_executable(const char *name, char *out, size_t n)
{
    struct stat st;
    if (!*name)
        return ENOENT;
    if (strchr(name, '/')) {
        if (strlen(name) >= n)
            return ENAMETOOLONG;
        strcpy(out, name);
        if (stat(name, &st) != 0)
            return errno;
        if (!S_ISREG(st.st_mode) || access(name, X_OK) != 0)
            return EACCES;
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int found = ENOENT;
    for (const char *p = path;; p++) {
        const char *e = strchrnul(p, ':');
        size_t dl = (size_t)(e - p);
        /* An empty PATH element is the current directory. */
        int k = dl ? snprintf(out, n, "%.*s/%s", (int)dl, p, name) : snprintf(out, n, "%s", name);
        if (k > 0 && (size_t)k < n && stat(out, &st) == 0) {
            if (S_ISREG(st.st_mode) && access(out, X_OK) == 0)
                return 0;
            found = EACCES;
        }
        if (!*e)
            break;
        p = e;
    }
    return found;
}

static void drop_privileges(const struct target_user *u, int status_fd)
{
    if (!u->change)
        return;
    int e = become_user(u->uid, u->gid, u->groups, u->ngroups);
    if (e != 0) {
        child_say(status_fd, ST_USER, -e);
        _exit(127);
    }
    if (u->home)
        setenv("HOME", u->home, 1);
    if (u->name) {
        setenv("USER", u->name, 1);
        setenv("LOGNAME", u->name, 1);
    }
}

/* A command that runs as another user than root must not share root's
 * terminal.  Its controlling terminal is the session's, not descriptors
 * 0-2's (with them redirected, /dev/tty still opens it), so it gets a
 * session of its own; and the descriptors among 0-2 that are a terminal
 * become a pty of its own, relayed while perfreport runs (pty_relay.h): with
 * root's terminal, something it left behind would read what root types
 * once perfreport has returned, or push input into it (TIOCSTI).  Without a
 * controlling terminal of root's, the terminal's Ctrl-C and hangup reach
 * perfreport, which passes them on to the command's process group. */
static bool own_session(const struct target_user *u) { return u->change; }

/* Runs in the child; never returns.  perfreport is single-threaded here
 * (no collector has started), so setenv and stdio are safe to use. */
static void child_main(char *const *argv, const struct target_user *u,
                       const struct pty_relay *pty, int go_fd, int status_fd)
{
    /* What perfreport changed for itself goes back to what the command
     * would have had: SIGPIPE's disposition, an empty signal mask. */
    signal(SIGPIPE, g_sigpipe_ignored ? SIG_IGN : SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    cloexec_above_stderr();
    if (own_session(u) && setsid() < 0) {
        child_say(status_fd, ST_USER, errno);
        _exit(127);
    }
    int pe = pty ? pty_relay_child(pty) : 0;
    if (pe != 0) {
        child_say(status_fd, ST_TTY, -pe);
        _exit(127);
    }
    drop_privileges(u, status_fd);
    char path[PATH_MAX];
    int e = find_executable(argv[0], path, sizeof path);
    if (e) {
        child_say(status_fd, ST_FIND, e);
        _exit(127);
    }
    child_say(status_fd, ST_READY, 0);
    /* EOF instead of the byte: perfreport gave up (or died) before the
     * window; the command must not run unobserved. */
    char b;
    ssize_t r;
    do
        r = read(go_fd, &b, 1);
    while (r < 0 && errno == EINTR);
    if (r != 1)
        _exit(127);
    execv(path, argv);
    if (errno == ENOEXEC) { /* a script without #!: as execvp, through sh */
        size_t argc = 0;
        while (argv[argc])
            argc++;
        char **sh = calloc(argc + 2, sizeof *sh);
        if (sh) {
            sh[0] = (char *)"sh";
            sh[1] = path;
            for (size_t i = 1; i <= argc; i++)
                sh[i + 1] = argv[i];
            execv("/bin/sh", sh);
        }
        errno = ENOEXEC;
    }
    child_say(status_fd, ST_EXEC, errno);
    _exit(127);
}

/* ---- the parent ---------------------------------------------------------- */

static bool read_msg(int fd, struct child_msg *m)
{
    size_t got = 0;
    while (got < sizeof *m) {
        ssize_t r = read(fd, (char *)m + got, sizeof *m - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        got += (size_t)r;
    }
    return true;
}

static void reap(struct command *c)
{
    if (c->reaped || c->pid <= 0)
        return;
    /* Wait without reaping first, signals still passed on to the command
     * (a `kill` or `systemctl stop` while perfreport waits for a command
     * left running must reach it); the pid cannot be reused until the
     * reaping waitpid below, so forwarding stops just before it. */
    siginfo_t si;
    int w;
    do
        w = waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT);
    while (w < 0 && errno == EINTR);
    g_fwd_pid = 0;
    int st;
    pid_t r;
    do
        r = waitpid(c->pid, &st, 0);
    while (r < 0 && errno == EINTR);
    if (r == c->pid && !c->ended) {
        c->ended = true;
        c->wstatus = st;
        c->t_end_ms = mono_ms();
    }
    c->reaped = true;
    pty_relay_input_off(c->pty);
}

static const char *stage_text(int stage)
{
    return stage == ST_USER  ? "cannot switch to its user"
           : stage == ST_TTY ? "cannot give a terminal of its own to"
                             : "cannot run";
}

int command_spawn(struct command **out, char *const *argv, const char *user, char *err,
                  size_t n)
{
    *out = NULL;
    struct target_user u;
    if (resolve_user(user, &u, err, n) != 0)
        return -1;
    int go[2], status[2];
    if (pipe2(go, O_CLOEXEC) != 0) {
        snprintf(err, n, "cannot run a command: pipe: %s", strerror(errno));
        target_user_free(&u);
        return -1;
    }
    if (pipe2(status, O_CLOEXEC) != 0) {
        snprintf(err, n, "cannot run a command: pipe: %s", strerror(errno));
        close(go[0]);
        close(go[1]);
        target_user_free(&u);
        return -1;
    }
    /* Refused rather than run on root's terminal when no pty can be had. */
    struct pty_relay *pty = NULL;
    int pe = own_session(&u) ? pty_relay_open(&pty, u.uid) : 0;
    if (pe != 0) {
        snprintf(err, n, "cannot run a command as %s: no terminal of its own (pty): %s",
                 u.name ? u.name : "another user", strerror(-pe));
        close(go[0]);
        close(go[1]);
        close(status[0]);
        close(status[1]);
        target_user_free(&u);
        return -1;
    }
    fflush(NULL); /* nothing buffered is written twice */
    g_fwd_tty_signals = own_session(&u);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, n, "cannot run a command: fork: %s", strerror(errno));
        close(go[0]);
        close(go[1]);
        close(status[0]);
        close(status[1]);
        pty_relay_finish(pty);
        target_user_free(&u);
        return -1;
    }
    if (pid == 0) {
        close(go[1]);
        close(status[0]);
        child_main(argv, &u, pty, go[0], status[1]);
    }
    close(go[0]);
    close(status[1]);
    pty_relay_forked(pty);
    struct command *c = xcalloc(1, sizeof *c);
    c->pty = pty;
    c->argv = argv;
    c->pid = pid;
    c->go_fd = go[1];
    c->status_fd = status[0];
    c->user = u.name ? xstrdup(u.name) : NULL;
    c->pidfd = -1;
#ifdef SYS_pidfd_open
    c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* -1 on kernels before 5.3 */
#endif
    target_user_free(&u);
    struct child_msg m = {ST_READY, 0};
    bool got = read_msg(c->status_fd, &m);
    if (!got || m.stage != ST_READY) {
        got = got && m.err;
        snprintf(err, n, "%s '%.200s': %s", got ? stage_text(m.stage) : "cannot run", argv[0],
                 got ? strerror(m.err) : "it did not start");
        reap(c);
        close(c->go_fd);
        c->go_fd = -1;
        command_finish(c, true);
        return -1;
    }
    *out = c;
    return 0;
}

int command_go(struct command *c, char *err, size_t n)
{
    int pe = c->pty ? pty_relay_start(c->pty, c->pidfd) : 0;
    if (pe != 0) {
        snprintf(err, n, "cannot run '%.200s': its terminal cannot be relayed: %s", c->argv[0],
                 strerror(-pe));
        command_cancel(c, err);
        return -1;
    }
    c->t_go_ms = mono_ms();
    g_fwd_pid = c->pid;
    ssize_t w;
    do
        w = write(c->go_fd, "x", 1);
    while (w < 0 && errno == EINTR);
    close(c->go_fd);
    c->go_fd = -1;
    struct child_msg m;
    bool failed = read_msg(c->status_fd, &m); /* EOF: the exec succeeded */
    close(c->status_fd);
    c->status_fd = -1;
    if (w == 1 && !failed) {
        c->started = true;
        return 0;
    }
    snprintf(err, n, "cannot run '%.200s': %s", c->argv[0],
             failed ? strerror(m.err) : "it did not start");
    free(c->error);
    c->error = xstrdup(err);
    reap(c);
    return -1;
}

void command_cancel(struct command *c, const char *why)
{
    if (c->go_fd >= 0) {
        close(c->go_fd); /* EOF: the child exits without exec */
        c->go_fd = -1;
    }
    free(c->error);
    c->error = xstrdup(why);
    reap(c);
}

/* Whether it has ended, without reaping it (WNOWAIT). */
static bool check_ended(struct command *c)
{
    if (c->ended)
        return true;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
        return false;
    c->ended = true;
    c->t_end_ms = mono_ms();
    pty_relay_input_off(c->pty); /* root's keystrokes are root's again */
    c->wstatus = si.si_code == CLD_EXITED ? W_EXITCODE(si.si_status, 0)
                 : si.si_code == CLD_DUMPED ? (si.si_status | WCOREFLAG)
                                            : si.si_status;
    return true;
}

bool command_wait(struct command *c, double timeout_ms)
{
    if (check_ended(c))
        return true;
    if (timeout_ms <= 0)
        return false;
    if (c->pidfd >= 0) {
        struct pollfd p = {.fd = c->pidfd, .events = POLLIN};
        /* ms, rounded up: never a busy loop of zero-length polls */
        int rc = poll(&p, 1, (int)ceil(timeout_ms > 1e9 ? 1e9 : timeout_ms));
        return rc > 0 && check_ended(c);
    }
    double slice = timeout_ms < 20 ? timeout_ms : 20; /* polling fallback */
    struct timespec ts = {0, (long)(slice * 1e6)};
    if (nanosleep(&ts, NULL) != 0)
        return false;
    return check_ended(c);
}

void command_forward(int sig, const siginfo_t *si)
{
    pid_t pid = (pid_t)g_fwd_pid;
    if (pid <= 0 || !si)
        return;
    /* si_code <= 0: sent by a process (kill, sigqueue, tgkill); SI_KERNEL
     * (the terminal's Ctrl-C) went to the whole process group already,
     * unless the command runs in a session of its own.  The command's own
     * signal to the group is not sent back to it. */
    if ((si->si_code > 0 && !g_fwd_tty_signals) || (si->si_code <= 0 && si->si_pid == pid))
        return;
    int saved = errno;
    /* the terminal's signal goes to the group, as the terminal would send it */
    (void)kill(si->si_code > 0 ? -pid : pid, sig);
    errno = saved;
}

static void forward_handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    command_forward(sig, si);
}

void command_forward_only(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* An argument as a shell would need it quoted to mean the same. */
static void quote_arg(struct strbuf *sb, const char *a)
{
    bool plain = *a != '\0';
    for (const char *p = a; *p && plain; p++)
        plain = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                       "_-./:=@%+,", *p) != NULL;
    if (plain) {
        sb_add(sb, a);
        return;
    }
    sb_addc(sb, '\'');
    for (const char *p = a; *p; p++) {
        if (*p == '\'')
            sb_add(sb, "'\\''");
        else
            sb_addc(sb, *p);
    }
    sb_addc(sb, '\'');
}

/* The line cut at LINE_MAX_BYTES, never inside a UTF-8 character. */
static char *cut_line(const struct strbuf *sb)
{
    size_t len = sb->len;
    if (len > LINE_MAX_BYTES) {
        len = LINE_MAX_BYTES;
        while (len > 0 && ((unsigned char)sb->buf[len] & 0xC0) == 0x80)
            len--;
    }
    char *s = xmalloc(len + (len < sb->len ? 4 : 1));
    memcpy(s, sb->buf, len);
    if (len < sb->len)
        memcpy(s + len, "...", 4);
    else
        s[len] = '\0';
    return s;
}

struct run_command *command_describe(const struct command *c, bool keep_secrets,
                                     double window_end_ms)
{
    struct run_command *rc = run_command_new();
    /* Redacted as /proc/PID/cmdline is for the process tables: on the
     * NUL-separated argv, before it is joined. */
    struct strbuf raw = STRBUF_INIT, red = STRBUF_INIT, line = STRBUF_INIT;
    for (size_t i = 0; c->argv[i]; i++) {
        sb_add(&raw, c->argv[i]);
        sb_addc(&raw, '\0');
    }
    const struct strbuf *args = &raw;
    if (!keep_secrets && raw.len) {
        redact_argv(raw.buf, raw.len, &red);
        args = &red;
    }
    for (size_t off = 0; args->buf && off < args->len;) {
        const char *a = args->buf + off;
        size_t al = strnlen(a, args->len - off);
        if (off)
            sb_addc(&line, ' ');
        char *one = xmalloc(al + 1);
        memcpy(one, a, al);
        one[al] = '\0';
        quote_arg(&line, one);
        free(one);
        off += al + 1;
    }
    rc->line = cut_line(&line);
    sb_free(&raw);
    sb_free(&red);
    sb_free(&line);
    rc->user = xstrdup(c->user);
    rc->pid = (int)c->pid;
    if (!c->started) {
        rc->end = CMD_NOT_STARTED;
        rc->error = xstrdup(c->error ? c->error : "it did not start");
        rc->wall_s = 0;
    } else if (!c->ended) {
        rc->end = CMD_RUNNING;
        rc->wall_s = (window_end_ms - c->t_go_ms) / 1000.0;
    } else {
        if (WIFEXITED(c->wstatus)) {
            rc->end = CMD_EXITED;
            rc->exit_status = WEXITSTATUS(c->wstatus);
        } else {
            rc->end = CMD_KILLED;
            rc->term_signal = WTERMSIG(c->wstatus);
            rc->core_dumped = WCOREDUMP(c->wstatus);
        }
        rc->wall_s = (c->t_end_ms - c->t_go_ms) / 1000.0;
    }
    return rc;
}

void command_finish(struct command *c, bool quiet)
{
    if (!c)
        return;
    if (c->go_fd >= 0)
        close(c->go_fd);
    if (c->status_fd >= 0)
        close(c->status_fd);
    bool was_running = c->started && !c->ended;
    if (was_running && !quiet)
        fprintf(stderr, "perfreport: waiting for the command (pid %d) to exit\n", (int)c->pid);
    reap(c);
    if (was_running && !quiet) {
        char sig[32];
        double s = (c->t_end_ms - c->t_go_ms) / 1000.0;
        if (WIFEXITED(c->wstatus)) {
            fprintf(stderr, "perfreport: the command exited with status %d after %.1f s\n",
                    WEXITSTATUS(c->wstatus), s);
        } else {
            cmd_signal_name(WTERMSIG(c->wstatus), sig, sizeof sig);
            fprintf(stderr, "perfreport: the command was killed by %s after %.1f s\n", sig, s);
        }
    }
    pty_relay_finish(c->pty); /* after the reap: the relay still watches pidfd */
    if (c->pidfd >= 0)
        close(c->pidfd);
    free(c->user);
    free(c->error);
    free(c);
}
