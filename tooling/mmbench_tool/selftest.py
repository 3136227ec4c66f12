"""./mmbench test: mmbench's own tests, what CI runs (.ci/run): the unit
tests, the builds and their checks, the upstream series, and the suite in
guests of every kind, ending with the line 'N passed, N failed'."""
import copy
import re
import sys
import time
from pathlib import Path

from . import (build, comparecheck, deps, guest, intree, ktap, lava, measure,
               revcheck, series, verdicts)
from .common import OUT, REPO, Failure, Phase, run, say
from .options import SMALL_MEMORY, check_options
from .setup import Setup, judge_suite, literal_checks, report, spoilt

# The front end's unit tests, run on the host by ./mmbench test.
UNIT_TESTS = REPO / "tooling" / "tests"
# Runs of the suite under load in ./mmbench test.
LOADED_RUNS = 3
CHECKPATCH_FILES = ["lib/test_mmbench.c",
                    "tools/testing/selftests/mm/mmbench/mmbench_test.c"]


def loaded_guest(setup):
    """The suite LOADED_RUNS times with every host CPU busy."""
    results = guest.results_dir("-loaded")
    cond = verdicts.verdict_runs(setup, LOADED_RUNS, "busy", results)
    (results / "verdicts.txt").write_text("\n".join(cond.report()) + "\n")
    for line in cond.report():
        say(line)
    goals = {goal: (met, seen) for met, goal, seen in cond.goals()}
    fails = sorted({f"{case} (run {one.number}: {diag})"
                    for one in cond.failed_runs
                    for case, diag in one.failures()})
    return spoilt([
        (goals[f"no case FAILs in {LOADED_RUNS} runs"][0],
         f"under load: no case FAILs in {LOADED_RUNS} runs",
         "; ".join(fails[:4] + [f"see {results}"])),
        (goals["every run completed"][0],
         "under load: every run completed",
         f"{goals['every run completed'][1]}; see {results}"),
    ], cond)


def checkpatch(tree):
    checks = []
    script = tree / "scripts/checkpatch.pl"
    for rel in CHECKPATCH_FILES:
        out = run(["perl", str(script), "--strict", "--no-tree",
                   "--terse", "-f", str(REPO / rel)], capture=True,
                  check=False)
        issues = [line for line in out.splitlines()
                  if re.search(r"(ERROR|WARNING|CHECK):", line)]
        checks.append((not issues, f"checkpatch --strict is clean on {rel}",
                       "; ".join(issues[:5])))
    return checks


def series_checks(setup):
    """The checks of the upstream series, in the tree it was applied to:
    checkpatch --strict of each patch file, kernel-doc, get_abi.pl, the
    in-tree build with W=1, and each patch but the last built alone."""
    tree = setup.tree
    patches = sorted(series.BUILD_SERIES.glob("0*.patch"))
    checks = [(bool(patches), f"series: the {len(patches)} patches apply "
               "with git am on linux-source-6.12", str(series.BUILD_SERIES))]
    for n, patch in enumerate(patches, 1):
        issues = series.checkpatch(tree, patch)
        checks.append((not issues, f"series: checkpatch --strict is clean "
                       f"on patch {n}/{len(patches)} ({patch.name})",
                       "; ".join(issues[:5])))
    issues = series.kernel_doc(tree)
    checks.append((not issues, "series: kernel-doc -none is clean on "
                   "lib/test_mmbench.c", "; ".join(issues[:5])))
    issues = series.abi_validate(tree)
    checks.append((not issues, "series: get_abi.pl validate is clean on "
                   "Documentation/ABI", "; ".join(issues[:5])))
    release = build.default_release()
    headers = Path("/lib/modules") / release / "build"
    with Phase("in-tree build"):
        try:
            ko, warnings, took = intree.build(tree, release, headers)
            why = "; ".join(warnings[:5])
        except Failure as e:
            ko, warnings, took, why = None, ["failed"], {}, str(e)
        say("in-tree build: " + ", ".join(f"{k} {v:.1f} s"
                                          for k, v in took.items()))
    checks.append((ko is not None and not warnings,
                   f"in-tree: {intree.OPTION}=m with Debian's config, "
                   "make M=lib W=1 test_mmbench.ko builds without warnings",
                   why))
    with Phase("32-bit build"):
        try:
            warnings, calls, took = intree.build_32bit(tree)
            say(f"32-bit build: {took:.1f} s")
            why = "; ".join(warnings[:5] + [f"calls {c}" for c in calls])
        except Failure as e:
            warnings, calls, why = ["failed"], [], str(e)
    checks.append((not warnings and not calls,
                   "in-tree: the module compiles for 32-bit x86 "
                   "(i386_defconfig) with W=1, without a warning or a "
                   "libgcc 64-bit division call", why))
    with Phase("bisect builds"):
        def module(t):
            return intree.build(t, release, headers)[1]

        def kselftest(t):
            return build.build_kselftest(
                t, install=OUT / "kselftest-bisect")[1]
        try:
            done, total = series.bisect_builds(tree, module, kselftest)
            for n, subject, what, warnings in done:
                checks.append((not warnings, f"series: after patch {n}/"
                               f"{total} ({subject}) the {what} builds "
                               "without warnings", "; ".join(warnings[:5])))
        except Failure as e:
            checks.append((False, "series: each patch builds on its own",
                           str(e)))
    return checks


