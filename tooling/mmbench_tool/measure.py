"""./mmbench measure: two kernels measured in alternating boots and
compared row by row.  The boots, the comparison written and its exit
status, and the checks of an archive's setup are also those of compare
(comparecmd.py), fleet (fleetcmd.py) and compare-check (comparecheck.py)."""
import copy
import json
import math
import os
import re
import shutil
import time
from pathlib import Path

from . import archive, bench, compare, deps, guest, names, plots, revisions
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
            list(getattr(args, "kernel_arg", [])) +
            list(getattr(args, f"{name.lower()}_kernel_arg", None) or [])))
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
    own = [f"--{w}-kernel" for w in ("a", "b")
           if getattr(args, f"{w}_kernel", None)]
    if own and getattr(args, "kernel", None):
        raise Failure(f"--kernel (both sides') and {' and '.join(own)}: "
                      "give each side its own, --a-kernel and --b-kernel")
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


def check_not_itself(args):
    """Refuse, without --aa, sides that are one kernel with the same
    module parameters and kernel arguments: minutes of boots of an A/A,
    which finds nothing but chance (a bare ./mmbench measure)."""
    if args.aa or getattr(args, "tree", None):
        return
    a, b = _side_args(args, "a"), _side_args(args, "b")
    if a == b and sorted(getattr(args, "a_kernel_arg", None) or []) == \
            sorted(getattr(args, "b_kernel_arg", None) or []):
        raise Failure("A and B are one kernel with the same parameters: "
                      "give B its own (--b-kernel IMAGE --b-headers DIR, "
                      "--b-param, --b-kernel-arg), or --aa to measure a "
                      "kernel against itself (an A/A: about one in twenty "
                      "flags a row by chance)")


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
    a, b = a.with_tails(), b.with_tails()
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
        write_json([outdir / "forest.png", outdir / "scaling.png"] +
                   [plots.sample_path(outdir / "samples", r.row)
                    for r in c.rows] if plot else [])
        if plot:
            try:
                plots.forest(c, outdir / "forest.png", made)
                plots.scaling(c, outdir / "scaling.png", made)
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
    common = list(getattr(args, "kernel_arg", None) or [])
    given = [("--kernel-arg", w) for w in common]
    for side in "ab":
        own = list(getattr(args, f"{side}_kernel_arg", None) or [])
        given += [(f"--{side}-kernel-arg", w) for w in own]
        if sum(len(w) + 1 for w in common + own if isinstance(w, str)) > \
                1024:
            raise Failure(f"--kernel-arg and --{side}-kernel-arg: over "
                          "1024 characters in all")
    for opt, word in given:
        # (argparse stores --kernel-arg=-- as a list.)
        if not isinstance(word, str) or not re.fullmatch(
                r"[a-z0-9_][a-z0-9_.-]*(=[A-Za-z0-9_.,:/+-]*)?", word):
            shown = word if isinstance(word, str) else "--"
            raise Failure(f"{opt} {shown!r}: want one parameter of "
                          "the kernel's command line, NAME or NAME=VALUE "
                          "(NAME in lower case), such as mitigations=off")
        name = word.split("=", 1)[0]
        if name in OWN_KERNEL_ARGS:
            raise Failure(f"{opt} {word}: {name}= is the guests' "
                          "own (the console and what a crash does)")
    if getattr(args, "kaslr", False) and "nokaslr" in [w for _o, w in given]:
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
    elif args.revisions or args.config or \
            args.align_functions or args.layouts is not None:
        raise Failure("REV, --config, --layouts and --align-functions go "
                      "with --tree")
    check_sides(args)
    loads_only_options(args, "measure")
    sides = []
    # Both sides' options before either is built.
    for name in ("A", "B"):
        opt = f"--{name.lower()}-param"
        try:
            s = Side(name, args, **_side_args(args, name.lower()), opt=opt)
            try:
                check_options(s.args)
            except Failure as e:
                # A side's own kernel is named as it was given.
                m = re.match(r"--(kernel|headers|release) ", str(e))
                if not m or not getattr(args, f"{name.lower()}_"
                                        f"{m.group(1)}", None):
                    raise
                raise Failure(f"--{name.lower()}-{str(e)[2:]}") from e
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
    check_not_itself(args)
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


# ------------------------- shared with compare, fleet and compare-check

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
