#!/usr/bin/env python3
"""Deterministic folded-stack generator for the flamegraph benchmark.

gen_stacks.py [UNIQUE [SAMPLES [SEED]]] > stacks.folded

Stacks are random walks over a synthetic call graph shaped like real
programs: a few processes, entry points, a layered graph of functions where
callers prefer a few hot callees (Zipf-like), shared library leaves (memcpy,
malloc, locks, syscalls into kernel frames), and occasional recursion.
Depth is 10-60.  Sample counts are skewed: a few stacks are hot, most are
seen once or twice, as in a real profile.
"""
import random
import sys

UNIQUE = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
SAMPLES = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 42
rng = random.Random(SEED)

WORDS = ("alloc buffer cache channel codec commit compact config cursor decode dispatch "
         "encode entry event flush frame handler hash index insert journal lookup merge "
         "message parse pool query queue read reader record request resolve route scan "
         "schedule segment serialize session shard socket sort split state stream sync table "
         "task timer token transaction update validate visit worker write").split()
MODULES = ("std::collections hyper::proto tokio::runtime serde_json::de app::http app::db "
           "app::cache app::auth libpq rocksdb::db zstd openssl::ssl v8::internal "
           "java.util.concurrent org.apache.kafka net::tcp").split()


def fname(i):
    r = random.Random(i * 7919 + SEED)
    mod = r.choice(MODULES)
    name = "_".join(r.choice(WORDS) for _ in range(r.randint(1, 3)))
    sep = "." if "." in mod else "::"
    return f"{mod}{sep}{name}_{i}"


NFUNC = 6000
LAYERS = 12
funcs = [fname(i) for i in range(NFUNC)]
layer_of = [i * LAYERS // NFUNC for i in range(NFUNC)]
by_layer = [[i for i in range(NFUNC) if layer_of[i] == l] for l in range(LAYERS)]
libs = ["memcpy", "malloc", "free", "pthread_mutex_lock", "__GI___libc_write",
        "__GI___libc_read", "epoll_wait", "clock_gettime"]
kernel = [["entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]", "ksys_write_[k]",
           "vfs_write_[k]", "ext4_file_write_iter_[k]"],
          ["entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]", "ksys_read_[k]",
           "vfs_read_[k]", "filemap_read_[k]", "copy_page_to_iter_[k]"],
          ["entry_SYSCALL_64_after_hwframe_[k]", "do_syscall_64_[k]", "__x64_sys_futex_[k]",
           "futex_wait_[k]", "schedule_[k]", "__schedule_[k]"],
          ["asm_exc_page_fault_[k]", "exc_page_fault_[k]", "do_user_addr_fault_[k]",
           "handle_mm_fault_[k]"]]

callees = []
for i in range(NFUNC):
    l = layer_of[i]
    pool = by_layer[min(l + 1, LAYERS - 1)] + by_layer[min(l + 2, LAYERS - 1)]
    k = rng.randint(2, 8)
    callees.append([rng.choice(pool) for _ in range(k)])
    if rng.random() < 0.05:
        callees[i].append(i)  # recursion

comms = ["java", "postgres", "nginx", "node", "python3", "redis-server", "kworker/0:1",
         "Web Content", "rocksdb:low0", "envoy"]
entries = by_layer[0]


def zipf_pick(seq):
    # index ~ 1/(k+1): the first callees are hot
    n = len(seq)
    x = rng.random()
    k = int(n ** x) - 1
    return seq[min(max(k, 0), n - 1)]


def walk():
    depth = rng.randint(10, 60)
    stack = [rng.choice(comms), None]
    cur = zipf_pick(entries)
    stack[-1] = funcs[cur]
    while len(stack) < depth:
        if rng.random() < 0.03 and 9 <= len(stack) < depth - 6:
            stack.append(rng.choice(libs))
            if rng.random() < 0.5:
                stack.extend(rng.choice(kernel))
            break
        cur = zipf_pick(callees[cur])
        stack.append(funcs[cur])
    return ";".join(stack[:depth])


seen = {}
order = []
while len(order) < UNIQUE:
    s = walk()
    if s not in seen:
        seen[s] = 1
        order.append(s)
extra = SAMPLES - UNIQUE
weights = [1.0 / (i + 1) ** 1.1 for i in range(UNIQUE)]
tot = sum(weights)
hot = list(range(UNIQUE))
rng.shuffle(hot)
given = 0
for rank, idx in enumerate(hot):
    add = int(extra * weights[rank] / tot)
    seen[order[idx]] += add
    given += add
for i in range(extra - given):  # the rounding remainder, spread deterministically
    seen[order[hot[i % UNIQUE]]] += 1
out = sys.stdout
for s in order:
    out.write(f"{s} {seen[s]}\n")
