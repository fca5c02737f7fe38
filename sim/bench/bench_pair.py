#!/usr/bin/env python3
"""bench_pair.py - two builds of a benchmark timed against each other in
the same run, so that the shared machine's drift cannot bias the ratio.

    python3 sim/bench/bench_pair.py [--rounds N] [--slice S] [--core C]
                                    BASE NEW [-- BENCH_ARGS...]

BASE and NEW are two benchmark programs that print `name value unit`
lines (build/bench_web of two builds; BENCH_ARGS, e.g. `--days 0.5`, go to
both). Each round starts both, on one core, and lets only one run at a
time, switching every S seconds (SIGSTOP / SIGCONT): a slow spell of the
machine falls on both alike, where runs one after the other (even
interleaved) see it on one side only. Which one runs first alternates
between rounds. Each side is charged its own CPU time (the benchmarks
report rates per CPU second), so the ratio is what the change is worth.

Prints, per round, NEW/BASE of every rate line (`*_per_s`), then each
rate's median over the rounds with both medians. A performance change
must leave the results alone, so every count line (`*_events`,
`*handshakes`, `*_verify_runs`) must be equal between the two and
between rounds: a difference is reported and the exit status is 1.

Why not timed tests: the machine is shared. Why one core: two
processes on two cores would each see the other's memory traffic only
part of the time.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

# Lines that count what a run did: equal for two builds of one model.
COUNT = re.compile(r"(_events|handshakes|_verify_runs)$")
RATE = re.compile(r"_per_s$")


def parse(text):
    """The `name value` pairs of a benchmark's output."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            try:
                out[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return out


def run_round(cmds, order, slice_s):
    """Runs the commands alternately on one core; their outputs by index."""
    procs, outs, readers = {}, {}, []
    for i in order:
        p = subprocess.Popen(cmds[i], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        os.kill(p.pid, signal.SIGSTOP)
        procs[i] = p

        def read(i=i, p=p):
            outs[i] = p.stdout.read().decode(errors="replace")

        t = threading.Thread(target=read)
        t.start()
        readers.append(t)
    live, turn = list(order), 0
    try:
        while live:
            i = live[turn % len(live)]
            p = procs[i]
            os.kill(p.pid, signal.SIGCONT)
            end = time.monotonic() + slice_s
            while time.monotonic() < end and p.poll() is None:
                time.sleep(0.01)
            if p.poll() is None:
                os.kill(p.pid, signal.SIGSTOP)
                turn += 1
            else:
                live.remove(i)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
    for t in readers:
        t.join()
    codes = {i: procs[i].wait() for i in procs}
    return outs, codes


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--slice", type=float, default=2.0,
                    help="seconds each side runs before the other (2)")
    ap.add_argument("--core", type=int, default=None,
                    help="the core both run on (default: the last one)")
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    if a.rounds < 1 or a.slice <= 0:
        ap.error("--rounds must be at least 1 and --slice above 0")
    extra = a.args[1:] if a.args[:1] == ["--"] else a.args
    core = a.core if a.core is not None else (os.cpu_count() or 1) - 1
    pin = ["taskset", "-c", str(core)] if shutil.which("taskset") else []
    cmds = [pin + [a.base] + extra, pin + [a.new] + extra]
    results = [[], []]
    for r in range(a.rounds):
        order = [0, 1] if r % 2 == 0 else [1, 0]
        outs, codes = run_round(cmds, order, a.slice)
        for i in (0, 1):
            if codes[i] != 0:
                sys.stderr.write("bench_pair: %s exited with %d:\n%s" %
                                 ((a.base, a.new)[i], codes[i], outs.get(i, "")))
                return 2
            results[i].append(parse(outs[i]))
        b, n = results[0][-1], results[1][-1]
        rates = [k for k in b if RATE.search(k) and k in n and b[k] > 0]
        print("round %d: " % (r + 1) +
              "  ".join("%s %.3f" % (k, n[k] / b[k]) for k in rates), flush=True)
    bad = 0
    first = results[0][0]
    for k in sorted(k for k in first if COUNT.search(k)):
        seen = sorted({res.get(k) for side in results for res in side},
                      key=lambda v: (v is None, v))
        if len(seen) != 1:
            print("count differs: %s %s" % (k, seen))
            bad = 1
    for k in [k for k in first if RATE.search(k)]:
        pairs = [(b.get(k), n.get(k)) for b, n in zip(*results)]
        if any(not x or y is None for x, y in pairs):
            continue
        print("%s: base %.0f new %.0f median ratio %.3f" %
              (k, statistics.median(x for x, _ in pairs),
               statistics.median(y for _, y in pairs),
               statistics.median(y / x for x, y in pairs)))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
