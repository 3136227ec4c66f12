"""./mmbench measure, compare, compare-check and fleet: two kernels (or
one with a known regression) measured in alternating boots, compared row
by row, and the figures in the fleets' formats."""
import copy
import json
import math
import os
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from . import (archive, bench, compare, deps, fleet, guest, names, plots,
               revisions)
from .common import Failure, Phase, say

COMPARE_PACKAGES = {
    "python3-scipy": "the t distribution of ./mmbench compare",
    "python3-matplotlib": "the forest plot and the samples of ./mmbench "
                          "compare",
}
# Module loads give a comparison more than samples do: a row's samples
# in one load share the host's state of those milliseconds, loads are
# nearly independent (tooling/doc/compare-method.md).
COMPARE_SAMPLES = 3
# What alternate() writes: {kernel: seconds of guest time}.
GUEST_TIME = "guest_time.json"
# Issue 12's goal: a 2 % change found on 80 % of rows in 2 minutes of
# guest time a kernel.
GOAL_GUEST_S = 120
GOAL_MDE_PCT = 2.0
GOAL_ROWS = 0.8
# The rows compare-check known slows, one of each kind, and the changes.
KNOWN_ROWS = {"inc_dec_zone_page_state": "inc_dec_zone_page_state",
              "kmalloc_64": "kmalloc",
              "alloc_pages_order0": "alloc_pages"}     # row: its benchmark
KNOWN_PCTS = (2, 5, 10)
CALIBRATION = "alu_chain"
CHAIN_STEPS = 1000


class Side:
    """One kernel (and its parameters) of a measurement."""

    def __init__(self, name, args, kernel=None, headers=None, release=None,
                 params=(), opt="--param"):
        from .options import module_params
        from .setup import Setup
        self.name = name
        a = copy.copy(args)
        a.kernel, a.headers, a.release = kernel, headers, release
        a.param = list(args.param) + list(params)
        # Where each came from, for module_params()'s errors: @params
        # are the side's own (--a-param, --b-param: @opt).
        a.param_opts = ["--param"] * len(args.param) + [opt] * len(params)
        # A comparison's time is better spent on loads than on samples
        # (tooling/doc/compare-method.md): fewer a load, unless asked.
        if not any(p.startswith("samples=") for p in module_params(a)):
            a.param.append(f"samples={COMPARE_SAMPLES}")
            a.param_opts.append("--param")
        # --debug-kernel: both sides boot the debug kernel, unless a
        # side has a kernel of its own.
        a.debug_kernel = getattr(args, "debug_kernel", False) and not kernel
        # A side's guest loads the module (bench.sh), never the kselftest.
        a.loads_only = True
        # The same code layout every boot, unless asked: a row's cost
        # moves less from boot to boot (tooling/doc/compare-method.md).
        a.kernel_arg = list(dict.fromkeys(
            ([] if getattr(args, "kaslr", False) else ["nokaslr"]) +
            list(getattr(args, "kernel_arg", []))))
        self.args = a
        self.setup = Setup(a)

    def prepare(self):
        from .options import check_options
        check_options(self.args)
        self.setup.prepare()


def same_module(sides, knobs=False):
    """Build every side's module alike: with the test-only knobs on all
    (knobs.PATCH) when one side's parameters name a knob (slow_into on B),
    or with @knobs; else the plain module on all.  A comparison then
    measures what the knob does, not the patch's other code."""
    from .options import module_params
    knobs = knobs or any(names.knobs_given(module_params(s.args))
                         for s in sides)
    for s in sides:
        s.setup.knobs = knobs
    return sides


def with_param(params, param):
    """@params with @param (NAME=VALUE) in place of its NAME's value."""
    name = param.split("=", 1)[0] + "="
    return [p for p in params if not p.startswith(name)] + [param]


def same_sampling(sides):
    """Refuse, before anything boots, sides whose module parameters
    sample differently: compare would call them NOT COMPARABLE."""
    from .options import module_params
    got = {s.name: archive.sampling(module_params(s.args)) for s in sides}
    if len(set(got.values())) > 1:
        raise Failure("the kernels would be sampled differently (" +
                      "; ".join(f"{k}: {v}" for k, v in got.items()) +
                      "), and compare would call them NOT COMPARABLE: "
                      "give samples, sample_us, iterations and budget_ms to both "
                      "(--param), not to one (--a-param, --b-param)")


def same_cpus(sides):
    """Refuse sides whose cpus= would run the selected rows on several
    CPUs in one kernel only (fewer than two CPUs for them in the other):
    compare would have those rows of one kernel alone, after the whole
    measurement.  Other CPUs on each side are a question one may ask."""
    from .options import module_params
    runs, said, teams = {}, {}, names.team_benchmarks()
    for s in sides:
        params = dict(p.split("=", 1) for p in module_params(s.args))
        chosen = params.get("benchmarks", "all").split(",")
        if chosen != ["all"] and not teams & set(chosen):
            return
        kernel_args = getattr(s.args, "kernel_arg", [])
        arch = getattr(s.args, "arch", "x86_64")
        runs[s.name] = len(names.cpus_of(params, s.args.cpus, kernel_args,
                                         arch) or ()) >= 2
        said[s.name] = f"cpus={params['cpus']}" if "cpus" in params else \
            names.online_cpus(s.args.cpus, kernel_args, arch)[2]
    if len(set(runs.values())) > 1:
        raise Failure("the rows on several CPUs would run in one kernel "
                      "only (" + "; ".join(
                          f"{k}: {v}, " + ("two CPUs or more" if runs[k]
                                           else "one CPU")
                          for k, v in said.items()) +
                      "): give cpus to both (--param), or leave those rows "
                      "out of benchmarks=")


def died_why(d):
    """The first line of @d/console.log that says why a guest died."""
    try:
        text = (d / "console.log").read_text(errors="replace")
    except OSError:
        return "no console.log"
    for line in text.splitlines():
        if re.search(r"Oops|BUG:|Kernel panic|general protection", line):
            return line.strip()
    return "no oops or panic in console.log"


# (kernel, words) unknown_kernel_args() said: compare-check boots the
# same kernels for each of its comparisons, and A/A the same as A and B.
_said_unknown = set()


def unknown_kernel_args(side, lines, d):
    """Say which --kernel-arg words the kernel of @side's guest (its
    MMBENCH-BENCH @lines) did not know.  It passes them to init, so a
    misspelt one changes nothing; but some that work are read by arch
    code alone and said too (nospectre_v2, noxsave; nokaslr, which
    measure adds and whose effect the fingerprint's kaslr shows, is left
    out): said, not refused, once per kernel and words.  Returns the
    words the kernel did not know."""
    said = bench.parse_prefixed(lines, "guest ").get("unknown_params")
    if not said:
        return []
    bad = [w for w in side.args.kernel_arg
           if w in said.split() and w != "nokaslr"]
    key = (getattr(side.setup, "release", None),
           getattr(side.args, "kernel", None),
           getattr(side.args, "debug_kernel", False), tuple(bad))
    if bad and key not in _said_unknown:
        _said_unknown.add(key)
        say(f"warning: kernel {side.name} did not know --kernel-arg "
            f"{' '.join(bad)} (\"Unknown kernel command line parameters\" "
            "in its log): if misspelt, it changed nothing; a few that work "
            "are read by arch code alone and said too (nospectre_v2). "
            f"See {d}")
    return bad


# What alternate() says when QEMU's icount mode spoilt every boot tried
# (a death with impossible EFLAGS, or a guest cut short of its loads),
# and when QEMU did without icount (such EFLAGS in both boots of
# Setup.boot()).
ICOUNT_FAULT = "QEMU's icount fault"
QEMU_FAULT = "QEMU's fault"


class EmulatorFault(Failure):
    """Every boot tried was spoilt by QEMU's fault: the emulator's
    doing, not the kernel's."""


def short_of_loads(lines, loads):
    """Why a guest that finished ran fewer than @loads loads (its
    MMBENCH-BENCH @lines: a shell that bench.sh ran in died, as QEMU's
    icount mode does now and then), or None; None for @lines that are
    not a list (nothing to tell)."""
    if not isinstance(lines, list):
        return None
    done = {m.group(1) for m in (re.match(r"MMBENCH-BENCH load=(\d+) "
                                          r"(?:run_ms=|insmod failed)", line)
                                 for line in lines) if m}
    if len(done) >= loads:
        return None
    trap = next((line.strip() for line in lines
                 if USER_TRAP.search(line)), None)
    return f"ran {len(done)} of {loads} loads" + \
        (f" ({trap})" if trap else "")


# What a kernel says when it kills the guest's programs itself: the OOM
# killer, an oops, a panic.  Not its other "BUG:" lines (a soft lockup,
# a workqueue lockup, sleeping in atomic context): timing under a busy
# TCG host, or a debug kernel's splat, that kill no program.
KILLED_BY_KERNEL = re.compile(
    r"Out of memory|oom-kill|Oops|Kernel panic|kernel BUG at|"
    r"BUG: unable to handle|BUG: kernel NULL pointer|"
    r"general protection fault")
# A user program's trap ("traps: sh[153] ...", "segfault at"): what
# QEMU's icount fault leaves.
USER_TRAP = re.compile(r"traps: |segfault at")