def _fragment_value(lines, marker, key):
    """The integer @key=<n> on the line starting with @marker, or None."""
    for line in lines:
        m = re.match(rf"^{marker} .*\b{key}=(-?\d+)", line)
        if m:
            return int(m.group(1))
    return None


def fragmented(out, results):
    """Checks of the suite run with every 2 MiB block taken (fragment.sh)."""
    lines = out.fragment or []
    inner = ktap.inner_ktap(lines)
    (results / "fragmented.ktap").write_text("\n".join(inner) + "\n")
    pool = _fragment_value(lines, "MMBENCH-FRAGMENT", "hugepages")
    top = _fragment_value(lines, "MMBENCH-FRAGMENT", "top_free_order")
    after = _fragment_value(lines, "MMBENCH-FRAGMENT-RELEASED",
                            "top_free_order")
    rows = ktap.figures(inner)
    res = ktap.results(inner)
    failed = [r[2] for r in res if not r[0]]
    verdict = ktap.runner_verdict(lines) or "none"
    plan = re.search(r"^1\.\.(\d+)$", "\n".join(inner), re.M)
    complete = bool(plan) and int(plan.group(1)) == len(res)
    high, low = [], []
    for name in ("alloc_pages", "alloc_pages_batch"):
        high += [f"{name}_order{o}" for o in (9, 10)]
        low += [f"{name}_order{o}" for o in range(4)]
    # A row of order 9 or 10 finds no block, or passes when the kernel
    # made one meanwhile (freed buddies merged, or compaction): that is
    # no fault of the kernel's.  One of them at least must find none.
    def no_block(r):
        return rows.get(r, {}).get("status") == "unsupported" and \
            "allocation calls failed" in rows[r].get("reason", "")
    made = [r for r in high if rows.get(r, {}).get("status") == "pass"]
    bad_high = [r for r in high if not no_block(r) and r not in made]
    if not any(no_block(r) for r in high):
        bad_high.append("none of them found no block")
    bad_low = [r for r in low if rows.get(r, {}).get("status") != "pass"]
    where = f"see {results / 'fragmented.ktap'}"
    unavailable = [line for line in lines
                   if line.startswith("MMBENCH-FRAGMENT unavailable")]
    if unavailable:
        where = f"{unavailable[0][len('MMBENCH-FRAGMENT '):]}; {where}"
    for r in high:
        say(f"fragmented: {r}: {rows.get(r, {}).get('status', 'missing')}: "
            f"{rows.get(r, {}).get('reason', '')}")
    return [
        (out.fragment is not None and bool(pool) and top is not None and
         top < 9,
         "fragmented: huge pages took every free block of order 9 and up",
         f"hugepages={pool}, highest free order {top}; {where}"),
        (bool(inner) and not bad_high,
         "fragmented: orders 9 and 10 report unsupported: allocations failed"
         + (f" (the kernel made a block for {', '.join(made)} meanwhile: "
            "those passed)" if made else ""),
         f"wrong: {', '.join(bad_high)}; {where}"),
        (bool(inner) and not bad_low,
         "fragmented: orders 0 to 3 still pass",
         f"wrong: {', '.join(bad_low)}; {where}"),
        (bool(res) and complete and not failed and
         verdict.startswith("ok "),
         "fragmented: every case ran and none failed",
         f"failed: {', '.join(failed) or 'none'}; {len(res)} results of "
         f"plan {plan.group(1) if plan else '?'}; runner: {verdict}; "
         f"{where}"),
        (after is not None and after >= 9,
         "fragmented: the pool given back makes order-9 blocks again",
         f"highest free order after release {after}; {where}"),
    ]


