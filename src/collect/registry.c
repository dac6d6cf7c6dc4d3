#include "collector.h"

extern const struct collector collector_host, collector_cpu, collector_memory, collector_psi,
    collector_disk, collector_net, collector_procs, collector_cgroup, collector_oomkill,
    collector_runqlat, collector_biolat, collector_iolayers, collector_syscalls,
    collector_procevents, collector_tcpevents, collector_profile, collector_offcpu,
    collector_futex, collector_pagefault, collector_alloc, collector_hwcounters,
    collector_swcounters, collector_dns, collector_threads;

/* Run order: host facts first, then the interval collectors.  Collectors are
 * stopped in this order too, so the cheap /proc ones come before any that
 * must drain BPF maps (their last reading stays close to the window end). */
const struct collector *const collector_registry[] = {
    &collector_host,
    &collector_cpu,
    &collector_memory,
    &collector_psi,
    &collector_disk,
    &collector_net,
    &collector_procs,
    &collector_threads,
    &collector_cgroup,
    &collector_hwcounters,
    &collector_swcounters,
    /* BPF collectors after every /proc one: they drain maps in stop(). */
    &collector_oomkill,
    &collector_runqlat,
    &collector_biolat,
    &collector_iolayers,
    &collector_syscalls,
    &collector_procevents,
    &collector_tcpevents,
    &collector_profile,
    &collector_offcpu,
    &collector_pagefault,
    &collector_alloc,
    &collector_futex,
    &collector_dns,
    NULL,
};