def kernel_said(d):
    """The first line of @d/console.log in which the kernel says it
    killed the guest's programs (KILLED_BY_KERNEL), or None; None too
    where a user program trapped (USER_TRAP), QEMU's mark."""
    try:
        lines = (d / "console.log").read_text(errors="replace").splitlines()
    except OSError:
        return None
    if any(USER_TRAP.search(line) for line in lines):
        return None
    return next((line.strip() for line in lines
                 if KILLED_BY_KERNEL.search(line)), None)


# A kernel's boots left out (QEMU spoilt every try) that compare-check
# replaces before it stops.
REPLACEMENTS = 2


def _boot_sound(s, i, d, loads, retry, guest_s):
    """Boot kernel @s's boot @i in folder @d, loading the module @loads
    times, until a guest finishes sound; returns its output.  A death, or
    a guest short of its loads in icount mode, is tried again (see
    alternate()); None when QEMU spoilt every try and @retry: the boot
    is left out, its folders kept."""
    # QEMU 7.2's icount mode kills a guest now and then, with EFLAGS no
    # CPU has (tooling/doc/compare-method.md): more tries, and in
    # measure too, for that death alone; the kernel's own deaths are
    # booted again once, with @retry.  Without icount Setup.boot() has
    # booted a guest with such flags twice already: its out.spoilt.
    icount = s.args.accel == "icount"
    tries = 4 if icount else 2
    fault = ICOUNT_FAULT if icount else QEMU_FAULT
    kernel_deaths = faults = attempt = 0
    while True:
        attempt += 1
        start = time.monotonic()
        out = s.setup.boot(
            "loads", d,
            echo=lambda line: line.startswith(
                "MMBENCH-BENCH load=") and "run_ms=" in line or
            "insmod failed" in line)
        took = getattr(out, "guest_s", None)
        guest_s[s.name] += took if isinstance(took, (int, float)) \
            else time.monotonic() - start
        spoilt = getattr(out, "spoilt", None)
        flags = guest.impossible_eflags(d) if icount else \
            spoilt if isinstance(spoilt, str) else None
        short = None
        if not out.timed_out and out.finished:
            short = short_of_loads(out.lines, loads)
            if short and not icount:
                say(f"warning: kernel {s.name}, boot {i}: {short}; "
                    f"its archive has those; see {d}")
                short = None
            # Short of its loads where the kernel says why (the OOM
            # killer took the shell, an oops): the kernel's, as a death.
            own = short and not flags and kernel_said(d)
            if own:
                short = f"{short}, its kernel saying: {own}"
            # Flags corrupted in a guest that lived: what else the
            # emulator got wrong there is unknown.
            short = short or (flags and f"finished, but with EFLAGS "
                              f"{flags} in its log, bits no x86 CPU sets")
            if not short:
                return out
        else:
            own = None
        # A guest that finished short of its loads in icount mode, with
        # nothing from its kernel, or with such flags: the emulator's
        # fault that did not kill it, taken as one.
        flags = not short and flags
        emulation = bool(short or flags) and not own
        kernel_deaths += not emulation
        faults += emulation
        # @tries of QEMU's, or the kernel's own deaths (two with
        # @retry), whichever comes first: neither counts against the
        # other.  The boot is QEMU's when its faults came first.
        last = faults == tries or kernel_deaths == 1 + bool(retry)
        blamed = last and emulation
        if last and not (blamed and retry):
            raise (EmulatorFault if blamed else Failure)(
                f"kernel {s.name}, boot {i}: the guest "
                + (short or f"did not finish ({died_why(d)})")
                + f"; see {d}"
                + (f" ({attempt} tries; {fault}"
                   + (f": EFLAGS {flags}, bits no x86 CPU sets"
                      if flags else "") + ")" if blamed else
                   f" ({attempt} tries, {kernel_deaths} of them "
                   "without the emulator's flags)"
                   if icount and attempt > 1 else ""))
        died = d.with_name(d.name + "-died" +
                           (str(attempt) if attempt > 1 else ""))
        if died.exists():
            shutil.rmtree(died)
        d.rename(died)
        d.mkdir()
        why = short or f"did not finish ({died_why(died)})" + \
            (f", with EFLAGS {flags}, bits no x86 CPU sets"
             if flags else "")
        if last:
            d.rmdir()
            say(f"kernel {s.name}, boot {i}: left out: the guest {why} "
                f"({attempt} tries; {fault}" +
                (f", after {kernel_deaths} death of the kernel's"
                 if kernel_deaths else "") + f"); see {died}")
            return None
        say(f"kernel {s.name}, boot {i}: the guest {why}; see "
            f"{died}: booting it again")


def alternate(sides, boots, loads, results, first=1, retry=False):
    """Boot each side in turn, @boots rounds (A, B, A, B, ...), loading
    the module @loads times a boot; each boot's archive goes to
    @results/<side>-boot<i>/archive.jsonl (i from @first) and is
    appended to @results/<side>.jsonl (made anew by its first boot when
    @first is 1: a run that fails before leaves no empty archive).
    A guest that does not finish is an error, unless @retry (the
    benchmarks of compare-check, hours of boots): then it is said,
    its folder kept as <side>-boot<i>-died, and the boot made once
    more.  A boot QEMU spoilt at every try (_boot_sound()) is an
    error too, unless @retry: then it is left out and replaced by a
    boot numbered after the others, REPLACEMENTS times at most a side,
    so that each side still has @boots boots for compare.  Returns
    {side name: that file}."""
    from .setup import save_archive
    files = {s.name: results / f"{s.name}.jsonl" for s in sides}
    begun = set() if first == 1 else set(files)
    guest_s = {s.name: 0.0 for s in sides}
    todo = [(i, s) for i in range(first, first + boots) for s in sides]
    spare = {s.name: REPLACEMENTS for s in sides}
    last = first + boots - 1
    # Boots begun, and the seconds those done took: the time left.
    total, begun_n, took = len(todo), 0, []
    while todo:
        i, s = todo.pop(0)
        d = results / f"{s.name}-boot{i}"
        d.mkdir(parents=True, exist_ok=True)
        s.setup.extra_env = {"MMBENCH_LOADS": str(loads)}
        layouts = getattr(s, "layouts", None)
        where = ""
        if layouts:
            # A kernel's boots go round its layout variants.
            k = (i - 1) % len(layouts)
            s.setup.layout, s.setup.kernel = layouts[k]
            where = f", layout {k + 1} of {len(layouts)}"
        begun_n += 1
        say(f"boot {begun_n} of {total} ({s.name}-boot{i}{where}"
            + ("" if i <= last else ", in place of one left out") + "): "
            + time_left(took, total - begun_n + 1)
            + f"{s.setup.release} {' '.join(s.args.param)}")
        start = time.monotonic()
        if s.args.accel == "auto" and hasattr(s.setup, "kvm"):
            # Probed at its first boot: the probe's answer is kept for
            # one kernel at a time, and A and B take turns.
            s.args.accel = "kvm" if s.setup.kvm else "tcg"
        out = _boot_sound(s, i, d, loads, retry, guest_s)
        took.append(time.monotonic() - start)
        if out is None:
            if not spare[s.name]:
                raise EmulatorFault(
                    f"kernel {s.name}: {REPLACEMENTS + 1} boots left out, "
                    f"QEMU's fault at every try; see {results}")
            spare[s.name] -= 1
            todo.append((max([last, i] + [j for j, _ in todo]) + 1, s))
            total += 1
            continue
        lines = out.lines if isinstance(out.lines, list) else []
        unknown_kernel_args(s, lines, d)
        bad = [line for line in lines
               if line.startswith("MMBENCH-GZ-ERROR")]
        if bad:
            say(f"kernel {s.name}, boot {i}: {len(bad)} loads' "
                f"figures could not be unpacked ({bad[0]}); their "
                f"rows are missing from the archive; see {d}/guest.log")
        recs = save_archive(s.setup, out, d, "loads")
        archive.write(files[s.name], recs, append=s.name in begun)
        begun.add(s.name)
    for name, secs in guest_s.items():
        say(f"kernel {name}: {secs:.0f} s of guest time ({boots} boots of "
            f"{loads} loads)")
    (results / GUEST_TIME).write_text(json.dumps(guest_s) + "\n")
    return files


def time_left(took, boots):
    """"about N min left; " for @boots more boots (this one too), each
    taking the mean of the seconds in @took (the boots done); "" before
    the first is done."""
    if not took:
        return ""
    secs = _mean(took) * boots
    return (f"about {max(1, round(secs / 60))} min left; " if secs >= 90
            else f"about {max(1, round(secs))} s left; ")


def _mean(values):
    return math.fsum(values) / len(values)


def guest_time(folders):
    """What the boots of @folders (alternate()'s) took a kernel: "median
    N s, most M s" of guest time, or None when none says."""
    secs = []
    for d in folders:
        try:
            secs += json.loads((d / GUEST_TIME).read_text()).values()
        except (OSError, ValueError):
            continue
    if not secs:
        return None
    return (f"guest time a kernel and comparison: median "
            f"{statistics.median(secs):.0f} s, most {max(secs):.0f} s "
            f"(goal: at most {GOAL_GUEST_S} s)")


def _side_args(args, which):
    """Side()'s options of side @which ("a" or "b"): its own kernel
    (--a-kernel with --a-headers and --a-release, never mixed with
    --kernel's), else --kernel's (both sides'), else the stock one."""
    g = lambda k: getattr(args, f"{which}_{k}", None)  # noqa: E731
    own = any(g(k) for k in ("kernel", "headers", "release"))
    src = (lambda k: g(k)) if own else (lambda k: getattr(args, k))
    return {"kernel": src("kernel"), "headers": src("headers"),
            "release": src("release"), "params": g("param") or []}


