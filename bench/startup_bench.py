#!/usr/bin/env python3
"""startup_bench.py [--runs N] [--before BIN] BIN: start-up and finalisation
figures of design section 9, medians over N runs (default 5).

Per load (idle; 10 CPU spinners on the host; 10 spinners with perfreport
started at nice 10 and the idle I/O class, as a unit with Nice=10 and
IOSchedulingClass=idle runs it) it prints:
  start->open  process start to the "window open" line (-v), seconds
  end->bundle  window end to bundle published, perfreport's own -v figure
  wall         the whole run
and, idle only, the own CPU (user + sys) of a `-d 10` run.
With --before, the runs of BEFORE and BIN alternate (paired), so a change in
the host's load hits both alike."""
import argparse, os, re, resource, shutil, signal, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--before")
ap.add_argument("--spinners", type=int, default=10)
ap.add_argument("--burner", default="build/workloads/burner")
ap.add_argument("bin")
a = ap.parse_args()
# killed, still stop the spinners (the finally clause below)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
tmp = tempfile.mkdtemp(prefix="perfreport-startup.")
env = dict(os.environ)
env.setdefault("PERFREPORT_LOCK", os.path.join(tmp, "lock"))


def run(binary, dur, nice, tag):
    """One run; returns (start->open s, end->bundle s, wall s, cpu s)."""
    out = os.path.join(tmp, tag)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "-d", str(dur), "-v", "--quiet", "-o", out]
    if nice:  # as the example systemd unit runs it (before this change: idle I/O too)
        cmd = ["ionice", "-c", "3", "nice", "-n", str(nice)] + cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                         env=env)
    opened = float("nan")
    fin = float("nan")
    for line in p.stderr:
        if "window open" in line and opened != opened:
            opened = time.monotonic() - t0
        m = re.search(r"window end to bundle published: ([0-9.]+) ms", line)
        if m:
            fin = float(m.group(1)) / 1000.0
    p.wait()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    shutil.rmtree(out, ignore_errors=True)
    return opened, fin, wall, cpu


def med(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


bins = [("before", a.before)] if a.before else []
bins.append(("after", a.bin))
spin = []


def spinners(n):
    global spin
    for s in spin:
        s.kill()
        s.wait()
    spin = [subprocess.Popen([a.burner, "3600"], stdout=subprocess.DEVNULL)
            for _ in range(n)]
    if n:
        time.sleep(1.0)


print("start-up and finalisation: %d CPUs, medians of %d runs, %s" %
      (os.cpu_count(), a.runs, time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime())))
print("%-8s %-30s %12s %12s %8s" % ("binary", "load", "start->open", "end->bundle", "wall"))
try:
    loads = [("idle -d 2", 0, 0), ("%d spinners -d 2" % a.spinners, a.spinners, 0),
             ("%d spinners, nice 10 + idle I/O, -d 2" % a.spinners, a.spinners, 10)]
    for label, nspin, nice in loads:
        spinners(nspin)
        res = {name: [] for name, _ in bins}
        for i in range(a.runs):
            for name, b in bins:
                res[name].append(run(b, 2, nice, "%s%d" % (name, i)))
        for name, _ in bins:
            r = res[name]
            print("%-8s %-30s %11.2fs %11.2fs %7.1fs" %
                  (name, label, med([x[0] for x in r]), med([x[1] for x in r]),
                   med([x[2] for x in r])))
        sys.stdout.flush()
    spinners(0)
    res = {name: [] for name, _ in bins}
    for i in range(a.runs):
        for name, b in bins:
            res[name].append(run(b, 10, 0, "%s-cpu%d" % (name, i)))
    for name, _ in bins:
        print("%-8s own CPU of an idle -d 10 run: %.2f CPU-s (median; budget 0.5)" %
              (name, med([x[3] for x in res[name]])))
finally:
    spinners(0)
    shutil.rmtree(tmp, ignore_errors=True)
