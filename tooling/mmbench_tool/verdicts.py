"""./mmbench verdicts: do the suite's verdicts hold, idle and under load?

One guest boot runs the kselftest N times (guest mode "verdicts"); on a
busy host every host CPU runs a busy loop meanwhile (Hog).  The report
counts the runs that failed a case and why, and the skips by reason.
"""
import collections
import os
import re
import subprocess
import sys

from . import guest, ktap
from .common import Phase, say
from .setup import Setup

# The busy loop of one host CPU: pinned to it, it stops at its deadline
# or as soon as its parent is gone, whatever happens to the parent.
HOG = """
import os, sys, time
cpu, seconds, parent = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
try:
    os.sched_setaffinity(0, {cpu})
except OSError:
    pass
end = time.monotonic() + seconds
while time.monotonic() < end and os.getppid() == parent:
    for _ in range(100000):
        pass
"""


class Hog:
    """One busy-loop process per host CPU for the length of a with block.

    The processes are killed when the block ends, however it ends
    (Ctrl-C and a guest timeout included); each also stops by itself
    after @seconds, or when this process is gone, so that none can
    outlive the command.
    """

    def __init__(self, seconds, cpus=None):
        self.seconds = seconds
        self.cpus = sorted(cpus if cpus is not None
                           else os.sched_getaffinity(0))
        self.procs = []

    def __enter__(self):
        try:
            for cpu in self.cpus:
                self.procs.append(subprocess.Popen(
                    [sys.executable, "-c", HOG, str(cpu),
                     str(self.seconds), str(os.getpid())],
                    stdin=subprocess.DEVNULL))
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
        for proc in self.procs:
            proc.wait()


class Run:
    """One run of the suite: run_kselftest.sh's lines and its results."""

    def __init__(self, number):
        self.number = number
        self.lines = []
        self.rc = None          # run_kselftest.sh's, once the run ended

    @property
    def inner(self):
        return ktap.inner_ktap(self.lines)

    @property
    def results(self):
        return ktap.results(self.inner)

    @property
    def complete(self):
        """Ended, judged by the runner, and every planned case reported."""
        plan = re.search(r"^1\.\.(\d+)$", "\n".join(self.inner), re.M)
        return self.rc is not None and \
            ktap.runner_verdict(self.lines) is not None and \
            bool(plan) and int(plan.group(1)) == len(self.results)

    def failures(self):
        """[(case, diagnostic)] of the failed cases: the diagnostic is the
        last "<file>.c:<line>:<test>:" message before the result."""
        found, diag = [], []
        for line in self.inner:
            m = re.match(r"^# \S+\.c:\d+:[^:]*:(.*)$", line)
            if m:
                diag.append(m.group(1).strip())
            r = ktap.RESULT.match(line)
            if r:
                if r.group(1) == "not ok":
                    found.append((r.group(3), diag[-1] if diag else ""))
                diag = []
        return found

    def skips(self):
        return [(r[2], r[4]) for r in self.results if r[3] == "SKIP"]


def parse(lines):
    """The runs in the guest's lines, each between its markers."""
    runs, run = [], None
    for line in lines:
        m = re.match(r"^MMBENCH-VERDICT-BEGIN run=(\d+)", line)
        if m:
            run = Run(int(m.group(1)))
            runs.append(run)
            continue
        m = re.match(r"^MMBENCH-VERDICT-END run=\d+ rc=(\d+)", line)
        if m and run:
            run.rc = int(m.group(1))
            run = None
        elif run:
            run.lines.append(line)
    return runs