def check_sides(args):
    """Refuse --a-/--b- kernel options that do not go together, naming
    them (check_options() would name --kernel), before anything is
    installed."""
    for w in ("a", "b"):
        g = lambda k: getattr(args, f"{w}_{k}", None)  # noqa: E731
        if bool(g("kernel")) != bool(g("headers")):
            raise Failure(f"--{w}-kernel and --{w}-headers go together")
        if g("release") is not None and not g("headers"):
            raise Failure(f"--{w}-release goes with --{w}-kernel and "
                          f"--{w}-headers")
        for opt in ("kernel", "headers"):
            if g(opt) and not Path(g(opt)).exists():
                raise Failure(f"--{w}-{opt} {g(opt)}: does not exist")
        from . import arch as archmod, options
        options.check_release(g("kernel") and Path(g("kernel")),
                          g("headers") and Path(g("headers")), g("release"),
                          archmod.of(args), f"--{w}-")
        if g("kernel") and getattr(args, "debug_kernel", False):
            raise Failure(f"--debug-kernel boots the debug kernel on both "
                          f"sides: not with --{w}-kernel")


def same_selection(sides):
    """Refuse, before anything boots, sides that would run other
    benchmarks: compare calls a row measured in one kernel only an
    error."""
    from .options import module_params
    got = {s.name: dict(p.split("=", 1) for p in module_params(s.args))
           .get("benchmarks", "all") for s in sides}
    if len({frozenset(v.split(",")) for v in got.values()}) > 1:
        raise Failure("the kernels would run other benchmarks (" +
                      "; ".join(f"{k}: {v}" for k, v in got.items()) +
                      "), and compare calls a row measured in one kernel "
                      "only an error: give benchmarks= to both (--param)")


def run_compare(a_files, b_files, norm, outdir, plot=True, quiet=False,
                labels=(None, None)):
    """Compare the archives of @a_files and @b_files: see
    compare_archives()."""
    return compare_archives(archive.Archive.read(*a_files),
                            archive.Archive.read(*b_files), norm, outdir,
                            plot, quiet, labels)


def compare_archives(a, b, norm, outdir, plot=True, quiet=False,
                     labels=(None, None)):
    """Compare, write compare.txt/.json and the plots in @outdir, then
    print the table; return the Comparison.  Written first: a verdict
    printed, then an error writing it, would end with the error's exit
    status (2), hiding a REGRESSION's 1.  @labels: the kernels' names
    (--label-a, --label-b), None for their releases."""
    c = compare.Comparison(a, b, norm, labels)
    text = c.report()
    result = c.as_json()
    made, unplotted = [], None

    def write_json(listed):
        # What the next compare into this folder removes.
        result["plots"] = [str(m.relative_to(outdir)) for m in listed]
        (outdir / "compare.json").write_text(
            json.dumps(result, indent=1, default=str) + "\n")
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / "compare.txt").write_text("\n".join(text) + "\n")
        # An earlier compare's plots are not this table's: they go, and
        # nothing else of the folder.
        for old in _earlier_plots(outdir):
            old.unlink(missing_ok=True)
        # Every plot this compare may write, listed before the first:
        # one interrupted leaves none that a later compare would keep.
        write_json([outdir / "forest.png"] +
                   [plots.sample_path(outdir / "samples", r.row)
                    for r in c.rows] if plot else [])
        if plot:
            try:
                plots.forest(c, outdir / "forest.png", made)
                plots.samples(c, a, b, outdir / "samples", made)
            except (ValueError, TypeError, ArithmeticError,
                    RuntimeError, ImportError) as e:
                # A plot is the table's illustration: it failing (a
                # matplotlib error on odd figures, or no matplotlib)
                # hides no verdict.
                unplotted = f"{type(e).__name__}: {e}"
            write_json(made)
    except OSError as e:
        raise Failure(f"{outdir}: cannot write the comparison: "
                      + (f"{Path(e.filename).name}: " if e.filename
                         else "") + f"{e.strerror or e}") from e
    if not quiet:
        for line in text:
            print(line, flush=True)
        if made and not unplotted:
            say(f"plots: {outdir / 'forest.png'}, {len(made) - 1} in "
                f"{outdir / 'samples'}")
    if unplotted:
        say(f"plots: not all made ({unplotted}); the table and "
            f"{outdir / 'compare.txt'} are whole")
    return c


# The largest compare.json read for an earlier compare's plots (one of
# hundreds of rows is under a megabyte).
EARLIER_MAX = 16 << 20
# What an earlier compare's plots can be named, in its folder.
_PLOT = re.compile(r"forest\.png|samples/[A-Za-z0-9_.-]+\.png")


def _earlier_plots(outdir):
    """The plots an earlier compare made in @outdir, as its compare.json
    lists them: none where it has none (a folder of the user's, whose
    own forest.png stays); every forest.png and samples/*.png where it
    has no list (a compare's of before the list)."""
    try:
        f = outdir / "compare.json"
        if f.stat().st_size > EARLIER_MAX:
            return []
        earlier = json.loads(f.read_text())
    except (OSError, ValueError, RecursionError):
        return []
    if not isinstance(earlier, dict) or "rows" not in earlier:
        return []
    listed = earlier.get("plots")
    if not isinstance(listed, list):
        return [outdir / "forest.png",
                *(outdir / "samples").glob("*.png")]
    return [outdir / name for name in listed
            if isinstance(name, str) and _PLOT.fullmatch(name)]


# compare's and measure's exit status: a REGRESSION; no answer (NOT
# COMPARABLE, one boot a kernel, a row measured in one kernel only); no
# regression found, but a row undecided (INCONCLUSIVE): no answer for it.
EXIT_REGRESSION = 1
EXIT_NO_ANSWER = 2
EXIT_UNDECIDED = 3


def exit_status(c):
    """2 not comparable; 1 a regression; 2 a kernel measured in one boot
    or a row measured in one kernel only (no answer for it); 3 a row (or
    the load factor's change) undecided: no regression found, but none
    could be told for it; else 0, every row NO CHANGE or IMPROVEMENT:
    the comparison answered.  A CI gate is not green where nothing could
    have been seen."""
    if c.not_comparable:
        return EXIT_NO_ANSWER
    if c.regressions():
        return EXIT_REGRESSION
    if c.one_boot or c.only_a or c.only_b:
        return EXIT_NO_ANSWER
    return EXIT_UNDECIDED if c.undecided() else 0


# Words of the kernel's command line the guests' own settings hold:
# --kernel-arg may not undo them.
OWN_KERNEL_ARGS = ("console", "panic", "oops", "loglevel", "init", "rdinit")


def check_kernel_args(args):
    """Refuse --kernel-arg words that are not one parameter of the
    kernel's (an unknown NAME=VALUE of capitals would reach /init as an
    environment variable), that undo the guests' own, or that do not fit
    the command line; and --kaslr with nokaslr."""
    words = getattr(args, "kernel_arg", [])
    for word in words:
        # (argparse stores --kernel-arg=-- as a list.)
        if not isinstance(word, str) or not re.fullmatch(
                r"[a-z0-9_][a-z0-9_.-]*(=[A-Za-z0-9_.,:/+-]*)?", word):
            shown = word if isinstance(word, str) else "--"
            raise Failure(f"--kernel-arg {shown!r}: want one parameter of "
                          "the kernel's command line, NAME or NAME=VALUE "
                          "(NAME in lower case), such as mitigations=off")
        name = word.split("=", 1)[0]
        if name in OWN_KERNEL_ARGS:
            raise Failure(f"--kernel-arg {word}: {name}= is the guests' "
                          "own (the console and what a crash does)")
    if sum(len(w) + 1 for w in words) > 1024:
        raise Failure("--kernel-arg: over 1024 characters in all")
    if getattr(args, "kaslr", False) and "nokaslr" in words:
        raise Failure("--kaslr and --kernel-arg nokaslr: one or the other")


def check_counts(args):
    """Refuse --boots, --comparisons and --kernel-arg out of range before
    anything is built (--loads: check_options)."""
    check_kernel_args(args)
    if not 2 <= args.boots <= 50:
        raise Failure("--boots must be from 2 to 50: a comparison's unit "
                      "is the boot (with --tree, the layout), and the "
                      "spread between them needs two a kernel")
    if not 1 <= getattr(args, "comparisons", 1) <= 100:
        raise Failure("--comparisons must be from 1 to 100")
    if args.loads is not None and not 2 <= args.loads <= 50:
        raise Failure("--loads must be from 2 to 50")