def small_guest(setup):
    """One CPU and little memory: multi-CPU cases skip, nothing breaks;
    then again with no free block of order 9 and up: high orders skip."""
    results = guest.results_dir("-1cpu")
    out = setup.boot("small", results, cpus=1, memory=SMALL_MEMORY)
    inner = ktap.inner_ktap(out.suite)
    (results / "mmbench_test.ktap").write_text("\n".join(inner) + "\n")
    res = ktap.results(inner)
    failed = [r[2] for r in res if not r[0]]
    team = [r for r in res if re.search(r"_(remote_free|remote)\.", r[2])]
    wrong = [r[2] for r in team
             if r[3] != "SKIP" or "needs 2 online CPUs" not in r[4]]
    # The team_cpus= cases run on the one CPU: a row of 1.
    one = [r[2] for r in res if re.search(r"_con(current|tended)\.", r[2])]
    alone = [row for row in ktap.figures(inner) if ktap.CURVE.match(row)]
    # One node: the remote-node cases skip, saying so.
    node = [r for r in res if "_remote_node." in r[2]]
    near = [r[2] for r in node
            if r[3] != "SKIP" or "one node with memory: none remote"
            not in r[4]]
    others = [r for r in res if r not in team]
    where = f"see {results}"
    return spoilt([
        (out.finished and bool(res) and not failed,
         f"1 CPU, {SMALL_MEMORY} MiB: no case fails",
         f"failed: {', '.join(failed) or 'none'}; {where}"),
        (len(team) == 4 and not wrong,
         "1 CPU: the 4 pairs' cases skip, saying they need 2 CPUs",
         f"{len(team)} found, wrong: {', '.join(wrong)}; {where}"),
        (len(one) == 5 and sorted(alone) == [
            "alloc_pages_concurrent_cpus1", "alloc_pages_contended_cpus1",
            "kmalloc_concurrent_cpus1", "kmalloc_contended_cpus1",
            "page_frag_concurrent_cpus1"],
         "1 CPU: the 5 *_concurrent and *_contended cases run a row on 1 "
         "CPU each",
         f"cases {', '.join(one)}; rows {', '.join(alone)}; {where}"),
        (len(node) == 2 and not near,
         "1 node: the 2 remote-node cases skip, saying there is one",
         f"{len(node)} found, wrong: {', '.join(near)}; {where}"),
        (any(r[0] and r[3] != "SKIP" for r in others),
         "1 CPU: the single-CPU cases still pass", where),
    ] + fragmented(out, results) + [
        (not out.kernel_problems(),
         f"1 CPU, {SMALL_MEMORY} MiB: no oops, BUG or WARN",
         "; ".join(out.kernel_problems()[:3])),
    ], out)


# Debian's kernels (and the debug kernel, from Debian's config) tick at
# 250 Hz: jiffies move by 4 ms.
JIFFY_NS = 4000000


