/* The rules, as data: one row per finding id, with the resource it is filed
 * under, what to do about it, and the function (in its resource's
 * rules_<resource>.c) that reads named metrics, series and tables
 * (src/model/NAMES.md), judges them against the thresholds table and adds
 * at most one finding.  Every evidence line carries the number and the
 * threshold it was compared with.  A rule whose advice depends on the case
 * has no recommendation here and sets its own. */
#include "analyze_internal.h"
#include <stddef.h>

static const struct rule rules[] = {
    {"cpu.saturation", "cpu",
     "Find what the busiest processes are doing: the CPU flame graph shows the hot code "
     "paths. If one process dominates, profile it (perf record -g -p PID) and fix the hot "
     "loop or cap it with a cgroup CPU quota; if the load is legitimate, add CPUs or "
     "spread the work across hosts.",
     rule_cpu_saturation},
    {"cpu.steal", "cpu",
     "The host running this VM is overcommitted: ask the provider or the virtualisation "
     "admins, move the VM to a less busy host, or use dedicated vCPUs / a larger "
     "instance. Tuning inside the guest will not help.",
     rule_cpu_steal},
    {"cpu.softirq", "cpu",
     "Soft-interrupt time is mostly network receive/transmit and block I/O completion. "
     "Check which type grows in /proc/softirqs, spread interrupts over CPUs (irqbalance, "
     "RSS/RPS), and reduce the packet rate (larger batches, GRO/GSO, fewer small "
     "packets).",
     rule_cpu_softirq},
    {"cpu.ipc_memory_bound", "cpu",
     "The CPUs retire few instructions per cycle while the cache misses often: the code "
     "waits on memory. Profile it (perf record -e cache-misses), then shrink or "
     "reorder the hot data (fewer pointer chases, smaller structures, sequential access), "
     "and on NUMA hosts keep threads near their memory.",
     rule_cpu_ipc_memory_bound},
    {"cpu.branch_misses", "cpu",
     "Many branches are mispredicted, each flushing the pipeline. Find the branches "
     "(perf record -e branch-misses) and make them predictable: sort or partition the "
     "data they test, or replace them with branch-free code.",
     rule_cpu_branch_misses},
    {"memory.pressure", "memory",
     "The working set no longer fits in RAM. Find what grew (largest processes by RSS "
     "above), fix leaks or shrink caches/heaps, add memory, or put memory limits on "
     "batch work so it cannot starve latency-sensitive services.",
     rule_memory_pressure},
    {"memory.swap", "memory", NULL, rule_memory_swap}, /* advice depends on whether it swaps now */
    {"memory.oom", "memory", NULL, rule_memory_oom}, /* advice depends on the cgroup */
    {"cgroup.memory_limit", "cgroup",
     "Page cache counts toward the limit and is reclaimed first, so check anon vs file in "
     "the cgroup's memory.stat before acting. If anonymous memory is near the limit, "
     "raise it (memory.max / memory.limit_in_bytes) or reduce the service's memory use "
     "before the OOM killer does it.",
     rule_cgroup_memory_limit},
    {"cgroup.cpu_throttled", "cgroup",
     "Tasks in this cgroup hit their CPU quota and wait for the next period, which shows "
     "up as latency spikes of up to one period. Raise the quota (cpu.max / "
     "cpu.cfs_quota_us), allow bursts (cpu.max.burst), or make the work use less CPU.",
     rule_cgroup_cpu_throttled},
    {"cgroup.io_throttled", "cgroup",
     "The cgroup's I/O is held at the limit set on it (v2 io.max, v1 "
     "blkio.throttle.*_device), so its tasks wait for the limit, not for the disk. If the "
     "limit is meant, make the work do less I/O (larger and fewer writes, no fsync per "
     "record, reads served from cache); otherwise raise it (io.max: MAJ:MIN wbps=BYTES; "
     "docker --device-write-bps, systemd IOWriteBandwidthMax=).",
     rule_cgroup_io_throttled},
    {"cgroup.memory_growth", "cgroup",
     "Memory charged to this cgroup grows steadily and is not page cache: a leak, or a "
     "cache or queue without a bound, in one of its processes. Find which one (its "
     "processes are in cgroup.procs; ps -o pid,rss,cmd -p them, or the memory section's "
     "largest processes), confirm over a longer window (-d 60), and fix or bound it. "
     "Raising the limit only helps if the growth levels off.",
     rule_cgroup_memory_growth},
    {"disk.saturation", "disk",
     "The device has more I/O than it can serve. Find who issues it (D-state processes "
     "and the off-CPU profile; iotop), then batch or spread the I/O, add page cache "
     "(memory) for re-read data, or move to faster storage. On a VM, check the "
     "hypervisor's storage limits.",
     rule_disk_saturation},
    {"disk.latency", "disk",
     "Each I/O waits longer than this class of device should need. If the queue is deep, "
     "the disk is overloaded (see disk.saturation); if not, the device or its backend is "
     "slow or degraded: check smartctl / nvme smart-log, the RAID or hypervisor storage, "
     "and whether large synchronous writes (fsync) dominate.",
     rule_disk_latency},
    {"net.drops", "network",
     "Receive drops usually mean the host cannot drain the NIC fast enough: check "
     "ethtool -S for ring overflows, grow the rings (ethtool -G), spread interrupts "
     "(RSS/RPS, irqbalance) and raise net.core.netdev_max_backlog. Transmit drops point at "
     "qdisc limits or a saturated link.",
     rule_net_drops},
    {"net.tcp_retransmits", "network",
     "Segments are being lost between this host and its peers (or the peer is too slow to "
     "answer). Check local drops first (net.drops), then the path to the worst peer "
     "above: ss -ti shows per-connection retransmits; look for congested links, bad "
     "NICs/cables, or firewall drops.",
     rule_net_tcp_retransmits},
    {"net.listen_overflow", "network",
     "Find the listening socket with a full accept queue (ss -ltn: Recv-Q at or above "
     "Send-Q) and its process. Make it accept faster (more workers, no blocking work in "
     "the accept loop) and raise its listen() backlog together with "
     "net.core.somaxconn.",
     rule_net_listen_overflow},
    {"net.tcp_resets", "network",
     "Many resets mean connections to closed ports, aborted connections or a client "
     "retry storm. The connections above show which ports and peers; fix the client or "
     "the service that refuses them.",
     rule_net_tcp_resets},
    {"net.rcvbuf_drops", "network",
     "A process does not read its UDP socket as fast as datagrams arrive, and the kernel "
     "drops what its receive buffer cannot hold. Drain it faster (recvmmsg in batches, no "
     "slow work on the reading thread), add readers (SO_REUSEPORT sockets on the same port, "
     "one per thread), or give it more room: setsockopt SO_RCVBUF, which "
     "net.core.rmem_max caps (sysctl -w net.core.rmem_max=BYTES). ss -ulpnm shows each "
     "socket's buffer (skmem rb) and drops (d).",
     rule_net_rcvbuf_drops},
    {"fd.exhaustion", "fd",
     "The next open()/socket()/accept() will fail with EMFILE/ENFILE. Check for a leak "
     "first (ls -l /proc/PID/fd | sort by target: many identical sockets or files), then "
     "raise the limit if the usage is legitimate (LimitNOFILE= in the unit, ulimit -n, "
     "fs.file-max).",
     rule_fd_exhaustion},
    {"fd.growth", "fd",
     "A steady rise over the whole window looks like a descriptor leak. List what the "
     "process holds (ls -l /proc/PID/fd, or lsof -p PID), find the kind that grows "
     "(sockets to one peer, one file, pipes) and the code path that opens it without "
     "closing. Restarting only buys time.",
     rule_fd_growth},
    {"memory.leak_suspect", "memory",
     "Memory allocated during the window keeps growing without being freed. Look at the "
     "not-freed table and its stack: the objects are kept somewhere (a list, a cache "
     "without a bound, a map that is never pruned) or their free is missing on one path. "
     "Confirm over a longer window (-d 60), then with valgrind --leak-check or "
     "heaptrack on a test run.",
     rule_alloc_leak},
    {"memory.growth", "memory",
     "A process whose resident memory rises in every part of the window is leaking or filling "
     "a cache or queue without a bound. See what grows (grep -e Rss -e Anon "
     "/proc/PID/smaps_rollup: anonymous heap or shared memory), then where it is allocated: "
     "perfreport -p PID -d 60 shows the bytes not freed by call stack (or heaptrack, valgrind "
     "on a test run). Bound the cache or queue, fix the missing free, or cap the service "
     "(MemoryMax=, a cgroup memory limit) so that it cannot take the host down; a restart only "
     "buys time.",
     rule_memory_growth},
    {"memory.alloc_rate", "memory",
     "Each malloc/free costs tens to hundreds of nanoseconds and touches allocator locks "
     "and caches. Reuse buffers, allocate once per batch instead of per item, use an "
     "arena or pool for short-lived objects, or a faster allocator (jemalloc, tcmalloc, "
     "mimalloc) for allocation-heavy services.",
     rule_alloc_rate},
    {"sched.runqueue_latency", "cpu",
     "Runnable tasks queue for a CPU. If the CPUs are busy, more work is runnable than "
     "there are CPUs: reduce or spread the load, cap batch work with a cgroup CPU quota "
     "or nice level, or add CPUs. If the CPUs are not busy, look for tasks pinned to few "
     "CPUs (taskset, cpusets) or long non-preemptible kernel sections.",
     rule_sched_runqueue_latency},
    {"cpu.thread_bottleneck", "threads",
     "One thread does the work the others wait for: adding CPUs or threads will not help. "
     "Profile that thread (perf record -g -t TID, or the CPU profile here) and make its "
     "work cheaper, or split it across threads (shard the queue or the lock it holds, "
     "hand out work in batches) so the waiting threads can share it.",
     rule_cpu_thread_bottleneck},
    {"io.cache_misses", "io",
     "Reads are going to the disk instead of memory. Check whether the working set fits "
     "in RAM (memory section: cached vs available), whether something evicts the cache "
     "(large streaming reads, drop_caches, memory pressure), or use O_DIRECT/fadvise "
     "for one-off scans so they do not push hot data out.",
     rule_io_cache_misses},
    {"io.fsync", "io",
     "Every fsync, and every write to a file opened O_SYNC or O_DSYNC, waits for the "
     "device to make data durable. Batch commits (group commit), sync once per batch "
     "instead of per write (open without O_SYNC/O_DSYNC and fdatasync after the batch), "
     "use fdatasync where metadata need not be synced, or move the log to a device with "
     "a fast (power-safe) write cache.",
     rule_io_fsync},
    {"syscall.rate", "syscall",
     "Each syscall costs a kernel entry and exit. Batch the work: larger read/write "
     "buffers, fewer polls (epoll instead of busy polling), vDSO clock reads instead of "
     "syscalls, no getpid/stat in a loop. strace -c -p PID confirms which calls dominate.",
     rule_syscall_rate},
    {"syscall.errors", "syscall", NULL, rule_syscall_errors}, /* advice names the failing call */
    {"process.churn", "process",
     "Every fork+exec costs page-table copies, a binary load and dynamic linking: "
     "milliseconds of CPU each. Replace the shell loop or script calling small tools with "
     "a built-in or a long-lived worker, or batch the calls (xargs -n, one process for "
     "many items).",
     rule_process_churn},
    {"proc.uninterruptible", "process", NULL, rule_proc_uninterruptible}, /* advice per mount kind */
    {"cpu.hotspot", "cpu",
     "One function dominates the CPU: a hot loop. Open the CPU flame graph, follow the "
     "widest tower to the callers of this function and reduce how often it runs or how "
     "much work each call does (algorithm, caching, batching).",
     rule_cpu_hotspot},
    {"offcpu.*", "offcpu", NULL, rule_offcpu_wait}, /* advice per wait class: see rules_offcpu.c */
    {"lock.contention", "lock",
     "Threads take turns on one lock. Shorten the critical section (move work out of "
     "it), split the lock (per-bucket/per-thread data), use a reader-writer lock for "
     "read-mostly data, or reduce the number of threads contending.",
     rule_lock_contention},
    {"dns.latency", "dns",
     "Find where the time goes: the nameservers in /etc/resolv.conf (is the first one "
     "reachable? a dead one costs its whole timeout on every lookup), search domains with "
     "ndots (a short name is tried in every domain first), and whether the process looks "
     "the same name up again and again: a local cache (nscd, systemd-resolved, dnsmasq) or "
     "one in the application answers in well under a millisecond. A lookup near 1 s or 5 s "
     "is a lost reply retried after resolv.conf's timeout.",
     rule_dns_latency},
};

void rules_run(struct report *r)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        rules[i].judge(r, &rules[i]);
}