def measure(args, results=None, plot=True):
    """./mmbench measure's work: the kernels of @args built or found,
    booted in turn, their archives written in @results (default a new
    results folder) and compared; returns the Comparison."""
    from .options import (check_labels, check_options, loads_only_options,
                          module_params)
    check_counts(args)
    check_labels(args)
    if getattr(args, "tree", None):
        revisions.check(args)
    elif args.revisions or args.config or args.aa or \
            args.align_functions or args.layouts != revisions.DEFAULT_LAYOUTS:
        raise Failure("REV, --config, --layouts, --align-functions and "
                      "--aa go with --tree")
    check_sides(args)
    loads_only_options(args, "measure")
    sides = []
    # Both sides' options before either is built.
    for name in ("A", "B"):
        opt = f"--{name.lower()}-param"
        try:
            s = Side(name, args, **_side_args(args, name.lower()), opt=opt)
            check_options(s.args)
            module_params(s.args)
        except Failure as e:
            # A side's parameters are --env MMBENCH_PARAMS's and --param's
            # (both sides') and its own: say whose, and which they were.
            # A side's own parameter (check_options() names the option
            # each came with): say whose.
            if not str(e).startswith(("module parameter", opt,
                                      "--param")):
                raise
            raise Failure(f"{name}'s parameters: {e}") from e
        sides.append(s)
    same_sampling(sides)
    same_cpus(sides)
    same_selection(sides)
    with Phase("packages (compare)"):
        deps.ensure(COMPARE_PACKAGES)
    if getattr(args, "tree", None):
        sides = revision_sides(args, sides)
    for s in same_module(sides):
        s.prepare()
    results = results or guest.results_dir("-measure")
    with Phase("boots"):
        files = alternate(sides, args.boots, args.loads, results)
    Phase.report()
    c = run_compare([files["A"]], [files["B"]], args.norm, results,
                    plot=plot, labels=labels(args))
    say(f"results in {results} (A.jsonl, B.jsonl, compare.txt, "
        "forest.png)")
    return c


def labels(args):
    """The kernels' names measure's table gives: --label-a and
    --label-b, else with --tree the revisions as given (v6.12,
    my-patch), else their releases (None)."""
    revs = list(getattr(args, "revisions", None) or []) \
        if getattr(args, "tree", None) else []
    revs += [None] * (2 - len(revs))
    return tuple(getattr(args, f"label_{s}", None) or rev
                 for s, rev in zip("ab", revs[:2]))


def cmd_measure(args):
    c = measure(args)
    say_no_answer(c)
    return exit_status(c)


def revision_sides(args, checked):
    """The sides of ./mmbench measure --tree: each revision built (or
    found built) and booted in its layouts in turn; @checked, the sides
    whose options were checked on the stock kernel."""
    with Phase("packages (kernel build)"):
        deps.ensure(deps.DEBUG_KERNEL_PACKAGES)
    built = revisions.build(args)
    sides = []
    for s, b in zip(checked, built):
        side = Side(s.name, args, kernel=b.layouts[0][1], headers=b.headers,
                    release=b.release, params=getattr(args, f"{s.name.lower()}"
                                                      "_param") or [],
                    opt=f"--{s.name.lower()}-param")
        side.layouts = b.layouts
        say(f"kernel {s.name}: {b.rev} ({b.sha[:12]}), {b.release}, "
            f"{len(b.layouts)} layout(s)")
        sides.append(side)
    return sides


def _pair(paths):
    """The A and B archives of compare's arguments: two archives or
    results folders, or one folder of ./mmbench measure (A.jsonl,
    B.jsonl)."""
    if len(paths) == 1:
        d = paths[0]
        if not _is(d, Path.exists, "compare"):
            raise Failure(f"{d}: does not exist")
        if _is(d, Path.is_file, "compare"):
            raise Failure(f"{d}: one archive: give A and B, or one folder "
                          "of ./mmbench measure")
        if not _is(d / "A.jsonl", Path.exists, "compare") or \
                not _is(d / "B.jsonl", Path.exists, "compare"):
            raise Failure(f"{d}: no A.jsonl and B.jsonl in it: give two "
                          "archives or results folders")
        return [d / "A.jsonl"], [d / "B.jsonl"], d
    for p in paths:
        if not _is(p, Path.exists, "compare"):
            raise Failure(f"{p}: does not exist")
    return [paths[0]], [paths[1]], None


def _output_folder(d, what):
    """Make folder @d and see that a file can be written in it, before a
    verdict is printed: a verdict followed by an error would be read as
    the error's exit status.  @what names where @d came from.  Return the
    folders made, the deepest first."""
    parts = [d, *d.parents]
    # The folder, or the first of its parents that exists, is a folder.
    there = next((f for f in parts if _is(f, Path.exists, what)), None)
    if there is not None and not there.is_dir():
        raise Failure(f"{what} {d}: {there} is a file; want a folder "
                      "for compare.txt, compare.json and the plots")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise Failure(f"{what} {d}: {e.strerror or e}") from e
    made = parts[:parts.index(there)] if there is not None else parts
    try:
        with tempfile.NamedTemporaryFile(dir=d, prefix=".mmbench-probe-"):
            pass
    except OSError as e:
        _remove_folders(made)
        raise Failure(f"{what} {d}: cannot write a file there: "
                      f"{e.strerror or e}") from e
    return made


def _remove_folders(made):
    """Remove the folders of @made, the deepest first, that are empty."""
    for f in made:
        try:
            f.rmdir()
        except OSError:
            return


def cmd_compare(args):
    from .options import check_labels
    check_labels(args)
    a, b, where = _pair([args.a] + ([args.b] if args.b else []))
    made = _output_folder(args.output, "-o") if args.output else []
    try:
        a, b = archive.Archive.read(*a), archive.Archive.read(*b)
    except (ValueError, KeyError, TypeError, AttributeError, OSError) as e:
        # Refused archives leave no empty -o folder behind.
        _remove_folders(made)
        raise Failure(f"compare: {e}") from e
    outdir = args.output or where or guest.results_dir("-compare")
    if not args.output:
        _output_folder(outdir, "results folder")
    deps.ensure(COMPARE_PACKAGES)
    try:
        c = compare_archives(a, b, args.norm, outdir,
                             plot=not args.no_plots,
                             labels=(args.label_a, args.label_b))
    except (ValueError, KeyError, TypeError, AttributeError, OSError,
            ArithmeticError) as e:
        _remove_folders(made)
        raise Failure(f"compare: {e}") from e
    say(f"results in {outdir}")
    say_no_answer(c)
    return exit_status(c)


def say_no_answer(c):
    """Say why comparison @c exits 2 or 3, when it does."""
    if c.not_comparable:
        say("NOT COMPARABLE: exit status 2")
    elif c.one_boot:
        say("every load of a kernel from one boot: no answer, exit "
            "status 2")
    elif not c.regressions() and (c.only_a or c.only_b):
        say("rows measured in one kernel only: exit status 2")
    elif exit_status(c) == EXIT_UNDECIDED:
        n = len(c.undecided())
        say(f"no regression found, but {n} row{'s' if n != 1 else ''} "
            f"undecided: no answer for {'them' if n != 1 else 'it'}, "
            f"exit status {EXIT_UNDECIDED}")


def cmd_fleet(args):
    if not args.archive.exists():
        raise Failure(f"{args.archive}: does not exist")
    try:
        arch = archive.Archive.read(args.archive)
    except (ValueError, OSError) as e:
        raise Failure(f"{args.archive}: {e}" if str(args.archive)
                      not in str(e) else str(e)) from e
    if not arch.rows:
        raise Failure(f"{args.archive}: no row record: no figures to give")
    if archive.ICOUNT_ACCEL in arch.fingerprint().get("accel", ()):
        raise Failure(f"{args.archive}: measured with --accel icount, its "
                      "ns/op are instructions an op; the fleet formats "
                      "carry ns")
    # A row's figure is one median over every load.
    one_setup(arch, args.archive,
              what="the fleet formats give the figures of one kernel and "
                   "setup: give an archive of one")
    print(fleet.render(arch, args.format), end="", flush=True)
    return 0


# ------------------------------------------------------ compare-check

def calibrate(arch, wanted=tuple(KNOWN_ROWS)):
    """(ns a chain step costs, {row: ns/op} of the rows @wanted) from an
    archive with the alu_chain row.  What counts is a row's cost in
    steps, taken in each load (a busy host slows the chain and the row
    of one load alike) and the median over the loads; the row's ns/op
    returned is that many median steps."""
    per_load = {}
    for rec in arch.rows:
        if rec.get("status") == "pass" and rec.get("row") == CALIBRATION \
                and rec.get("net"):
            per_load.setdefault((rec["boot"], rec["load"]), {})[
                " step"] = rec["net"] / CHAIN_STEPS
    for (boot, load), rows in arch.medians().items():
        if (boot, load) in per_load:
            per_load[(boot, load)].update(rows)
    if not per_load:
        raise Failure(f"no passing {CALIBRATION} row to calibrate the "
                      "chain with")
    step = statistics.median(u[" step"] for u in per_load.values())
    rows = {}
    for row in wanted:
        ratios = [u[row] / u[" step"] for u in per_load.values() if row in u]
        if not ratios:
            raise Failure(f"no passing {row} row to calibrate against")
        rows[row] = step * statistics.median(ratios)
    return step, rows


def slow_into(step, rows, pct):
    """The slow_into= value that makes each row of @rows @pct % slower."""
    return ",".join(f"{row}:{max(1, round(pct / 100 * rows[row] / step))}"
                    for row in rows)


# The list parameter, and its value, that makes each of KNOWN_ROWS that
# is one row of several.
KNOWN_LISTS = {"kmalloc_64": ("sizes", 64),
               "alloc_pages_order0": ("orders", 0)}