def coarse_clock_guest(setup):
    """clocksource=jiffies: ktime_get_ns() moves by a jiffy, too coarse to
    time a sample.  Every row case skips, saying so; none fails; and the
    module says how coarse the clock was (clock_step_ns), as it measured."""
    results = guest.results_dir("-jiffies")
    out = setup.boot("run", results, kernel_args=["clocksource=jiffies"])
    inner = ktap.inner_ktap(out.suite)
    (results / "mmbench_test.ktap").write_text("\n".join(inner) + "\n")
    res = ktap.results(inner)
    failed = [r[2] for r in res if not r[0]]
    rows = [r for r in res if r[2].startswith("mmbench.")]
    wrong = [r[2] for r in rows
             if r[3] != "SKIP" or "ktime_get_ns() steps" not in r[4]]
    steps = [int(v) for v in re.findall(r"^# run\d+\.clock_step_ns=(\d+)$",
                                        "\n".join(inner), re.M)]
    where = f"see {results}"
    return spoilt([
        (out.finished and bool(res) and not failed,
         "clocksource=jiffies: no case fails",
         f"failed: {', '.join(failed) or 'none'}; {where}"),
        (bool(rows) and not wrong,
         "clocksource=jiffies: every row case skips, naming the clock's step",
         f"{len(rows)} row cases, wrong: {', '.join(wrong[:4])}; "
         f"first: {rows[0][3]} {rows[0][4]}; {where}" if rows else where),
        (bool(steps) and min(steps) >= JIFFY_NS // 2,
         "clocksource=jiffies: clock_step_ns says how coarse the clock was",
         f"clock_step_ns {sorted(set(steps))[:4]}, want a jiffy, "
         f"{JIFFY_NS} ns; {where}"),
        (not out.kernel_problems(),
         "clocksource=jiffies: no oops, BUG or WARN",
         "; ".join(out.kernel_problems()[:3])),
    ], out)


def isolated_cpu_guest(setup):
    """isolcpus=1, with a real-time task keeping CPU 1 (RT throttling
    off): no load hangs for it; by default the rows on several CPUs leave
    CPU 1 alone (unsupported), and a row whose worker CPU 1 keeps is
    stopped by the module's 2 s watchdog, an error naming CPU 1
    (isolated.sh)."""
    results = guest.results_dir("-isolated")
    # The kernel's lockup generator: a stall of the kernel on CPU 1.  It
    # builds for Debian's 6.1 and 6.12; a kernel of one's own may differ,
    # and its case then skips.
    files = {}
    if not setup.userland:
        with Phase("test_lockup"):
            try:
                files["/mmbench/test_lockup.ko"] = build.build_lockup(
                    setup.headers, setup.release, setup.cross)
            except Failure as e:
                if not setup.args.kernel:
                    raise
                say(f"lib/test_lockup.c of linux-source-6.12 did not "
                    f"build for {setup.release} ({e}): the isolated "
                    "case of a stall of the kernel skips")
    out = setup.boot("isolated", results, cpus=2,
                     kernel_args=["isolcpus=1"], files=files)
    # A kernel of one's own may lack CONFIG_CPU_ISOLATION: the cases skip.
    checks = section_checks(out.isolated, "the isolated-CPU cases",
                            results / "isolated.ktap",
                            required=not setup.args.kernel)
    checks.append((not out.kernel_problems(),
                   "isolated CPU: no oops, BUG, WARN or hung task",
                   "; ".join(out.kernel_problems()[:3])))
    if out.kmemleak is not None:
        leaks = [line for line in out.kmemleak
                 if line.startswith("unreferenced object")]
        checks.append((not leaks, "isolated CPU: kmemleak finds no leak",
                       f"{len(leaks)} objects; see {results}"))
    return spoilt(checks, out)


def host_tests():
    """Run the front end's unit tests (tooling/tests) on this host;
    return their KTAP, a result a test."""
    with Phase("host-side unit tests"):
        return run([sys.executable, str(UNIT_TESTS / "run.py")],
                   capture=True, check=False, timeout=600)


def host_checks(text, results):
    path = results / "host-tests.ktap"
    path.write_text(text)
    res = ktap.results(text.splitlines())
    plan = re.search(r"^1\.\.(\d+)$", text, re.M)
    checks = [(bool(plan) and int(plan.group(1)) == len(res) and
               bool(res), "every host-side unit test reported",
               f"plan {plan.group(1) if plan else '?'}, {len(res)} "
               f"results; see {path}")]
    checks += [(ok, f"host: {name}", f"see {path}")
               for ok, _, name, _, _ in res]
    return checks


