/* The shared syscall tap: see systap.h and bpf/systap.bpf.c. */
#include "systap.h"
#include "collector.h"
#include "kbpf.h"
#include "systap.skel.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One tap per process: the module owns it, the collectors borrow it
 * between acquire and release.  All fields under tap_mu. */
static pthread_mutex_t tap_mu = PTHREAD_MUTEX_INITIALIZER;
static struct systap_bpf *tap_skel;
static unsigned tap_users; /* enum systap_part bits */
static bool tap_classic;
static bool tap_io_attached;
static int tap_io_errno; /* why the I/O programs did not load, 0 if they did or were not tried */

static const char *const io_hooks[] = {"mm_filemap_get_pages", "mm_filemap_add_to_page_cache",
                                       "block_rq_issue"};

static bool io_hooks_present(void)
{
    return kbpf_missing_tp_btf(io_hooks, sizeof io_hooks / sizeof io_hooks[0]) == NULL;
}

enum tap_mode { TAP_BTF_IO, TAP_BTF, TAP_CLASSIC };

/* Opens, loads and attaches the sys_enter/sys_exit pair; in TAP_BTF_IO the
 * I/O programs are loaded too (attached on demand).  NULL with errno set. */
static struct systap_bpf *tap_open(enum tap_mode mode, uint32_t tgid, uint64_t cgid)
{
    struct systap_bpf *skel = systap_bpf__open();
    if (!skel)
        return NULL;
    bool classic = mode == TAP_CLASSIC, io = mode == TAP_BTF_IO;
    skel->rodata->targ_tgid = tgid;
    skel->rodata->targ_cgid = cgid;
    skel->rodata->self_tgid = (uint32_t)getpid();
    bpf_program__set_autoload(skel->progs.tap_enter_btf, !classic);
    bpf_program__set_autoload(skel->progs.tap_exit_btf, !classic);
    bpf_program__set_autoload(skel->progs.tap_enter_tp, classic);
    bpf_program__set_autoload(skel->progs.tap_exit_tp, classic);
    bpf_program__set_autoload(skel->progs.io_get_pages, io);
    bpf_program__set_autoload(skel->progs.io_add_page, io);
    bpf_program__set_autoload(skel->progs.io_blk_issue, io);
    if (!classic)
        bpf_map__set_max_entries(skel->maps.calls_tid, 1);
    else /* kernels without tp_btf may lack task storage too */
        bpf_map__set_autocreate(skel->maps.calls, false);
    int rc = systap_bpf__load(skel);
    if (rc == 0 && !skel->bss)
        rc = -EOPNOTSUPP; /* no mmapable maps: the part switches need them */
    if (rc == 0) {
        struct bpf_program *enter = classic ? skel->progs.tap_enter_tp : skel->progs.tap_enter_btf;
        struct bpf_program *leave = classic ? skel->progs.tap_exit_tp : skel->progs.tap_exit_btf;
        struct bpf_link **le = classic ? &skel->links.tap_enter_tp : &skel->links.tap_enter_btf;
        struct bpf_link **lx = classic ? &skel->links.tap_exit_tp : &skel->links.tap_exit_btf;
        *le = bpf_program__attach(enter);
        if (!*le)
            rc = -errno;
        else if (!(*lx = bpf_program__attach(leave)))
            rc = -errno;
    }
    if (rc) {
        systap_bpf__destroy(skel);
        errno = rc < 0 ? -rc : EINVAL;
        return NULL;
    }
    return skel;
}

static int attach_io(struct systap_bpf *s)
{
    struct {
        struct bpf_program *p;
        struct bpf_link **l;
    } progs[] = {{s->progs.io_get_pages, &s->links.io_get_pages},
                 {s->progs.io_add_page, &s->links.io_add_page},
                 {s->progs.io_blk_issue, &s->links.io_blk_issue}};
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        if (*progs[i].l)
            continue;
        *progs[i].l = bpf_program__attach(progs[i].p);
        if (!*progs[i].l)
            return -errno;
    }
    return 0;
}