def check_known_params(args):
    """Refuse the module parameters that would take from compare-check
    known what it does itself (benchmarks=, slow_into=), or leave out a
    row it slows (a list parameter without the row's value)."""
    from .options import param_sources
    benches = ", ".join(sorted(set(KNOWN_ROWS.values())))
    for p, opt in param_sources(args).items():
        name, value = p.split("=", 1)
        if name == "slow_into":
            raise Failure(f"{opt} {p}: compare-check known slows its rows "
                          "itself, by the calibrated amounts")
        if name == "benchmarks":
            raise Failure(f"{opt} {p}: compare-check known chooses the "
                          f"benchmarks itself: its calibration boot runs "
                          f"{benches} and {CALIBRATION}, its comparisons "
                          "every benchmark")
        for row, (param, want) in KNOWN_LISTS.items():
            if name == param and want not in {
                    names.kstrtouint(v) for v in value.split(",")}:
                raise Failure(f"{opt} {p}: compare-check known slows "
                              f"{row}, which {param}= without {want} "
                              "leaves out")


def cmd_compare_check(args):
    from .options import check_options, loads_only_options, unused_options
    check_counts(args)
    if args.what == "split":
        unused_options(args, ("loads", "norm"))
    elif getattr(args, "reuse", None):
        unused_options(args, ("boots",) if args.what == "aa" else
                       ("boots", "loads"))
    else:
        loads_only_options(args, f"compare-check {args.what}")
        check_options(args)
        if args.what == "known":
            check_known_params(args)
    if args.reuse:
        _reuse_folder(Path(args.reuse))
    deps.ensure(COMPARE_PACKAGES)
    results = None
    if args.what != "split":
        results = Path(args.reuse) if args.reuse else \
            guest.results_dir(f"-check-{args.what}")
        if args.reuse:
            _check_reuse(results, args)
    try:
        if args.what == "split":
            return check_split(args)
        if args.what == "aa":
            return check_aa(args, results)
        return check_known(args, results)
    except (ValueError, KeyError, TypeError, AttributeError, OSError,
            ArithmeticError) as e:
        raise Failure(f"compare-check {args.what}: {e}") from e


def _reuse_folder(d):
    """Refuse a --reuse that names no folder: missing, or a file (or one
    the system will not look at: a name too long, no permission)."""
    if _is(d, Path.is_dir, "--reuse"):
        return
    raise Failure(f"--reuse {d}: " + ("not a folder" if d.exists() else
                                      "no such folder"))


def _is(path, test, what):
    """@test (Path.exists, is_dir, is_file) of @path, with the system's
    refusal to look (ENAMETOOLONG, EACCES) said as a Failure naming it:
    @what, the option or argument that gave it."""
    # os.stat(), not @test alone: from Python 3.14 on, Path.exists() and
    # is_dir() say False for any error, as if nothing were there.
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as e:
        raise Failure(f"{what} {path}: {e.strerror or e}") from e
    return test(path)


def _check_reuse(results, args):
    """Refuse --reuse of a folder that lacks what it would read, before
    anything in it is rewritten."""
    if args.what == "aa":
        prefix, files = "aa", ("A.jsonl", "B.jsonl")
    else:
        prefix, files = "known", ["A.jsonl"] + [f"B{p}.jsonl"
                                                 for p in KNOWN_PCTS]
        if not (results / "calibration.json").is_file():
            raise Failure(f"--reuse {results}: no calibration.json: not "
                          "a compare-check known folder")
    missing = [f"{prefix}{n:02d}/{f}" for n in range(1, args.comparisons + 1)
               for f in files
               if not (results / f"{prefix}{n:02d}" / f).is_file()]
    if not missing and args.what == "aa":
        # Each comparison one kernel against itself, all before any
        # folder's files are rewritten.
        for n in range(1, args.comparisons + 1):
            d = results / f"{prefix}{n:02d}"
            try:
                pair = archive.Archive.read(d / "A.jsonl", d / "B.jsonl")
            except (ValueError, OSError) as e:
                raise Failure(f"compare-check aa: {e}") from e
            one_setup(pair, d, said=True)
    if missing:
        have = len([d for d in results.glob(f"{prefix}[0-9][0-9]")
                    if d.is_dir()]) if results.is_dir() else 0
        raise Failure(f"--reuse {results}: no {missing[0]}"
                      + (f" ({len(missing)} files missing)"
                         if len(missing) > 1 else "") +
                      f": --comparisons {args.comparisons} asks for "
                      f"{args.comparisons}, the folder has {have} "
                      f"compare-check {args.what} comparisons")


def _comparison(d, sides, args):
    """Folder @d of one comparison of compare-check: its boots measured
    now, or those of an earlier run with --reuse."""
    if not args.reuse:
        d.mkdir(parents=True, exist_ok=True)
        alternate(sides, args.boots, args.loads, d, retry=True)
    return d


def _kernel_of(args):
    """The kernel of compare-check's sides: --kernel's, or the stock
    one (as Side's options)."""
    return {"kernel": args.kernel, "headers": args.headers,
            "release": args.release}


def check_aa(args, results):
    """The stock kernel (or --kernel) against itself, @args.comparisons
    times."""
    sides = None
    if not args.reuse:
        sides = [Side(n, args, **_kernel_of(args)) for n in "AB"]
        for s in sides:
            s.prepare()
    total = {}
    lines = []
    found = {pct: [0, 0] for pct in ADDED_PCTS}
    per_row = []
    not_comparable = 0
    for n in range(1, args.comparisons + 1):
        d = _comparison(results / f"aa{n:02d}", sides, args)
        a = archive.Archive.read(d / "A.jsonl")
        b = archive.Archive.read(d / "B.jsonl")
        measured = max((r.get("load", 0) for r in a.rows), default=0)
        if args.reuse:
            # As if each boot had had only --loads loads.
            a, b = a.where(loads=args.loads), b.where(loads=args.loads)
        shape = (len(a.runs), max((r.get("load", 0) for r in a.rows),
                                  default=0), measured)
        c = compare_archives(a, b, args.norm, d, plot=False, quiet=True)
        for pct in found:
            got, of = found_when_added(a, b, pct, args.norm)
            found[pct][0] += got
            found[pct][1] += of
        per_row.append(found_per_row(a, b, GOAL_ADDED_PCT, args.norm))
        if c.not_comparable:
            not_comparable += 1
        counts = c.counts()
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
        flagged = [f"{r.row} {r.verdict} {r.change:+.1f} %" for r in c.judged()
                   if r.verdict in (compare.REGRESSION, compare.IMPROVEMENT)]
        line = (f"A/A {n:2d}: " + ", ".join(f"{k} {v}" for k, v in
                                             sorted(counts.items())) +
                (f"; flagged: {'; '.join(flagged)}" if flagged else ""))
        lines.append(line)
        print(line, flush=True)
    false = total.get(compare.REGRESSION, 0) + \
        total.get(compare.IMPROVEMENT, 0)
    boots, loads, measured = shape
    cut = f" of the {measured} measured" if loads < measured else ""
    mdes = _mde_table(results, args.comparisons, "aa",
                      timed=f"{measured} loads a boot" if cut else None)
    who = args.kernel if getattr(args, "kernel", None) else \
        "one kernel" if args.reuse else "the stock kernel"
    summary = [f"A/A: {args.comparisons} comparisons of {who} "
               f"with itself ({boots} boots x {loads} loads{cut} a "
               f"kernel, normalised by {args.norm}): {false} REGRESSION or "
               f"IMPROVEMENT verdicts in all (goal: at most 1); " +
               ", ".join(f"{k} {v}" for k, v in sorted(total.items()))]
    counted = found[ADDED_PCTS[0]][1]
    summary.append(
        "the same comparisons with B's figures of " +
        ", ".join(KNOWN_ROWS) + " made slower (a change added to "
        "measured noise): " + ("none of them measured in both kernels"
                               if not counted else ", ".join(
            f"+{pct} % found {got} of {of}" for pct, (got, of)
            in found.items()) + ("" if counted ==
                                 len(KNOWN_ROWS) * args.comparisons else
                                 " (of the rows measured in both "
                                 "kernels: benchmarks= leaves some out, "
                                 "or a row kept no sample)")))
    goal = goal_line(per_row)
    if goal:
        summary.append(goal)
    summary += mdes
    for line in summary:
        print(line, flush=True)
    if not_comparable:
        summary.append(f"{not_comparable} comparisons NOT COMPARABLE: no "
                       "answer (exit status 2)")
    (results / "check.txt").write_text("\n".join(lines + summary) + "\n")
    say(f"results in {results}")
    if not_comparable:
        print(summary[-1], flush=True)
        return 2
    return 0 if false <= 1 else 1


# What check_aa adds to B's figures of KNOWN_ROWS, in %.
ADDED_PCTS = (5, 10)


def _found(a, b, rows, pct, norm):
    """Which of @rows compare calls a REGRESSION when archive @b has them
    @pct % slower (a change added to measured noise) against @a."""
    slower = [dict(r, median=r["median"] * (1 + pct / 100))
              if r.get("row") in rows and r.get("median") else r
              for r in b.rows]
    c = compare.Comparison(a, archive.Archive(b.runs, slower, b.loads),
                           norm)
    return {r.row for r in c.rows
            if r.row in rows and r.verdict == compare.REGRESSION}


def found_when_added(a, b, pct, norm):
    """(how many, of how many) of the KNOWN_ROWS that both archives
    measured (a median in a load at least) come out REGRESSION when archive @b has them @pct % slower
    against @a."""
    def measured(arch):
        return {r.get("row") for r in arch.rows
                if isinstance(r.get("median"), (int, float))}
    both = set(KNOWN_ROWS) & measured(a) & measured(b)
    return len(_found(a, b, both, pct, norm)), len(both)