class Condition:
    """The runs of one boot, idle or busy, and what they add up to."""

    def __init__(self, load, asked, runs, timed_out=None, spoilt=None):
        self.load = load
        self.asked = asked
        self.runs = runs
        self.timed_out = timed_out
        # EFLAGS no x86 CPU sets in the guest's log, booted twice.
        self.spoilt = spoilt
        self.completed = sum(1 for r in runs if r.complete)
        self.failed_runs = [r for r in runs if r.failures()]

    def goals(self):
        """[(met, goal, what was seen)]."""
        goals = [(len(self.runs) == self.asked and
                  self.completed == self.asked,
                  "every run completed",
                  f"{self.completed} of {self.asked}" +
                  (f"; the guest timed out after {self.timed_out} s"
                   if self.timed_out else "")),
                 (not self.failed_runs and bool(self.runs),
                  f"no case FAILs in {self.asked} runs",
                  f"{len(self.failed_runs)} runs failed a case")]
        return goals

    def report(self):
        """The condition's figures, as lines of text."""
        out = [f"{self.load}: {len(self.runs)} runs of {self.asked} asked, "
               f"{self.completed} completed" +
               (f" (the guest timed out after {self.timed_out} s)"
                if self.timed_out else "") +
               (f"; {guest.spoilt_why(self.spoilt)}" if self.spoilt else "")]
        out.append(f"  FAIL: {len(self.failed_runs)} of {len(self.runs)} "
                   "runs failed a case")
        fails = collections.defaultdict(list)
        for run in self.runs:
            for case, diag in run.failures():
                fails[case].append((run.number, diag))
        for case, seen in sorted(fails.items()):
            out.append(f"    {case}: failed in {len(seen)} runs")
            for number, diag in seen:
                out.append(f"      run {number}: {diag or '(no message)'}")
        skips = collections.defaultdict(list)
        for run in self.runs:
            for case, reason in run.skips():
                key = (case, re.sub(r"[-+]?\d+(\.\d+)?", "N", reason))
                skips[key].append(reason)
        out.append(f"  SKIP: {sum(map(len, skips.values()))} in "
                   f"{len(self.runs)} runs")
        for key, seen in sorted(skips.items(), key=lambda kv: -len(kv[1])):
            out.append(f"    {len(seen):3d}  {key[0]}: {seen[0]}" +
                       (" (figures vary)" if len(set(seen)) > 1 else ""))
        for met, goal, seen in self.goals():
            out.append(f"  goal: {goal}: {'met' if met else 'NOT met'} "
                       f"({seen})")
        return out


def verdict_runs(setup, runs, load, results):
    """Boot once and run the suite @runs times, with every host CPU busy
    when @load is "busy"; return the verdicts.Condition."""
    results.mkdir(parents=True, exist_ok=True)
    saved = setup.extra_env
    setup.extra_env = dict(saved, MMBENCH_RUNS=str(runs))
    hog = None
    if load == "busy":
        # Killed when the guest stops; by itself after the longest the
        # guest can take (two boots) if all else fails.
        hog = Hog(2 * setup.args.timeout + 60)
        say(f"busy host: a busy loop on each of CPUs "
            f"{','.join(map(str, hog.cpus))} while the guest runs")
    try:
        out = setup.boot(
            "verdicts", results, around=hog,
            echo=lambda line: line.startswith("MMBENCH-VERDICT") or
            re.match(r"^(not )?ok \d+ selftests: ", line) is not None)
    finally:
        setup.extra_env = saved
    found = parse(out.lines)
    for one in found:
        (results / f"run{one.number}.ktap").write_text(
            "\n".join(one.inner) + "\n")
    return Condition(load, runs, found, out.timed_out,
                     spoilt=out.spoilt)


def cmd_verdicts(args):
    setup = Setup(args)
    setup.prepare()
    results = guest.results_dir()
    loads = ("idle", "busy") if args.load == "both" else (args.load,)
    conditions = [verdict_runs(setup, args.runs, load, results / load)
                  for load in loads]
    Phase.report()
    say("verdicts of the suite (a measurement with goals):")
    text = []
    for cond in conditions:
        text += cond.report()
    for line in text:
        print(line, flush=True)
    (results / "verdicts.txt").write_text("\n".join(text) + "\n")
    say(f"results in {results}")
    missed = [cond for cond in conditions
              if not all(met for met, _, _ in cond.goals())]
    if missed and all(cond.spoilt for cond in missed):
        say("verdicts NOT JUDGED: QEMU's fault (exit status 2)")
        return 2
    return 1 if missed else 0
