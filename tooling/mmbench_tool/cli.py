"""./mmbench subcommands: run (the suite in a guest), test (our tests),
bench (how far the figures can be trusted), verdicts (how often the
verdicts hold, idle and under load) and lava (the suite as a LAVA job)."""
import argparse
import copy
import os
import re
import signal
import sys
import time
from pathlib import Path

from . import (build, compare, deps, fleet, guest, intree, ktap, lava,
               measure, revcheck, revisions, series, verdicts)
from .common import OUT, REPO, Failure, Phase, run, say
from .options import (EXIT_CODES, _add_arch_option, _add_guest_options,
                      _add_measure_options, check_options, path_arg)
from .export import cmd_export
from .lava import cmd_lava
from .run import cmd_run
from .selfbench import cmd_bench
from .verdicts import cmd_verdicts, verdict_runs
from .setup import Setup, judge_suite, literal_checks, report, spoilt

# The front end's unit tests, run on the host by ./mmbench test.
UNIT_TESTS = REPO / "tooling" / "tests"
# Runs of the suite under load in ./mmbench test.
LOADED_RUNS = 3
# Memory of the small guest of ./mmbench test, in MiB.
SMALL_MEMORY = 192
CHECKPATCH_FILES = ["lib/test_mmbench.c",
                    "tools/testing/selftests/mm/mmbench/mmbench_test.c"]