# The change compare-check aa adds to each row of B in turn: the goal's.
GOAL_ADDED_PCT = 2


def found_per_row(a, b, pct, norm):
    """{row: whether compare calls it a REGRESSION} when archive @b has
    that row alone made @pct % slower against @a, each row in turn."""
    rows = [r.row for r in compare.Comparison(a, b, norm).rows]
    return {row: bool(_found(a, b, {row}, pct, norm)) for row in rows}


def goal_line(per_comparison, pct=GOAL_ADDED_PCT):
    """What @per_comparison ([{row: found}], found_per_row()'s) says of
    the goal: a @pct % regression found on GOAL_ROWS of the rows."""
    pairs = [f for per in per_comparison for f in per.values()]
    if not pairs:
        return None
    rows = sorted({r for per in per_comparison for r in per})
    rate = {r: statistics.mean(per[r] for per in per_comparison if r in per)
            for r in rows}
    often = sum(1 for v in rate.values() if v >= GOAL_ROWS)
    share = statistics.mean(statistics.mean(per.values())
                            for per in per_comparison if per)
    return (f"+{pct} % added to each row of B in turn: found {sum(pairs)} "
            f"times in {len(pairs)} ({share:.0%} of the rows a comparison, "
            f"goal {GOAL_ROWS:.0%}); rows found in {GOAL_ROWS:.0%} of the "
            f"comparisons or more: {often} of {len(rows)}")


def _mde_table(results, count, prefix, timed=None):
    """Per row, the median minimum detectable effect (95 % confidence,
    80 % power) over the comparisons saved under @results."""
    mde = {}
    for n in range(1, count + 1):
        f = results / f"{prefix}{n:02d}" / "compare.json"
        if not f.exists():
            continue
        for r in json.loads(f.read_text())["rows"]:
            if r.get("mde") is not None:
                mde.setdefault(r["row"], []).append(r["mde"])
    if not mde:
        return []
    out = ["minimum detectable effect per row (95 % confidence, 80 % "
           "power; median over the comparisons):"]
    width = max(len(r) for r in mde)
    for row in sorted(mde, key=lambda r: statistics.median(mde[r])):
        out.append(f"  {row:<{width}}  {statistics.median(mde[row]):6.1f} %")
    below = sum(1 for v in mde.values()
                if statistics.median(v) <= GOAL_MDE_PCT)
    out.append(f"rows whose MDE is at most {GOAL_MDE_PCT:g} %: {below} of "
               f"{len(mde)} (goal: {GOAL_ROWS:.0%} of them, "
               f"{math.ceil(GOAL_ROWS * len(mde))})")
    took = guest_time(results / f"{prefix}{n:02d}"
                      for n in range(1, count + 1))
    if took:
        out.append(took + (f", as measured with {timed}" if timed else ""))
    return out


def check_known(args, results):
    """Known regressions: slow_into making the KNOWN_ROWS +2/+5/+10 %
    slower, in boots alternating with the stock kernel's."""
    # The stock selection on both sides; the calibration boot runs the
    # benchmarks of the rows slowed and alu_chain only.
    base = []
    if not args.reuse:
        cal = Side("A", args, **_kernel_of(args), params=[
            "benchmarks=" + ",".join(sorted(set(KNOWN_ROWS.values()))) +
            f",{CALIBRATION}"])
        # The module of the sides it calibrates slow_into for.
        same_module([cal], knobs=True)
        cal.prepare()
        d = results / "calibration"
        d.mkdir(parents=True, exist_ok=True)
        files = alternate([cal], 1, args.loads, d, retry=True)
        step, rows = calibrate(archive.Archive.read(files["A"]))
        (results / "calibration.json").write_text(json.dumps(
            {"step_ns": step, "rows": rows}) + "\n")
    path = results / "calibration.json"
    try:
        cal = json.loads(path.read_text())
        step, rows = cal["step_ns"], cal["rows"]
        good = all(isinstance(v, (int, float)) and
                   not isinstance(v, bool) and 0 < v < 1e9
                   for v in [step] + list(rows.values()))
        same = set(rows) == set(KNOWN_ROWS)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise Failure(f"{path}: not compare-check known's calibration "
                      f"({e})") from e
    if not same:
        raise Failure(f"{path}: its rows are {', '.join(sorted(rows))}, "
                      f"not {', '.join(KNOWN_ROWS)}")
    if not good:
        raise Failure(f"{path}: step_ns and the ns/op of "
                      f"{', '.join(KNOWN_ROWS)} are not positive numbers")
    say(f"a chain step costs {step:.4f} ns; " + ", ".join(
        f"{r} {v:.1f} ns/op" for r, v in rows.items()))
    levels = {pct: slow_into(step, rows, pct) for pct in KNOWN_PCTS}
    for pct, value in levels.items():
        # The chain comes in whole steps: what each row gets in fact.
        got = ", ".join(
            f"{row} +{100 * int(n) * step / rows[row]:.1f} %"
            for row, n in (e.split(":") for e in value.split(",")))
        say(f"+{pct} %: slow_into={value} ({got})")
    sides = None
    if not args.reuse:
        sides = [Side("A", args, **_kernel_of(args), params=base)] + [
            Side(f"B{pct}", args, **_kernel_of(args),
                 params=base + [f"slow_into={value}"])
            for pct, value in levels.items()]
        for s in same_module(sides):
            s.prepare()
    detected = {(row, pct): 0 for row in KNOWN_ROWS for pct in KNOWN_PCTS}
    other = {}
    lines = []
    for n in range(1, args.comparisons + 1):
        d = _comparison(results / f"known{n:02d}", sides, args)
        for pct in KNOWN_PCTS:
            c = run_compare([d / "A.jsonl"], [d / f"B{pct}.jsonl"],
                            args.norm, d / f"B{pct}", plot=False,
                            quiet=True)
            by = {r.row: r for r in c.rows}
            got = []
            for row in KNOWN_ROWS:
                r = by.get(row)
                if r and r.verdict == compare.REGRESSION:
                    detected[(row, pct)] += 1
                got.append(f"{row} {r.verdict if r else 'missing'} "
                           f"{r.change:+.1f} %" if r and r.change is not None
                           else f"{row} {r.verdict if r else 'missing'}")
            for r in c.judged():
                if r.row in KNOWN_ROWS or r.row == CALIBRATION:
                    continue
                if r.verdict in (compare.REGRESSION, compare.IMPROVEMENT):
                    other[r.verdict] = other.get(r.verdict, 0) + 1
            line = f"known {n:2d}, +{pct:2d} %: " + "; ".join(got)
            lines.append(line)
            print(line, flush=True)
    # The shape measured (with --reuse, the archives', not the options').
    a = archive.Archive.read(results / "known01" / "A.jsonl")
    summary = [f"known regressions ({args.comparisons} comparisons a "
               f"level, {len(a.runs)} boots x "
               f"{max((r.get('load', 0) for r in a.rows), default=0)} "
               "loads a kernel):"]
    for row in KNOWN_ROWS:
        summary.append(f"  {row:<24} " + ", ".join(
            f"+{pct} %: {detected[(row, pct)]}/{args.comparisons}"
            for pct in KNOWN_PCTS))
    summary.append("verdicts on the rows not slowed: " +
                   (", ".join(f"{k} {v}" for k, v in other.items())
                    or "none flagged"))
    mde = {}
    for n in range(1, args.comparisons + 1):
        for pct in KNOWN_PCTS:
            f = results / f"known{n:02d}" / f"B{pct}" / "compare.json"
            if f.exists():
                for r in json.loads(f.read_text())["rows"]:
                    if r["row"] in KNOWN_ROWS and r.get("mde") is not None:
                        mde.setdefault(r["row"], []).append(r["mde"])
    for row, v in mde.items():
        summary.append(f"  {row}: minimum detectable effect "
                       f"{statistics.median(v):.1f} % (95 % confidence, "
                       "80 % power, median over the comparisons)")
    took = guest_time(results / f"known{n:02d}"
                      for n in range(1, args.comparisons + 1))
    if took:
        summary.append(took)
    for line in summary:
        print(line, flush=True)
    (results / "check.txt").write_text("\n".join(lines + summary) + "\n")
    say(f"results in {results}")
    return 0



def _robust_sd(values):
    m = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - m) for v in values)


def draw_splits(boots, per_side, comparisons):
    """@comparisons pairs (A's boots, B's boots), @per_side each and no
    boot in both: every way of splitting @boots when there are few, else
    drawn at random (seeded: the same folder gives the same figures)."""
    import itertools
    import random
    if per_side < 2:
        raise Failure(f"--boots {per_side}: a comparison needs 2 boots a "
                      "kernel or more (the boots are its unit)")
    if len(boots) < 2 * per_side:
        raise Failure(f"{len(boots)} boots: comparisons of {per_side} "
                      f"boots a kernel need {2 * per_side} or more")
    if len(boots) == 2 * per_side:
        every = [(set(g), set(boots) - set(g)) for g in
                 itertools.combinations(boots, per_side) if boots[0] in g]
        return every[:comparisons]
    rng = random.Random(0)
    seen, out = set(), []
    for _ in range(50 * comparisons):
        if len(out) == comparisons:
            break
        pick = rng.sample(boots, 2 * per_side)
        a, b = frozenset(pick[:per_side]), frozenset(pick[per_side:])
        if (a, b) in seen or (b, a) in seen:
            continue
        seen.add((a, b))
        out.append((set(a), set(b)))
    return out