static void set_part(enum systap_part part, bool on)
{
    if (!tap_skel)
        return;
    switch (part) {
    case SYSTAP_SYSCALLS: tap_skel->bss->sc_on = on; break;
    case SYSTAP_IOLAYERS: tap_skel->bss->io_on = on; break;
    case SYSTAP_FUTEX: tap_skel->bss->futex_on = on; break;
    }
}

struct systap_bpf *systap_acquire(const struct collect_ctx *ctx, enum systap_part part,
                                  bool *classic, char *err, size_t n)
{
    uint32_t tgid;
    uint64_t cgid;
    if (kbpf_target(ctx, &tgid, &cgid, err, n) != 0)
        return NULL;
    pthread_mutex_lock(&tap_mu);
    struct systap_bpf *out = NULL;
    if (!tap_skel) {
        tap_classic = false;
        tap_io_attached = false;
        tap_io_errno = 0;
        int btf_errno = 0;
        bool try_btf = !kbpf_force_classic();
        if (try_btf && io_hooks_present()) {
            tap_skel = tap_open(TAP_BTF_IO, tgid, cgid);
            if (!tap_skel)
                tap_io_errno = errno; /* the pair without them may still load */
        }
        if (try_btf && !tap_skel) {
            tap_skel = tap_open(TAP_BTF, tgid, cgid);
            btf_errno = tap_skel ? 0 : errno;
        }
        if (!tap_skel) {
            tap_classic = true;
            tap_skel = tap_open(TAP_CLASSIC, tgid, cgid);
        }
        if (!tap_skel) {
            char m1[96], m2[96];
            libbpf_strerror(errno ? errno : EINVAL, m2, sizeof m2);
            if (btf_errno) {
                libbpf_strerror(btf_errno, m1, sizeof m1);
                snprintf(err, n, "loading/attaching the sys_enter/sys_exit programs failed: "
                         "tp_btf: %s; raw_syscalls: %s", m1, m2);
            } else {
                snprintf(err, n, "loading/attaching the sys_enter/sys_exit programs failed: %s",
                         m2);
            }
            goto out;
        }
    }
    if (part == SYSTAP_IOLAYERS && !tap_io_attached) {
        if (tap_classic || !bpf_program__autoload(tap_skel->progs.io_get_pages)) {
            if (tap_io_errno) {
                char msg[96];
                libbpf_strerror(tap_io_errno, msg, sizeof msg);
                snprintf(err, n, "the filemap/block programs did not load: %s", msg);
            } else {
                snprintf(err, n, "needs tp_btf sys_enter and the filemap/block tp_btf hooks");
            }
            goto out_unused;
        }
        int rc = attach_io(tap_skel);
        if (rc) {
            char msg[128];
            libbpf_strerror(-rc, msg, sizeof msg);
            snprintf(err, n, "attaching the filemap/block programs failed: %s", msg);
            goto out_unused;
        }
        tap_io_attached = true;
    }
    tap_users |= part;
    *classic = tap_classic;
    out = tap_skel;
    goto out;
out_unused:
    if (!tap_users) {
        systap_bpf__destroy(tap_skel);
        tap_skel = NULL;
    }
out:
    pthread_mutex_unlock(&tap_mu);
    return out;
}

static void set_acquired_parts(bool on)
{
    pthread_mutex_lock(&tap_mu);
    for (unsigned part = SYSTAP_SYSCALLS; part <= SYSTAP_FUTEX; part <<= 1)
        if (tap_users & part)
            set_part((enum systap_part)part, on);
    pthread_mutex_unlock(&tap_mu);
}

int systap_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    (void)state;
    set_acquired_parts(true);
    return 0;
}

int systap_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    (void)state;
    set_acquired_parts(false);
    return 0;
}

void systap_release(enum systap_part part)
{
    pthread_mutex_lock(&tap_mu);
    if (tap_users & part) {
        set_part(part, false);
        tap_users &= ~(unsigned)part;
        if (!tap_users) {
            systap_bpf__destroy(tap_skel);
            tap_skel = NULL;
        }
    }
    pthread_mutex_unlock(&tap_mu);
}
