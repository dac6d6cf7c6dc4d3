/* See pty_relay.h. */
#include "pty_relay.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

#define BUF 4096
#define PAUSED_POLL_MS 200 /* in the background: how often to look again */
#define DRAIN_READS 256    /* at the end: at most 1 MiB of the pty's output */
#define OUT_STALL_MS 1000  /* root's terminal taking no output this long: drop it */

struct pty_relay {
    int master;        /* owned */
    int slave;         /* owned until pty_relay_forked, then -1 */
    bool is_tty[3];    /* which of 0-2 are terminals: the slave replaces them */
    int src;           /* the first of them: modes and window size come from it */
    int in_fd;         /* root's terminal, read for the command: 0, or -1 */
    int out_fd;        /* where the pty's output goes */
    int out_nb;        /* owned, -1: out_fd's terminal opened again, non-blocking */
    bool out_stalled;  /* it took nothing for OUT_STALL_MS: output is dropped */
    atomic_bool dropped; /* some output was dropped (said once, at the end) */
    int wake[2];       /* pipe: 'q' stop, 'w' window size, 'i' the command ended */
    int pidfd;         /* borrowed, -1: the command's end */
    pthread_t thread;
    bool running;
    atomic_bool input_off; /* root's terminal is not read (ended, or it is gone) */
    atomic_bool ended;     /* the command ended: no more output once the buffered is out */
    int mode_fd;           /* root's terminal while it is in relay modes, or -1 */
    struct termios saved;  /* its modes before */
    struct sigaction old_winch;
    bool winch_set;
};

/* One relay at a time (one command per run): the SIGWINCH handler's pipe. */
static int g_wake_fd = -1;

static void wake(int fd, char c)
{
    if (fd >= 0) {
        ssize_t w = write(fd, &c, 1); /* a full pipe already holds a wake-up */
        (void)w;
    }
}

static bool foreground(int fd) { return tcgetpgrp(fd) == getpgrp(); }

static void on_winch(int sig)
{
    (void)sig;
    int e = errno;
    wake(g_wake_fd, 'w');
    errno = e;
}

/* Root's terminal while the relay reads it: bytes as typed, for the pty's
 * line discipline.  Only the interrupt key stays a signal (to perfreport,
 * which ends the window and passes it on); Ctrl-Z and Ctrl-\ go to the
 * command's terminal as typed, and output processing stays as it was. */
static void relay_modes(struct termios *t)
{
    t->c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON |
                              IXOFF);
    t->c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | IEXTEN);
    t->c_cc[VQUIT] = _POSIX_VDISABLE;
    t->c_cc[VSUSP] = _POSIX_VDISABLE;
    t->c_cc[VMIN] = 1;
    t->c_cc[VTIME] = 0;
}

/* The slave of a new pty, opened through the master where the kernel can
 * (no path lookup), else by its name. */
static int open_slave(int m)
{
    int s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (s >= 0 || (errno != EINVAL && errno != ENOTTY))
        return s;
    char name[64];
    if (ptsname_r(m, name, sizeof name) != 0)
        return -1;
    return open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

int pty_relay_open(struct pty_relay **out, uid_t uid)
{
    *out = NULL;
    bool is_tty[3];
    int src = -1;
    for (int fd = 0; fd < 3; fd++) {
        is_tty[fd] = isatty(fd) == 1;
        if (is_tty[fd] && src < 0)
            src = fd;
    }
    if (src < 0)
        return 0;
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0)
        return -errno;
    int s = grantpt(m) == 0 && unlockpt(m) == 0 ? open_slave(m) : -1;
    if (s < 0) {
        int e = errno;
        close(m);
        return -e;
    }
    /* Root's terminal does the output processing (the pty passes bytes on
     * as they are): perfreport's own messages, printed while the relay
     * runs, come out as usual. */
    struct termios t;
    struct winsize ws;
    int rc = 0;
    if (tcgetattr(src, &t) == 0) {
        t.c_oflag &= ~(tcflag_t)OPOST;
        if (tcsetattr(s, TCSANOW, &t) != 0)
            rc = -errno;
    }
    if (rc == 0 && ioctl(src, TIOCGWINSZ, &ws) == 0 && ioctl(s, TIOCSWINSZ, &ws) != 0)
        rc = -errno;
    /* the command's own terminal, as a login gives one */
    if (rc == 0 && fchown(s, uid, (gid_t)-1) != 0)
        rc = -errno;
    if (rc != 0) {
        close(s);
        close(m);
        return rc;
    }
    struct pty_relay *p = xcalloc(1, sizeof *p);
    p->master = m;
    p->slave = s;
    memcpy(p->is_tty, is_tty, sizeof is_tty);
    p->src = src;
    p->in_fd = is_tty[0] ? 0 : -1;
    p->out_fd = is_tty[1] ? 1 : is_tty[2] ? 2 : 0;
    p->out_nb = -1;
    p->wake[0] = p->wake[1] = -1;
    p->pidfd = -1;
    p->mode_fd = -1;
    atomic_init(&p->input_off, false);
    atomic_init(&p->ended, false);
    atomic_init(&p->dropped, false);
    *out = p;
    return 0;
}