def _module_params(run, said):
    """A run record's module parameters as one string: the sampling
    ones as archive.sampling() has them (unless @said: compare calls
    those NOT COMPARABLE itself); none (the defaults) for a record
    without."""
    params = run.get("params")
    module = params.get("module") if isinstance(params, dict) else None
    if not isinstance(module, list):
        # Before archives said their parameters: read, as compare reads
        # them, as the module's defaults.
        module = []
    names = tuple(f"{name}=" for name, _ in archive.SAMPLING)
    rest = sorted(str(p) for p in module if not str(p).startswith(names))
    return " ".join(([] if said else [archive.sampling(module)]) + rest)


def one_setup(arch, where, said=False,
              what="not one kernel against itself"):
    """Refuse @arch (the archives at @where) if its boots differ in what
    makes an A/A comparison one: the kernel, a key that changes costs
    (archive.COST_KEYS: --accel icount's among them), or the module's
    parameters (slow_into, benchmarks=, samples=, ...), or if rows come
    from a boot without its run record.  @said: but for what compare
    says NOT COMPARABLE (the cost keys, the sampling).  @what: why the
    caller needs one setup, for the message."""
    fp = arch.fingerprint()
    keys = ("release", "kernel_image") + ((() if said else
                                           archive.COST_KEYS))
    # A boot without rows (none of its loads worked) adds no figure,
    # and may lack the keys its loads would have said.
    measured = {r.get("boot") for r in arch.rows}
    for key in keys:
        # A boot that does not say may be of either.
        silent = sum(1 for r in arch.runs if r.get("boot") in measured and
                     key not in (r.get("fingerprint") or {}))
        if fp.get(key) and silent:
            raise Failure(f"{where}: {silent} of {len(arch.runs)} boots do "
                          f"not say their {key} (the others: "
                          + ", ".join(sorted(map(str, fp[key])))
                          + f"): {what}")
        if len(fp.get(key, ())) > 1:
            raise Failure(f"{where}: boots of more than one {key} ("
                          + ", ".join(sorted(map(str, fp[key])))
                          + f"): {what}")
    params = {_module_params(r, said) for r in arch.runs}
    if len(params) > 1:
        raise Failure(f"{where}: boots loaded with other module parameters "
                      "(" + "; ".join(sorted(p or "none" for p in params))
                      + f"): {what}")
    booted = {r.get("boot") for r in arch.runs}
    lost = sorted({str(r.get("boot")) for r in arch.rows
                   if r.get("boot") not in booted})
    if lost and not said:
        raise Failure(f"{where}: rows of boot {lost[0]} without its run "
                      "record: how it was measured is unknown")