def section_checks(lines, what, path, required=True):
    """The checks of a KTAP section of the guest's (the bad-input cases,
    the fault injection): it ran, each of its cases, every planned case
    reported.  Unless @required, a section that skips as a whole (1..0 #
    SKIP: the kernel lacks what it needs) is fine."""
    path.write_text("\n".join(lines or []) + "\n")
    text = "\n".join(lines or [])
    res = ktap.results(lines or [])
    plan = re.search(r"^1\.\.(\d+)(.*)$", text, re.M)
    if plan and plan.group(1) == "0" and "# SKIP" in plan.group(2):
        say(f"{what}: skipped:{plan.group(2).split('# SKIP', 1)[1]}")
        return [(not required, f"{what} ran in the guest",
                 f"skipped:{plan.group(2)}")]
    checks = [(lines is not None and bool(res), f"{what} ran in the guest",
               f"no {what} section in the guest output" if lines is None
               else f"no result; see {path}")]
    checks += [(ok, f"guest: {name}", f"see {path}")
               for ok, _, name, _, _ in res]
    checks.append((bool(plan) and int(plan.group(1)) == len(res),
                   f"every planned case of {what} reported",
                   f"plan {plan.group(1) if plan else '?'}, "
                   f"{len(res)} results"))
    # KTAP numbers its results 1, 2, 3, ...
    wrong = next(((n, r[1]) for n, r in enumerate(res, 1) if r[1] != n),
                 None)
    if res:
        checks.append((not wrong, f"{what}: results numbered in order",
                       wrong and f"result {wrong[0]} is numbered "
                       f"{wrong[1]}"))
    for line in lines or []:
        if line.startswith("# rows:"):
            say(f"{what}: {line[2:]}")
    return checks


def guest_cases(out, results, faults_required=False):
    """The fault injection and bad-input cases of a guest in "test" mode."""
    return (section_checks(out.faults, "fault injection",
                           results / "faults.ktap", faults_required) +
            section_checks(out.negative, "the bad-input cases",
                           results / "negative.ktap"))


def report_checks(out, results):
    """On the debug kernel: each kind of report, counted over the whole
    guest (suite, fault injection, bad-input cases, rmmod, kmemleak)."""
    lines = out.kernel_log() + (out.kmemleak or [])
    injected, _ = ktap.injected_failure_reports(lines)
    counts = ktap.report_counts(lines)
    say("debug kernel reports: " +
        ", ".join(f"{kind} {n}" for kind, n in counts.items()) +
        f"; {injected} page allocation failure reports of failures "
        "injected on purpose (expected)")
    return [(n == 0, f"{n} {kind} reports",
             f"see {results / 'dmesg.log'} and kmemleak.log")
            for kind, n in counts.items()]


# Seconds the debug kernel's guest may run (see debug_guest()).
DEBUG_TIMEOUT = 3000


def debug_guest(args):
    """The suite on the debug kernel (KASAN, kmemleak, lockdep, ...),
    built once and kept: every check of a run, fault injection, the
    bad-input cases, then rmmod and kmemleak; each kind of report counted."""
    a = copy.copy(args)
    a.debug_kernel, a.kernel, a.headers, a.release = True, None, None, None
    # With memory cgroups, two nodes and the contended rows it takes some
    # 30-35 minutes under TCG, past the 30 of --timeout's default.
    a.timeout = max(a.timeout, DEBUG_TIMEOUT)
    # faults.sh loads it with make_it_fail=1, negative.sh with the others.
    setup = Setup(a, knobs=True)
    setup.prepare()
    results = guest.results_dir("-debug")
    # Two NUMA nodes, as the stock run's: every row runs there too.
    out = setup.boot("test", results,
                     nodes=2 if a.cpus % 2 == 0 else None)
    with Phase("results"):
        checks = judge_suite(setup, out, results)
        checks.append(rows_ran_check(out, results))
        checks += guest_cases(out, results, faults_required=True)
        checks = spoilt(checks + report_checks(out, results), out)
    return [(ok, f"debug kernel: {what}", why) for ok, what, why in checks]