int pty_relay_child(const struct pty_relay *p)
{
    if (ioctl(p->slave, TIOCSCTTY, 0) != 0)
        return -errno;
    for (int fd = 0; fd < 3; fd++)
        if (p->is_tty[fd] && dup2(p->slave, fd) != fd)
            return -errno;
    return 0; /* the slave's own descriptor is close-on-exec */
}

void pty_relay_forked(struct pty_relay *p)
{
    if (p && p->slave >= 0) {
        close(p->slave);
        p->slave = -1;
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* To root's terminal, through a description of its own that never blocks
 * (root's shell shares the other): a terminal with its output suspended
 * (Ctrl-S) or a reader that stopped would otherwise hold perfreport for
 * good.  What it does not take within OUT_STALL_MS is dropped, and while it
 * takes nothing each later chunk gets one try, no wait. */
static void write_out(struct pty_relay *p, const char *b, size_t n)
{
    double end = now_ms() + OUT_STALL_MS;
    while (n > 0) {
        ssize_t w = write(p->out_nb, b, n);
        if (w > 0) {
            b += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        double left = end - now_ms();
        if (w < 0 && errno == EAGAIN && !p->out_stalled && left > 0) {
            struct pollfd f = {.fd = p->out_nb, .events = POLLOUT};
            (void)poll(&f, 1, (int)left + 1);
            continue;
        }
        /* stalled, or root's terminal is gone: the rest is dropped */
        p->out_stalled = w < 0 && errno == EAGAIN;
        atomic_store(&p->dropped, true);
        return;
    }
    p->out_stalled = false;
}

static void copy_winsize(const struct pty_relay *p)
{
    struct winsize ws;
    if (ioctl(p->src, TIOCGWINSZ, &ws) == 0)
        (void)ioctl(p->master, TIOCSWINSZ, &ws);
}

static void *relay_main(void *arg)
{
    struct pty_relay *p = arg;
    char in[BUF], buf[BUF];
    size_t in_len = 0, in_off = 0;
    bool out_open = true, quit = false, paused = false;
    /* Once the command has ended, what it wrote is in the pty's buffer: only
     * that is passed on (below, without waiting), and what a process it left
     * behind writes later never reaches root's terminal. */
    while (!quit && !atomic_load(&p->ended)) {
        bool off = atomic_load(&p->input_off) || !out_open;
        struct pollfd f[4];
        int nf = 0, i_in = -1, i_m = -1, i_pid = -1;
        if (p->in_fd >= 0 && !off && !paused && in_len == 0) {
            i_in = nf;
            f[nf++] = (struct pollfd){.fd = p->in_fd, .events = POLLIN};
        }
        if (out_open) {
            i_m = nf;
            f[nf++] = (struct pollfd){.fd = p->master, .events = POLLIN | (in_len ? POLLOUT : 0)};
        }
        int i_w = nf;
        f[nf++] = (struct pollfd){.fd = p->wake[0], .events = POLLIN};
        if (p->pidfd >= 0) {
            i_pid = nf;
            f[nf++] = (struct pollfd){.fd = p->pidfd, .events = POLLIN};
        }
        int rc = poll(f, (nfds_t)nf, paused ? PAUSED_POLL_MS : -1);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            break;
        if (paused && p->in_fd >= 0 && foreground(p->in_fd))
            paused = false;
        if (f[i_w].revents) {
            char c[16];
            ssize_t n = read(p->wake[0], c, sizeof c);
            for (ssize_t k = 0; k < n; k++) {
                if (c[k] == 'q')
                    quit = true;
                else if (c[k] == 'w')
                    copy_winsize(p);
            }
        }
        if (i_pid >= 0 && f[i_pid].revents) {
            atomic_store(&p->input_off, true); /* it exited: root types for root again */
            atomic_store(&p->ended, true);
        }
        if (i_in >= 0 && f[i_in].revents) {
            ssize_t n = read(p->in_fd, in, sizeof in);
            if (n > 0) {
                in_len = (size_t)n;
                in_off = 0;
            } else if (n < 0 && errno == EIO && !foreground(p->in_fd)) {
                paused = true; /* perfreport went to the background */
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                atomic_store(&p->input_off, true); /* root's terminal is gone */
            }
        }
        if (i_m >= 0 && (f[i_m].revents & POLLOUT) && in_len) {
            ssize_t w = write(p->master, in + in_off, in_len);
            if (w > 0) {
                in_off += (size_t)w;
                in_len -= (size_t)w;
            } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
                in_len = 0;
            }
        }
        if (i_m >= 0 && (f[i_m].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(p->master, buf, sizeof buf);
            if (n > 0)
                write_out(p, buf, (size_t)n);
            else if (n == 0 || (errno != EAGAIN && errno != EINTR))
                out_open = false; /* EIO: nothing holds the pty's other side */
        }
        if (atomic_load(&p->input_off))
            in_len = 0; /* what root typed for the command goes nowhere else */
    }
    for (int k = 0; out_open && k < DRAIN_READS; k++) {
        ssize_t n = read(p->master, buf, sizeof buf);
        if (n <= 0)
            break;
        write_out(p, buf, (size_t)n);
    }
    return NULL;
}

int pty_relay_start(struct pty_relay *p, int pidfd)
{
    p->pidfd = pidfd;
    int fl = fcntl(p->master, F_GETFL);
    if (fl < 0 || fcntl(p->master, F_SETFL, fl | O_NONBLOCK) != 0 ||
        pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        return -errno;
    /* A new open of the terminal itself (our own descriptor's, no name
     * looked up): O_NONBLOCK on it does not reach root's shell.  It must be
     * the same device: a pty master opened again would be a new pty. */
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", p->out_fd);
    p->out_nb = open(self, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (p->out_nb < 0)
        return -errno;
    struct stat was, now;
    if (fstat(p->out_fd, &was) != 0 || fstat(p->out_nb, &now) != 0)
        return -errno;
    if (was.st_rdev != now.st_rdev)
        return -ENXIO;
    g_wake_fd = p->wake[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_winch;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    p->winch_set = sigaction(SIGWINCH, &sa, &p->old_winch) == 0;
    copy_winsize(p); /* it may have changed since the pty was made */
    if (p->in_fd >= 0 && !atomic_load(&p->input_off) && foreground(p->in_fd) &&
        tcgetattr(p->in_fd, &p->saved) == 0) {
        struct termios relay = p->saved;
        relay_modes(&relay);
        /* TCSANOW: not TCSAFLUSH, what root typed ahead is the command's;
         * not TCSADRAIN, which waits for output a suspended terminal never
         * sends (the output modes do not change) */
        if (tcsetattr(p->in_fd, TCSANOW, &relay) == 0)
            p->mode_fd = p->in_fd;
    }
    /* The relay thread takes no signal: they are perfreport's (the window's
     * end, passing them on), and a blocked SIGTTIN turns a read in the
     * background into EIO instead of a stop. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int e = pthread_create(&p->thread, NULL, relay_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e != 0)
        return -e;
    p->running = true;
    return 0;
}

void pty_relay_input_off(struct pty_relay *p)
{
    if (!p || atomic_exchange(&p->ended, true))
        return;
    atomic_store(&p->input_off, true);
    wake(p->wake[1], 'i');
}

void pty_relay_finish(struct pty_relay *p)
{
    if (!p)
        return;
    pty_relay_input_off(p);
    if (p->running) {
        wake(p->wake[1], 'q');
        pthread_join(p->thread, NULL);
    }
    if (p->mode_fd >= 0) {
        /* also from the background (SIGTTOU blocked for the call): the
         * terminal must not stay without echo */
        sigset_t ttou, old;
        sigemptyset(&ttou);
        sigaddset(&ttou, SIGTTOU);
        pthread_sigmask(SIG_BLOCK, &ttou, &old);
        (void)tcsetattr(p->mode_fd, TCSANOW, &p->saved);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        p->mode_fd = -1;
    }
    if (p->winch_set)
        sigaction(SIGWINCH, &p->old_winch, NULL);
    g_wake_fd = -1;
    if (atomic_load(&p->dropped)) {
        /* said where root looks, without waiting on a terminal that may
         * still take nothing */
        static const char msg[] = "perfreport: root's terminal took no output for a while: "
                                  "some of the command's output was dropped\n";
        if (p->is_tty[2]) {
            ssize_t w = write(p->out_nb, msg, sizeof msg - 1);
            (void)w;
        } else {
            fputs(msg, stderr);
        }
    }
    if (p->out_nb >= 0)
        close(p->out_nb);
    for (int i = 0; i < 2; i++)
        if (p->wake[i] >= 0)
            close(p->wake[i]);
    if (p->slave >= 0)
        close(p->slave);
    close(p->master);
    free(p);
}