def loaded_guest(setup):
    """The suite LOADED_RUNS times with every host CPU busy."""
    results = guest.results_dir("-loaded")
    cond = verdict_runs(setup, LOADED_RUNS, "busy", results)
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
    team = [r for r in res if re.search(r"_(concurrent|remote_free|remote)\.",
                                        r[2])]
    wrong = [r[2] for r in team
             if r[3] != "SKIP" or "needs two online CPUs" not in r[4]]
    others = [r for r in res if r not in team]
    where = f"see {results}"
    return spoilt([
        (out.finished and bool(res) and not failed,
         f"1 CPU, {SMALL_MEMORY} MiB: no case fails",
         f"failed: {', '.join(failed) or 'none'}; {where}"),
        (len(team) == 7 and not wrong,
         "1 CPU: the 7 multi-CPU cases skip, saying they need two CPUs",
         f"{len(team)} found, wrong: {', '.join(wrong)}; {where}"),
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
    off): no load hangs for it, and the rows that need CPU 1 are
    unsupported, saying why (isolated.sh)."""
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


def debug_guest(args):
    """The suite on the debug kernel (KASAN, kmemleak, lockdep, ...),
    built once and kept: every check of a run, fault injection, the
    bad-input cases, then rmmod and kmemleak; each kind of report counted."""
    a = copy.copy(args)
    a.debug_kernel, a.kernel, a.headers, a.release = True, None, None, None
    setup = Setup(a)
    setup.prepare()
    results = guest.results_dir("-debug")
    out = setup.boot("test", results)
    with Phase("results"):
        checks = judge_suite(setup, out, results)
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
        checks = measure.test_checks(args, guest.results_dir("-compare"))
    except (Failure, ValueError) as e:
        checks = [(False, "compare: a known regression in real guests",
                   str(e))]
    try:
        checks += measure.icount_checks(args,
                                        guest.results_dir("-compare-icount"))
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
    setup = Setup(args, checks=True)
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
    out = setup.boot("test", results, literal=True)
    with Phase("results"):
        judged = judge_suite(setup, out, results)
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
    print(f"{npass} passed, {nfail} failed", flush=True)
    return 0 if nfail == 0 else 1


def _add_compare_commands(sub):
    p = sub.add_parser(
        "measure", help="measure two kernels in alternating boots and "
        "compare them",
        description="Boot kernel A and kernel B in turn (A, B, A, B, ...: "
        "host drift falls on both), --boots times each, loading the module "
        "--loads times a boot, with samples=3 unless --param says other "
        "(loads, not samples, narrow a comparison); save each kernel's "
        "results archive (A.jsonl, B.jsonl) and compare them as ./mmbench "
        "compare does. Both sides are sampled alike: samples, sample_us, "
        "iterations and budget_ms go in --param, not --a-param or "
        "--b-param. Without "
        "--a-kernel (with --a-headers) or --b-kernel a side is --kernel's, "
        "or Debian's stock 6.12 kernel; "
        "--a-param and --b-param are module parameters of one side only "
        "(e.g. --b-param slow_into=kmalloc_64:40, a known regression).",
        epilog="exit status: 0 no REGRESSION (INCONCLUSIVE rows do not "
        "change it: read the table), 1 a REGRESSION, 2 bad options, a step "
        "that could not be done or NOT COMPARABLE, 130 interrupted. Under "
        "TCG, time moves with code layout: with --tree use --accel icount "
        "to see a change in path length.")
    _add_guest_options(p)
    _add_arch_option(p)
    for side in ("a", "b"):
        S = side.upper()
        p.add_argument(f"--{side}-kernel", type=path_arg,
                       help=f"kernel image of {S} (with --{side}-headers)")
        p.add_argument(f"--{side}-headers", type=path_arg,
                       help=f"build tree of {S}'s kernel")
        p.add_argument(f"--{side}-release", help=f"uname -r of {S}'s kernel")
        p.add_argument(f"--{side}-param", action="append", default=[],
                       metavar="NAME=VALUE",
                       help=f"a module parameter of {S} only, repeatable")
    p.add_argument("--tree", type=path_arg, metavar="DIR",
                   help="a kernel git tree: build REV_A and REV_B of it "
                        "(x86_64, out of tree, in the build cache; the "
                        "tree itself is only read) and measure them")
    p.add_argument("revisions", nargs="*", metavar="REV",
                   help="with --tree: revision A, then revision B (any "
                        "name git rev-parse takes: v6.12, HEAD~1, a hash)")
    p.add_argument("--config", type=path_arg, metavar="FILE",
                   help="with --tree: the .config both revisions are "
                        "built with (checked for what the guest needs: "
                        "tooling/kernel/guest.config); default tinyconfig "
                        "with guest.config and the kselftest's config")
    p.add_argument("--layouts", type=int,
                   default=revisions.DEFAULT_LAYOUTS,
                   help="with --tree: code layouts a revision, 1.."
                        f"{revisions.MAX_LAYOUTS} (default "
                        f"{revisions.DEFAULT_LAYOUTS}): builds whose code "
                        "is shifted by padding that never runs, the boots "
                        "spread over them, so that compare sees what "
                        "layout alone does to each row")
    p.add_argument("--align-functions", action="store_true",
                   help="with --tree: build both with "
                        "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B, as the "
                        "kernel test robot re-tests a suspected regression")
    p.add_argument("--aa", action="store_true",
                   help="with --tree: let A and B be the same commit (an "
                        "A/A: no row should get a verdict)")
    _add_measure_options(p)
    p.set_defaults(func=measure.cmd_measure)
    p = sub.add_parser(
        "compare", help="compare two results archives row by row",
        description="For every row: the medians, the change of B against "
        "A in % with its 95 % interval (under icount in instructions an "
        "op: path length, not time), a p-value of Welch's t test on the "
        "medians of each boot's loads (on the means of each layout's boots "
        "where a kernel was measured in several layouts), "
        "Benjamini-Hochberg over the rows (q = 0.05) and one verdict: "
        "REGRESSION, IMPROVEMENT, NO CHANGE, INCONCLUSIVE (with about how "
        "many more boots a kernel would decide, or that layout alone moves "
        "the row as much) or NOT COMPARABLE; a forest plot and each row's "
        "samples (PNG). A and B: archives (.jsonl) or results folders with "
        "an archive.jsonl; or one folder of ./mmbench measure.",
        epilog="exit status: 0 no regression, 1 a REGRESSION, 2 bad "
        "archives or NOT COMPARABLE")
    p.add_argument("a", type=path_arg, metavar="A")
    p.add_argument("b", type=path_arg, nargs="?", metavar="B")
    p.add_argument("--norm", choices=compare.NORMS,
                   default=compare.DEFAULT_NORM,
                   help=f"default {compare.DEFAULT_NORM}, none when both "
                        "archives are icount's")
    p.add_argument("-o", "--output", type=path_arg,
                   help="folder for compare.txt, compare.json and the "
                        "plots (default: the measure folder, or a new "
                        "results folder)")
    p.add_argument("--no-plots", action="store_true")
    p.set_defaults(func=measure.cmd_compare)
    p = sub.add_parser(
        "compare-check", help="how far compare's verdicts hold (a "
        "benchmark, not a test)",
        description="aa: the stock kernel (or --kernel's) against itself, "
        "--comparisons times, counting REGRESSION and IMPROVEMENT verdicts (goal: at "
        "most 1 in all), and each row's minimum detectable effect; known: "
        "slow_into making inc_dec_zone_page_state, kmalloc_64 and "
        "alloc_pages_order0 2, 5 and 10 % slower (calibrated against "
        "alu_chain in a first boot), each level compared with the stock "
        "kernel (or --kernel's) --comparisons times: the detection rate "
        "of each; split: "
        "no guest, the boots of one kernel's archives (--reuse FOLDER) "
        "drawn --boots a side into --comparisons A/A comparisons (no boot "
        "on both sides), per normalisation the comparisons that flag a "
        "row, the median minimum detectable "
        "effect and how often +5 and +10 % added to three rows is found. "
        "split and --reuse boot nothing: they refuse the options that "
        "say how to boot a guest.",
        epilog="exit status (aa: the goal of at most 1 false verdict; the MDE and +2 % figures are printed, not judged): 0 goal met, 1 missed, 2 a step failed or NOT COMPARABLE")
    p.add_argument("what", choices=("aa", "known", "split"))
    _add_guest_options(p)
    _add_arch_option(p)
    _add_measure_options(p)
    p.add_argument("--comparisons", type=int, default=20,
                   help="comparisons (default 20)")
    p.add_argument("--reuse", type=path_arg,
                   help="recompute from the archives of an earlier "
                        "compare-check folder, booting nothing (aa: with "
                        "each boot's first --loads loads)")
    p.set_defaults(func=measure.cmd_compare_check)
    p = sub.add_parser(
        "fleet", help="an archive's figures for LAVA, KCIDB or LKP",
        description="Print an archive's rows in a fleet's format (tooling/doc/"
        "ci.md, \"Metric names\"): lava (lava-test-case commands with "
        "measurement and units), kcidb (JSON) or lkp (key: value).",
        epilog="exit status: 0 printed, 2 not an archive, an archive "
        "without rows, or one of --accel icount (its ns/op are "
        "instructions)")
    p.add_argument("archive", type=path_arg)
    p.add_argument("--format", choices=fleet.FORMATS, default="lava",
                   help="default lava")
    p.set_defaults(func=measure.cmd_fleet)


def parse(argv):
    """The command line @argv parsed: its args, with .func the command's
    function; argparse's refusal (SystemExit 2) for what it does not
    take."""
    parser = argparse.ArgumentParser(
        prog="mmbench",
        description="Benchmark mm hot paths inside a kernel, as a kselftest.",
        epilog=EXIT_CODES)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "run", help="run the suite on Debian's 6.12 kernel in a QEMU guest",
        description="Build test_mmbench and the mm/mmbench kselftest, boot "
        "the kernel in QEMU, run the kselftest there as LKFT does and judge "
        f"its KTAP. Results go to {OUT}/results/<date-time>/ (MMBENCH_OUT "
        "moves out/).", epilog=EXIT_CODES)
    _add_guest_options(p)
    _add_arch_option(p)
    p.add_argument("--loads", type=int,
                   help="after the suite, load the module this many times "
                        "more (2..50) and write every row of every load to "
                        "the results archive, archive.jsonl")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser(
        "test", help="run mmbench's own tests",
        description="Run the front end's unit tests (tooling/tests) on "
        "this host, build with W=1 and sparse, run checkpatch --strict, "
        "check the upstream series (checkpatch of each patch, kernel-doc, "
        "get_abi.pl) and build it in the 6.12 tree, patch by patch, "
        "run the suite, the literal 'make -C tools/testing/selftests "
        "TARGETS=mm/mmbench run_tests' (in a copy of that tree, built "
        "here) and the bad-input cases in a QEMU guest, then the "
        f"suite in a 1-CPU {SMALL_MEMORY} MiB guest, plain and with no free "
        "block of order 9 or above, with clocksource=jiffies, three times "
        "under host load, "
        "as a LAVA job with lava-run, a known regression that ./mmbench "
        "compare must find (four boots), "
        "on Debian's 6.1 cloud and 6.12 rt kernels (installed by name), "
        "on Debian's 6.12 cloud kernel for arm64 (cross-built, under "
        "TCG), and on the debug kernel (built once and kept), and end with the line "
        "'N passed, N failed'.", epilog=EXIT_CODES)
    _add_guest_options(p)
    p.add_argument("--no-arm64-guest", dest="arm64_guest",
                   action="store_false",
                   help="only cross-build for arm64, without booting its "
                        "guest (which takes about a minute)")
    p.add_argument("--arm64-guest", dest="arm64_guest", action="store_true",
                   default=True, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_test)
    p = sub.add_parser(
        "lava", help="run the suite as a LAVA job with lava-run",
        description="Install lava-dispatcher, build what ./mmbench run "
        "builds, write the device and job files (tooling/lava/, with "
        "file:// urls of Debian's 6.12 cloud kernel and of a ramdisk with "
        "the guest's contents) and run the job with lava-run, no "
        "lava-server; its test definition turns each row into LAVA test "
        "cases: mmbench.<row> (pass, fail or skip) and "
        "mmbench.<row>.ns_per_op (the median, in ns). Prints LAVA's "
        "results and checks that every row arrived.", epilog=EXIT_CODES)
    _add_guest_options(p)
    p.set_defaults(func=cmd_lava)
    p = sub.add_parser(
        "bench", help="measure how far the figures can be trusted",
        description="A benchmark, not a test: in the guest, time the "
        "default suite, then load the module --loads times and print the "
        "baseline, the ndelay slope errors and the spread "
        "of each benchmark's median across loads.", epilog=EXIT_CODES)
    _add_guest_options(p)
    _add_arch_option(p)
    p.add_argument("--loads", type=int, default=5,
                   help="separate module loads, 2..50 (default 5)")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser(
        "verdicts", help="how often the verdicts hold, idle and under load",
        description="Boot once and run the suite --runs times, on an idle "
        "host and with every host CPU kept busy by a busy loop this command "
        "starts and stops; print, for each, the runs that failed a case "
        "and why, the skips by reason, and how often each timing case "
        "judged. Exits 1 when a goal is missed: every run completes, no "
        "case fails, and idle, at most one timing-case SKIP in "
        f"{verdicts.IDLE_RUNS_PER_SKIP} runs.", epilog=EXIT_CODES)
    _add_guest_options(p)
    _add_arch_option(p)
    p.add_argument("--runs", type=int, default=10,
                   help="runs of the suite per condition, 1..100 "
                        "(default 10)")
    p.add_argument("--load", choices=("idle", "busy", "both"),
                   default="both",
                   help="the host idle, every host CPU busy, or one boot "
                        "each (default both)")
    p.set_defaults(func=cmd_verdicts)
    _add_compare_commands(sub)
    p = sub.add_parser(
        "export", help="write the upstream patch series",
        description="Commit the series of tooling/upstream/series on a new "
        "branch of a git tree of linux-source-6.12 (made once under "
        f"{OUT}), and write it with git format-patch --cover-letter, the "
        "cover letter quoting the figures of the latest run.",
        epilog=EXIT_CODES)
    p.add_argument("-o", "--output", type=path_arg, default=OUT / "series",
                   help=f"folder of the patch files (default {OUT}/series;"
                        " its old *.patch files are removed)")
    p.add_argument("--results", type=path_arg,
                   help="results folder the cover letter's figures come "
                        f"from (default {OUT}/results/latest)")
    p.add_argument("--check", action="store_true",
                   help="run checkpatch.pl --strict on each patch and "
                        "kernel-doc on the module; exit 1 on any report")
    p.set_defaults(func=cmd_export)
    args, extra = parser.parse_known_args(argv)
    if extra:
        # The command's usage, not the top level's.
        sub.choices[args.command].error("unrecognized arguments: " +
                                        " ".join(extra))
    return args


def main(argv):
    args = parse(argv)
    # A kill is an interrupt: the guest and any busy loop are stopped.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        if os.environ.get("MMBENCH_OUT") == "":
            raise Failure("MMBENCH_OUT is empty: name a folder, or unset it "
                          f"for {REPO / 'out'}")
        try:
            OUT.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise Failure(f"MMBENCH_OUT={OUT}: cannot make that folder: "
                          f"{e.strerror or e}") from e
        return args.func(args)
    except (Failure, OSError) as e:
        # An OSError no step turned into a Failure (a file that cannot be
        # read, a folder that cannot be made): 2, not a traceback and 1,
        # which measure and compare say for a REGRESSION.
        if isinstance(e, OSError):
            e = f"{e.filename + ': ' if e.filename else ''}" \
                f"{e.strerror or e}"
        Phase.report()
        # Not on stdout, which may be data (fleet's formats).
        print(f"mmbench: error: {e}", file=sys.stderr, flush=True)
        if args.command == "test":
            print("0 passed, 1 failed", flush=True)
        return 2
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame):
    raise KeyboardInterrupt
