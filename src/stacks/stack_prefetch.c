/* Stacks resolved during the window on a thread of their own (see
 * stack_prefetch.h for why and for the priorities). */
#include "stack_prefetch.h"
#include "../util/clock.h"
#include "../util/xalloc.h"
#include "stacks.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

struct stack_ref {
    uint32_t tgid;
    int64_t kstack, ustack;
};

struct stack_prefetch {
    int map_fd;
    unsigned opts; /* enum stack_opts, for the resolver */
    /* The thread owns sr, batch, ms and stacks while running; everyone
     * else touches them only after a join. */
    struct stack_resolver *sr; /* owned until taken; made by the first batch */
    struct stack_ref *batch;   /* owned */
    size_t n, cap;
    double ms;
    uint64_t stacks;
    pthread_t thread;
    bool running;
    atomic_bool quit; /* asks the thread to stop after its current stack */
    atomic_int tid;   /* the thread's id, to give it the caller's priority */
};

struct stack_prefetch *stack_prefetch_new(int stackmap_fd, unsigned opts)
{
    struct stack_prefetch *pf = xcalloc(1, sizeof *pf);
    pf->map_fd = stackmap_fd;
    pf->opts = opts;
    return pf;
}

static void *prefetch_main(void *arg)
{
    struct stack_prefetch *pf = arg;
    atomic_store(&pf->tid, (int)gettid());
    if (!pf->sr)
        pf->sr = stack_resolver_new(stacks_sym_get(), pf->map_fd, pf->opts);
    double t0 = mono_ms();
    for (size_t i = 0; i < pf->n && !atomic_load(&pf->quit); i++)
        pf->stacks += (uint64_t)stack_resolver_prefetch(pf->sr, pf->batch[i].tgid,
                                                        pf->batch[i].kstack, pf->batch[i].ustack);
    pf->ms += mono_ms() - t0;
    return NULL;
}

/* Gives the running thread the calling thread's nice value (nice is per
 * thread on Linux). */
static void follow_caller(struct stack_prefetch *pf)
{
    int tid = atomic_load(&pf->tid);
    errno = 0;
    int nice_now = getpriority(PRIO_PROCESS, 0);
    if (tid > 0 && errno == 0 && setpriority(PRIO_PROCESS, (id_t)tid, nice_now) != 0) {
        /* lowering a nice value needs CAP_SYS_NICE: it finishes niced,
         * slower, still correct */
    }
}

bool stack_prefetch_ready(struct stack_prefetch *pf)
{
    if (!pf)
        return false;
    if (pf->running) {
        if (pthread_tryjoin_np(pf->thread, NULL) != 0) {
            follow_caller(pf);
            return false;
        }
        pf->running = false;
    }
    pf->n = 0;
    return true;
}

void stack_prefetch_add(struct stack_prefetch *pf, uint32_t tgid, int64_t kstack_id,
                        int64_t ustack_id)
{
    if (pf->running || (kstack_id < 0 && ustack_id < 0))
        return;
    xgrow(&pf->batch, &pf->cap, pf->n + 1, sizeof *pf->batch);
    pf->batch[pf->n++] = (struct stack_ref){tgid, kstack_id, ustack_id};
}

void stack_prefetch_run(struct stack_prefetch *pf)
{
    if (pf->running || !pf->n)
        return;
    atomic_store(&pf->quit, false);
    atomic_store(&pf->tid, 0);
    pf->running = pthread_create(&pf->thread, NULL, prefetch_main, pf) == 0;
}

static void join(struct stack_prefetch *pf)
{
    if (!pf->running)
        return;
    atomic_store(&pf->quit, true);
    follow_caller(pf);
    pthread_join(pf->thread, NULL);
    pf->running = false;
}

struct stack_resolver *stack_prefetch_take(struct stack_prefetch *pf, double *ms,
                                           uint64_t *stacks)
{
    *ms = 0;
    *stacks = 0;
    if (!pf)
        return NULL;
    join(pf);
    *ms = pf->ms;
    *stacks = pf->stacks;
    struct stack_resolver *sr = pf->sr;
    pf->sr = NULL;
    return sr;
}

void stack_prefetch_free(struct stack_prefetch *pf)
{
    if (!pf)
        return;
    join(pf);
    stack_resolver_free(pf->sr);
    free(pf->batch);
    free(pf);
}