def kernel_guest(args, kernel):
    """The suite on another of Debian's kernels (deps.KERNELS), installed
    by name: the module built against it with W=1 and sparse, and every
    check of a run."""
    start = time.monotonic()
    release = kernel.release()
    with Phase(f"packages ({kernel.name})"):
        deps.ensure(kernel.packages(release))
    a = copy.copy(args)
    a.debug_kernel, a.release = False, None
    a.kernel = Path("/boot") / f"vmlinuz-{release}"
    a.headers = Path("/lib/modules") / release / "build"
    setup = Setup(a, checks=True)
    setup.prepare()
    results = guest.results_dir("-" + kernel.name.replace(" ", "-"))
    out = setup.boot("run", results)
    with Phase("results"):
        checks = [(not setup.module_warnings,
                   "module builds with W=1 and sparse (C=2) without warnings",
                   "; ".join(setup.module_warnings[:5]))]
        checks += spoilt(judge_suite(setup, out, results), out)
    say(f"{kernel.name} kernel {release}: {time.monotonic() - start:.0f} s "
        "in all")
    return [(ok, f"{kernel.name} kernel: {what}", why)
            for ok, what, why in checks]


# How the test begins the reason of a row whose samples the guest's clock
# cannot time (mmbench_test.c): the clock's step, not the kernel's path.
CLOCK_TOO_COARSE = "ktime_get_ns() steps by "


def rows_ran_check(out, results,
                   kinds=("_account_", "_remote_node_", "_contended_")):
    """That the rows of each of @kinds ran and passed, or were too noisy
    to time (which the module's checks passed first), or found the clock
    too coarse to time them (the test's judgement of the guest's clock,
    not the module's): none unsupported by the module, none missing.  The
    debug kernel's, which has CONFIG_MEMCG and CONFIG_NUMA for them."""
    table = ktap.figures(ktap.inner_ktap(out.suite))
    got = {k: [r for r in table if k in r] for k in kinds}
    bad = [f"{r}: {table[r].get('status')}: {table[r].get('reason')}"
           for k in kinds for r in got[k]
           if table[r].get("status") not in ("pass", "noisy") and not
           (table[r].get("status") == "unsupported" and
            str(table[r].get("reason")).startswith(CLOCK_TOO_COARSE))]
    bad += [f"no *{k}* row" for k in kinds if not got[k]]
    return (not bad, "the rows beyond the median run and pass: " +
            ", ".join(f"{len(got[k])} *{k.strip('_')}*" for k in kinds),
            f"not so: {'; '.join(bad) or 'none'}; see {results}")


def remote_node_check(out, results):
    """The check of a guest of two NUMA nodes: every *_remote_node row
    passed, its blocks from node 1 freed on node 0 (the run's CPU); or
    was too noisy to time, which the module's check passed first."""
    table = ktap.figures(ktap.inner_ktap(out.suite))
    rows = {r: f for r, f in table.items() if "_remote_node_" in r}
    want = "from node 1, freed on node 0 (distance "
    bad = [f"{r}: {f.get('status')}: {f.get('reason')}"
           for r, f in rows.items()
           if not (f.get("status") == "pass" and
                   str(f.get("reason")).startswith(want)) and
           f.get("status") != "noisy"]
    return (len(rows) >= 12 and not bad,
            f"2 NUMA nodes: the {len(rows)} remote-node rows pass, saying "
            f"'{want}'", f"not so: {'; '.join(bad) or 'none'}; "
            f"see {results}")


def arm64_guest(args, boot=True):
    """Debian's 6.12 cloud kernel for arm64: the module cross-built against
    it with W=1 and sparse, the kselftest cross-built and linked
    statically; with @boot, the suite under TCG and every check of a run."""
    start = time.monotonic()
    a = copy.copy(args)
    a.debug_kernel, a.kernel, a.headers, a.release = False, None, None, None
    a.arch, a.accel = "arm64", "tcg"
    setup = Setup(a, checks=True)
    setup.prepare()
    checks = [(not setup.module_warnings,
               "module cross-builds with W=1 and sparse (C=2) without "
               "warnings", "; ".join(setup.module_warnings[:5])),
              (not setup.kselftest_warnings,
               "kselftest cross-builds, linked statically, without "
               "warnings", "; ".join(setup.kselftest_warnings[:5]))]
    if boot:
        results = guest.results_dir("-arm64")
        out = setup.boot("run", results)
        with Phase("results"):
            checks += spoilt(judge_suite(setup, out, results), out)
    else:
        say("arm64: the guest is not booted (--no-arm64-guest)")
    say(f"arm64 kernel {setup.release}: {time.monotonic() - start:.0f} s "
        "in all")
    return [(ok, f"arm64 kernel: {what}", why) for ok, what, why in checks]