def check_split(args):
    """A/A on measured data without booting: the boots of one kernel's
    archives (--reuse: a folder of ./mmbench measure of the stock kernel
    against itself, or of archives) drawn into comparisons of --boots
    boots a kernel, none in both (draw_splits()); per normalisation the
    comparisons that flag a row, the median minimum detectable effect,
    and how often a +5 % and +10 % change added to KNOWN_ROWS's figures
    in B is found."""
    if not args.reuse:
        raise Failure("compare-check split reads archives: give --reuse "
                      "FOLDER (A.jsonl and B.jsonl of the same kernel, or "
                      "*.jsonl)")
    d = Path(args.reuse)
    _reuse_folder(d)
    files = sorted(d.glob("*.jsonl"))
    if not files:
        raise Failure(f"{d}: no *.jsonl archive in it")
    try:
        pool = archive.Archive.read(*files)
    except (ValueError, OSError) as e:
        raise Failure(f"compare-check split: {e}") from e
    one_setup(pool, d)
    boots = sorted({r["boot"] for r in pool.rows})
    splits = draw_splits(boots, args.boots, args.comparisons)
    say(f"{len(boots)} boots, {len(pool.rows)} row records: "
        f"{len(splits)} comparisons of {args.boots} boots against "
        f"{args.boots} others")
    lines = []
    # The spread between loads each normalisation leaves: per row the
    # robust standard deviation (1.4826 MAD) of its log medians over
    # every load and boot, then over the quiet loads; the median over
    # rows.
    units = compare.log_units(pool)
    half = dict(list(units.items())[:len(units) // 2])
    rest = dict(list(units.items())[len(units) // 2:])
    for norm in compare.NORMS:
        na, nb, factors, _r = compare.normalise(half, rest, norm)
        every = list(na.values()) + list(nb.values())
        rows = set.intersection(*(set(u) for u in every))

        def spread(loads):
            sds = sorted(100 * _robust_sd([u[r] for u in loads])
                         for r in rows)
            return (f"median over rows {statistics.median(sds):.1f} %, "
                    f"quartiles {sds[len(sds) // 4]:.1f} and "
                    f"{sds[3 * len(sds) // 4]:.1f} %")
        line = f"{norm:<9} between-load spread: {spread(every)}"
        if factors:
            quiet = [u for units in (na, nb)
                     for u in compare.quiet(units).values()]
            line += (f"; the {len(quiet)} quiet loads of {len(every)}: "
                     f"{spread(quiet)}")
        lines.append(line)
        print(line, flush=True)
    for norm in compare.NORMS:
        flagged = flags = 0
        mdes = []
        found = {5: 0, 10: 0}
        tried = 0
        known_mde = {}
        for ga, gb in splits:
            c = compare.Comparison(pool.where(boots=ga), pool.where(boots=gb),
                                   norm)
            bad = [r for r in c.judged() if r.verdict in
                   (compare.REGRESSION, compare.IMPROVEMENT)]
            flagged += bool(bad)
            flags += len(bad)
            mdes += [r.mde for r in c.rows if r.mde is not None]
            for r in c.rows:
                if r.row in KNOWN_ROWS and r.mde is not None:
                    known_mde.setdefault(r.row, []).append(r.mde)
            for pct in found:
                hit, of = found_when_added(pool.where(boots=ga),
                                           pool.where(boots=gb), pct, norm)
                found[pct] += hit
            tried += of
        line = (f"{norm:<9} {len(splits)} A/A splits: {flagged} flagged a "
                f"row ({flags} rows in all); median MDE "
                f"{statistics.median(mdes) if mdes else math.nan:.1f} %; "
                f"+5 % found {found[5]}/{tried}, +10 % {found[10]}/{tried}; "
                "MDE " + ", ".join(f"{r} {statistics.median(v):.1f} %"
                                   for r, v in known_mde.items()))
        lines.append(line)
        print(line, flush=True)
    (d / "split.txt").write_text("\n".join(lines) + "\n")
    return 0


# ./mmbench test's real comparison: few benchmarks (so few rows), a known
# regression of CI_PCT % on CI_ROW, calibrated in A's first boot.
CI_BENCHMARKS = ("inc_dec_zone_page_state,count_vm_event,mod_node_page_state,"
                 "kmalloc,kmem_cache,alloc_pages,alu_chain")
CI_ROW = "inc_dec_zone_page_state"
CI_PCT = 30
CI_BOOTS = 3
CI_LOADS = 8


def _ci_sides(args, results, **options):
    """./mmbench test's two sides, prepared: the stock kernel (A) and
    the stock kernel with slow_into adding one chain step to each op of
    CI_ROW (B), CI_BENCHMARKS only; none of the options' parameters or
    ceilings; @options: more options of both."""
    args = copy.copy(args)
    args.param, args.env, args.ceiling = [], [], []
    for name, value in options.items():
        setattr(args, name, value)
    sel = f"benchmarks={CI_BENCHMARKS}"
    a = Side("A", args, params=[sel])
    b = Side("B", args, params=[sel, f"slow_into={CI_ROW}:1"])
    for s in same_module([a, b]):
        # The stock kernel's (the debug kernel's guest comes later).
        s.args.debug_kernel = False
        s.prepare()
    results.mkdir(parents=True, exist_ok=True)
    return a, b


def _flagged(c):
    """The rows of comparison @c flagged REGRESSION or IMPROVEMENT, but
    CI_ROW and CALIBRATION: in ./mmbench test, rows nothing slowed."""
    return [x for x in c.judged() if x.row not in (CI_ROW, CALIBRATION)
            and x.verdict in (compare.REGRESSION, compare.IMPROVEMENT)]


# The most a row nothing slowed may change for a busy host to be blamed:
# the rows a busy host flagged in CI changed 1.8 to 3.1 %; slow_into
# leaking into another row (the module's bug) is not excused when it moves
# that row by more.
BUSY_PCT = 5.0
# The most rows a busy host may be blamed for (3 in CI): slow_into leaking
# into every row would flag more, each by less in the slower rows.
BUSY_ROWS = 4


def _busy(c):
    """What a busy host did to comparison @c, as its report says it, or
    None: the loads compare left out because their rows disagree."""
    if not any(c.dropped_loads.values()):
        return None
    return (f"a busy host slowed A {c.dropped_loads['A']}, B "
            f"{c.dropped_loads['B']} loads (limit 0)")


def _ci_compare(what, sides, loads, results, boots, plot=True,
                others=None):
    """Compare the archives of ./mmbench test's @sides (A, B), booted
    @boots times in @results.  One more boot of each, once, when CI_ROW
    comes out INCONCLUSIVE, as compare advises (its unit is the boot, and
    a busy host, or a load whose work other work swelled, leaves few
    boots too uncertain to decide), or when
    more than @others (None: any number) of the other rows are flagged
    and compare left out loads a busy host slowed: the host's work
    reaches the loads it keeps too.  CI_ROW still INCONCLUSIVE, it is
    not judged: the host, not compare, left too few boots to decide, and
    the statistics are the unit tests' to check.  Returns (comparison,
    CI_ROW's row or None, boots, undecided)."""
    files = [[results / f"{s.name}.jsonl"] for s in sides]

    def once():
        c = run_compare(*files, compare.DEFAULT_NORM, results, plot=plot)
        return c, {r.row: r for r in c.rows}.get(CI_ROW)
    c, r = once()
    why = None
    if r is not None and r.verdict == compare.INCONCLUSIVE:
        why = f"{CI_ROW} INCONCLUSIVE"
    elif others is not None and len(_flagged(c)) > others and _busy(c):
        why = f"{len(_flagged(c))} rows nothing slowed flagged, {_busy(c)}"
    if why:
        say(f"{what}: {why}: one more boot of each")
        alternate(sides, 1, loads, results, first=boots + 1)
        boots += 1
        c, r = once()
    undecided = r is not None and r.verdict == compare.INCONCLUSIVE
    if undecided:
        say(f"{what}: {CI_ROW} still INCONCLUSIVE after {boots} boots of "
            f"each: not judged; see {results}/compare.txt")
    return c, r, boots, undecided


def test_checks(args, results):
    """The checks ./mmbench test makes of compare on real guests: the
    stock kernel (A) against itself with slow_into making CI_ROW CI_PCT %
    slower (B), in boots A, B, A, B; returns [(ok, what, why)]."""
    deps.ensure(COMPARE_PACKAGES)
    a, b = _ci_sides(args, results)
    files = alternate([a], 1, CI_LOADS, results)
    step, rows = calibrate(archive.Archive.read(files["A"]), (CI_ROW,))
    steps = max(1, round(CI_PCT / 100 * rows[CI_ROW] / step))
    say(f"compare: a chain step costs {step:.4f} ns, {CI_ROW} "
        f"{rows[CI_ROW]:.1f} ns/op: slow_into={CI_ROW}:{steps} for "
        f"+{CI_PCT} %")
    b.args.param = with_param(b.args.param, f"slow_into={CI_ROW}:{steps}")
    alternate([b], 1, CI_LOADS, results)
    alternate([a, b], CI_BOOTS - 1, CI_LOADS, results, first=2)
    c, r, boots, undecided = _ci_compare("compare", [a, b], CI_LOADS,
                                         results, CI_BOOTS, others=1)
    got = {}
    for side in ("A", "B"):
        arch = archive.Archive.read(results / f"{side}.jsonl")
        got[side] = sum(1 for ld in arch.loads if ld["insmod"] == "ok")
    others = [x for x in c.judged() if x.row not in (CI_ROW, CALIBRATION)]
    flagged = [f"{x.row} {x.verdict} {x.change:+.1f} %" for x in _flagged(c)]
    # After one more boot of each: the host's doing, not compare's, if
    # each change is small; a larger one is not the host's to excuse.
    large = [x for x in _flagged(c)
             if x.change is None or abs(x.change) > BUSY_PCT]
    spoilt = None
    if len(flagged) > 1 and _busy(c):
        if large:
            flagged.append(f"{len(large)} of them changed more than a busy "
                           f"host explains (limit {BUSY_PCT:g} %)")
        elif len(flagged) > BUSY_ROWS:
            flagged.append(f"more rows than a busy host explains (limit "
                           f"{BUSY_ROWS})")
        else:
            spoilt = (f"{len(flagged)} rows flagged (limit 1; {BUSY_ROWS} "
                      f"on a busy host), each within {BUSY_PCT:g} %; "
                      f"{_busy(c)}")
    where = f"see {results}/compare.txt"
    lava = fleet.lava(archive.Archive.read(files["A"]))
    # A plot that fails is one line of compare's: here it fails a check.
    made = _earlier_plots(results)
    pngs = [m for m in made if m.is_file() and
            m.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"]
    return [
        (len(pngs) == len(made) == len(c.rows) + 1,
         "compare: forest.png and a samples plot of each row written",
         f"{len(pngs)} PNG files of {len(made)} listed in compare.json, "
         f"{len(c.rows)} rows; {where}"),
        (got["A"] == got["B"] == boots * CI_LOADS,
         f"compare: every load of each kernel archived ({CI_LOADS} a "
         "boot)", f"A {got['A']}, B {got['B']} loads in {boots} boots "
         f"each; see {results}"),
        (undecided or (r is not None and r.verdict == compare.REGRESSION),
         f"compare: REGRESSION for {CI_ROW} slowed {CI_PCT} % "
         "(slow_into)" + (" (not judged: INCONCLUSIVE, a busy host)"
                          if undecided else ""),
         f"{r.verdict} {r.change:+.1f} % [{r.lo:+.1f}, {r.hi:+.1f}]; {where}"
         if r and r.change is not None else f"no figures; {where}"),
        # Undecided, another row's false discovery (one is let pass
        # below) still makes a regression found; else the row undecided
        # is no answer for it (3), never "no regression" (0).
        (exit_status(c) == (EXIT_REGRESSION
                            if not undecided or c.regressions() else
                            EXIT_NO_ANSWER if c.one_boot or c.only_a or
                            c.only_b else EXIT_UNDECIDED),
         "compare: exit status 1 (a regression)" if not undecided else
         "compare: exit status 1 if a row is a REGRESSION, else 3 (a row "
         "undecided; 2 when a kernel's loads all came from one boot)",
         f"{exit_status(c)}; {where}"),
        (undecided or (r is not None and r.change is not None and
         all(x.change is None or x.change < r.change for x in others)),
         f"compare: {CI_ROW} has the largest change of all rows"
         + (" (not judged: INCONCLUSIVE)" if undecided else ""),
         ", ".join(f"{x.row} {x.change:+.1f} %" for x in others
                   if x.change is not None and r and r.change is not None
                   and x.change >= r.change) + f"; {where}"),
        # Benjamini-Hochberg lets about q of the discoveries be false:
        # one other row may be; two would be out of line.
        (len(flagged) <= 1 or spoilt is not None, "compare: at most one "
         "row not slowed is flagged" + (f" (not judged: {spoilt})"
                                        if spoilt else ""),
         "; ".join(flagged) + f"; {where}"),
        (all(re.fullmatch(r"lava-test-case [-_.a-zA-Z0-9]+ --result "
                          r"(pass|fail|skip)( --measurement [0-9.]+ "
                          r"--units (ns|%))?", line)
             for line in lava.splitlines()) and
         f"mmbench.{CI_ROW}.ns_per_op" in lava,
         "compare: the archive's LAVA test cases are well formed",
         f"see ./mmbench fleet {files['A']}"),
    ]


# ./mmbench test's comparison of instructions (--accel icount): one chain
# step, three instructions, added to each op of CI_ROW is found.
ICOUNT_BOOTS = 3
ICOUNT_LOADS = 3


def icount_checks(args, results):
    """The checks ./mmbench test makes of --accel icount on real guests:
    the stock kernel (A) against itself with slow_into adding one chain
    step to each op of CI_ROW (B), in boots A, B, A, B; returns
    [(ok, what, why)]."""
    # A comparison of two kernels, as measure makes it.
    a, b = _ci_sides(args, results, accel="icount", command="measure")
    boots = ICOUNT_BOOTS
    try:
        files = alternate([a, b], boots, ICOUNT_LOADS, results)
        # INCONCLUSIVE: a load whose instructions other work swelled (a
        # rare sample 3-5 times the row's).
        c, r, boots, undecided = _ci_compare(
            "compare --accel icount", [a, b], ICOUNT_LOADS, results, boots,
            plot=False)
    except EmulatorFault as e:
        # Four boots in a row killed or cut short by QEMU's icount
        # fault: the emulator's doing, not the kernel's.
        return [(True, "compare --accel icount (not judged: QEMU's "
                 "icount fault spoilt every boot tried)", str(e))]
    where = f"see {results}/compare.txt"
    flagged = [f"{x.row} {x.verdict} {x.change:+.1f} %" for x in _flagged(c)]
    accel = {side: archive.Archive.read(f).fingerprint().get("accel")
             for side, f in files.items()}
    return [
        (accel == {"A": {archive.ICOUNT_ACCEL}, "B": {archive.ICOUNT_ACCEL}},
         "compare --accel icount: the archives say accel "
         f"{archive.ICOUNT_ACCEL}", f"{accel}; see {results}"),
        (undecided or (r is not None and r.verdict == compare.REGRESSION
                       and r.change is not None and 1 < r.change < 10),
         f"compare --accel icount: REGRESSION for {CI_ROW} with three "
         "instructions more an op (slow_into, one step)"
         + (" (not judged: INCONCLUSIVE, too few boots to decide)"
            if undecided else ""),
         f"{r.verdict} {r.change:+.1f} % [{r.lo:+.1f}, {r.hi:+.1f}], "
         f"{r.change_insn:+.2f} instructions an op [{r.lo_insn:+.2f}, "
         f"{r.hi_insn:+.2f}]; {where}"
         if r and r.change_insn is not None else
         f"{r.verdict} {r.change:+.1f} % [{r.lo:+.1f}, {r.hi:+.1f}]; {where}"
         if r and r.change is not None else f"no figures; {where}"),
        (not flagged, "compare --accel icount: no other row flagged",
         "; ".join(flagged) + f"; {where}"),
    ]