def compare_guests(args):
    """./mmbench compare on real guests: a known regression found."""
    start = time.monotonic()
    try:
        checks = comparecheck.test_checks(args, guest.results_dir("-compare"))
    except (Failure, ValueError) as e:
        checks = [(False, "compare: a known regression in real guests",
                   str(e))]
    try:
        checks += comparecheck.icount_checks(
            args, guest.results_dir("-compare-icount"))
    except (Failure, ValueError) as e:
        checks += [(False, "compare --accel icount: three instructions "
                    "found in real guests", str(e))]
    say(f"compare guests: {time.monotonic() - start:.0f} s in all")
    return checks


def revision_guests():
    """./mmbench measure --tree on two real builds of the project's
    linux-source-6.12 tree: a known change found on the rows it reaches
    alone, a layout-only control with no verdict (revcheck)."""
    start = time.monotonic()
    try:
        checks = revcheck.checks(guest.results_dir("-revisions"))
    except (Failure, ValueError, OSError) as e:
        checks = [(False, "measure --tree: two real builds compared",
                   str(e))]
    say(f"revision guests: {time.monotonic() - start:.0f} s in all")
    return checks


def cmd_test(args):
    # The module with its test-only knobs (tooling/kernel/patches/
    # test_mmbench-knobs.patch): the bad-input cases (negative.sh) and
    # fault injection (faults.sh) use them.
    setup = Setup(args, checks=True, knobs=True)
    check_options(args)
    # The unit tests of compare need its statistics and plots, those of
    # the initramfs cpio: before the packages of a guest come (prepare()).
    with Phase("packages (compare)"):
        deps.ensure(measure.COMPARE_PACKAGES |
                    {"cpio": deps.PACKAGES["cpio"]})
    unit = host_tests()
    setup.prepare()
    checks = [
        (not setup.module_warnings,
         "module builds with W=1 and sparse (C=2) without warnings",
         "; ".join(setup.module_warnings[:5])),
        (not setup.kselftest_warnings,
         "kselftest builds in the series tree without warnings",
         "; ".join(setup.kselftest_warnings[:5])),
    ]
    checks += checkpatch(setup.tree)
    checks += series_checks(setup)
    results = guest.results_dir()
    checks += host_checks(unit, results)
    # Two NUMA nodes: the remote-node rows run, and negative.sh breaks
    # their check (the small guest has one: they skip there).
    out = setup.boot("test", results, literal=True,
                     nodes=2 if args.cpus % 2 == 0 else None)
    with Phase("results"):
        judged = judge_suite(setup, out, results)
        if setup.nodes > 1:
            judged.append(remote_node_check(out, results))
        judged += literal_checks(setup, out, results)
        judged += guest_cases(out, results,
                              faults_required=args.debug_kernel)
        if args.debug_kernel:
            judged += report_checks(out, results)
        checks += spoilt(judged, out)
    checks += small_guest(setup)
    # A kernel of one's own may tick at another rate than Debian's.
    if not args.kernel:
        checks += coarse_clock_guest(setup)
    checks += isolated_cpu_guest(setup)
    checks += loaded_guest(setup)
    if not args.kernel and not args.debug_kernel:
        checks += lava.lava_guest(setup)[0]
    checks += compare_guests(args)
    # Debian's other kernels and the stock run's debug twin, unless a
    # kernel of one's own is tested.
    if not args.kernel and not args.debug_kernel:
        checks += revision_guests()
        for kernel in deps.KERNELS:
            checks += kernel_guest(args, kernel)
        checks += arm64_guest(args, boot=args.arm64_guest)
        checks += debug_guest(args)
    Phase.report()
    report(checks)
    npass = sum(1 for ok, _, _ in checks if ok)
    nfail = len(checks) - npass
    say(f"results in {results}")
    # Again at the end, where a log cut to its tail still shows them.
    for ok, what, why in checks:
        if not ok:
            say(f"failed: {what}" + (f" ({why})" if why else ""))
    print(f"{npass} passed, {nfail} failed", flush=True)
    return 0 if nfail == 0 else 1
