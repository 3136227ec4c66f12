"""What a guest run of the suite needs and what it gives: the kernel,
module, kselftest and tree (Setup), the guest's output, and the suite's
judgement of it."""
import contextlib
import re
import time
from pathlib import Path

from . import (arch as archmod, archive, arm64, bench, build, debugkernel,
               deps, guest, knobs as knobsmod, ktap, literal, names, series)
from .common import OUT, Failure, Phase, say
from .options import (GUEST_CEILINGS, ceilings_file, check_options,
                      env_options, module_params, vcpus_note)

class Setup:
    """What a guest run needs: kernel, module, kselftest, tree."""

    def __init__(self, args, checks=False, knobs=None):
        self.args = args
        self.checks = checks
        # The module with its test-only knobs (knobs.PATCH): True, False,
        # or None for "when a module parameter is one" (prepare()).
        self.knobs = knobs
        self.module_warnings = []
        self.kselftest_warnings = []
        self.extra_env = {}
        self.arch = archmod.of(args)
        self.nodes = getattr(args, "nodes", 1)    # the guest's NUMA nodes
        # make variables of a cross build; the guest's own busybox and
        # programs, [(host path, guest path)], when it is not the host's
        self.cross = arm64.MAKE_VARS if self.arch is archmod.ARM64 else []
        self.userland = None

    def prepare(self):
        a = self.args
        check_options(a)
        with Phase("packages"):
            wanted = deps.packages_for(self.arch.name)
            if self.checks:
                wanted.update(deps.TEST_PACKAGES)
            if a.debug_kernel:
                wanted.update(deps.DEBUG_KERNEL_PACKAGES)
            deps.ensure(wanted)
            if self.cross:
                arm64.enable_foreign_arch()
        # What is built under out/ (the debug kernel, the module, the
        # kernel trees) is one run's at a time.
        series.hold_out()
        if a.debug_kernel:
            with Phase("debug kernel"):
                self.kernel, self.headers, self.release = \
                    debugkernel.build()
        elif a.headers:
            self.headers = a.headers.resolve()
            self.release = a.release or build.kernel_release(self.headers)
            self.kernel = a.kernel.resolve()
        elif self.arch is archmod.ARM64:
            with Phase("arm64 kernel"):
                self.kernel, self.headers, self.release = arm64_kernel()
        else:
            self.release = build.default_release()
            self.headers = Path("/lib/modules") / self.release / "build"
            self.kernel = Path("/boot") / f"vmlinuz-{self.release}"
        for p in (self.headers, self.kernel):
            if not p.exists():
                raise Failure(f"{p} does not exist")
        say(f"kernel {self.release}: {self.kernel}")
        if self.cross:
            with Phase("arm64 userland"):
                self.userland = arm64.Userland().fetch().files
        given = sorted(names.knobs_given(module_params(a)))
        if self.knobs is None:
            self.knobs = bool(given)
        elif given and not self.knobs:
            raise Failure(f"module parameters {', '.join(given)}: test-only "
                          "knobs, which this run's plain module does not "
                          "have")
        with Phase("module"):
            self.ko, self.module_warnings = build.build_module(
                self.headers, self.release, checks=self.checks,
                cross=self.cross, knobs=self.knobs)
            say(f"built {self.ko}" + (
                " (with the test-only knobs of "
                f"{knobsmod._rel(knobsmod.PATCH)}"
                + (f", for {', '.join(given)}" if given else "") + ")"
                if self.knobs else ""))
        with Phase("kernel tree"):
            self.tree = series.assemble_tree()
        with Phase("kselftest"):
            # A cross build is installed and built in folders of its own.
            own = self.arch.name if self.cross else None
            self.kselftest, self.kselftest_warnings = build.build_kselftest(
                self.tree, own and OUT / f"kselftest-{own}", self.cross,
                own and OUT / f"kselftest-build-{own}")
            if self.cross:
                arm64.check_static(self.kselftest / "mm/mmbench/mmbench_test")
        for w in self.module_warnings + self.kselftest_warnings:
            say(f"build: {w}")

    def guest_env(self):
        """The module parameters, the test program's environment and the
        host files the guest needs, {guest path: host path}."""
        a = self.args
        env = {"MMBENCH_CEILING_" + c.split("=")[0].upper():
               c.split("=")[1] for c in a.ceiling}
        files = {}
        for name, value in env_options(a).items():
            if name == "MMBENCH_CEILINGS":
                files[GUEST_CEILINGS] = Path(value).resolve()
                env[name] = GUEST_CEILINGS
            elif name != "MMBENCH_PARAMS":
                env[name] = value
        env.update(self.extra_env)
        return module_params(a), env, files

    def host_facts(self):
        """What the archive's fingerprint takes from this side: the
        guest's architecture, accelerator and QEMU CPU model, the kernel
        booted, the host's CPU."""
        kvm = getattr(self, "kvm", False)
        cpu = "host" if kvm else next(
            (self.arch.machine[i + 1] for i, w in
             enumerate(self.arch.machine) if w == "-cpu"),
            "QEMU's default")
        accel = "kvm" if kvm else "tcg"
        if getattr(self.args, "accel", None) == "icount":
            accel = archive.ICOUNT_ACCEL
        facts = {"arch": self.arch.name, "accel": accel,
                 "qemu_cpu": cpu, "kernel_image": str(self.kernel),
                 "host_cpu": archive.host_cpu()}
        if getattr(self, "layout", None):
            facts["layout"] = self.layout
        return facts

    def literal_tree(self):
        """Make sure the test program in the kernel tree, which the literal
        run_tests runs, is the one installed for run_kselftest.sh: the
        series' builds patch by patch leave an earlier patch's there.
        Built anew in the tree (and installed again) when it differs."""
        prog = self.tree / guest.LITERAL_PROGRAM
        installed = self.kselftest / "mm/mmbench/mmbench_test"

        def same():
            return (prog.exists() and installed.exists() and
                    prog.read_bytes() == installed.read_bytes())
        if not same():
            say(f"{prog} is not the installed {installed}: building the "
                "kselftest in the tree again")
            self.kselftest, _ = build.build_kselftest(
                self.tree, install=self.kselftest)
            if not same():
                raise Failure(f"{prog} differs from {installed} after "
                              "building and installing it again")

    def boot(self, mode, results, cpus=None, memory=None, around=None,
             echo=None, literal=False, kernel_args=(), files=None,
             nodes=None):
        """Boot the guest in @mode; @around: a context manager to run the
        guest in; @echo: which lines of the guest to show (default all);
        @kernel_args: more on the kernel's command line, this boot only;
        @files: more host files for the guest, {guest path: host path};
        @literal: run the users' literal make ... run_tests as well, in
        a copy of the kernel tree the kselftest was built in."""
        a = self.args
        cpus = cpus or a.cpus
        memory = memory or a.memory
        self.nodes = nodes or getattr(a, "nodes", 1)
        if cpus % self.nodes:       # a boot of its own CPUs (1): one node
            self.nodes = 1
        if vcpus_note(cpus):
            say(vcpus_note(cpus))
        with Phase("initramfs"):
            if literal:
                self.literal_tree()
            params, env, guest_files = self.guest_env()
            guest_files.update(files or {})
            image = guest.make_initramfs(self.release, self.ko,
                                         self.kselftest, mode,
                                         " ".join(params), env, results,
                                         guest_files,
                                         literal=self.tree if literal
                                         else None, arch=self.arch,
                                         userland=self.userland)
        kvm = a.accel == "kvm"
        if a.accel == "auto" and self.arch.kvm:
            with Phase("KVM probe"):
                kvm = guest.kvm_works(self.kernel)
        self.kvm = kvm
        lines = []
        in_dmesg = [False]
        packed = [bench.Unpacker()]

        def show(raw):
            if raw is None:
                # The guest is gone: a block it left open is said.
                for line in packed[0].close():
                    show_one(line)
                packed[0] = bench.Unpacker()
                in_dmesg[0] = False
                return
            for line in packed[0].feed(raw):
                show_one(line)

        def show_one(line):
            lines.append(line)
            if line.startswith("MMBENCH-DMESG-"):
                in_dmesg[0] = line.startswith("MMBENCH-DMESG-BEGIN")
            elif not in_dmesg[0] and (echo is None or echo(line)):
                print(f"  | {line}", flush=True)

        console = results / "console.log"
        start = time.monotonic()
        try:
            with around or contextlib.nullcontext():
                timed_out = self._boot_twice(image, cpus, memory, kvm,
                                             console, show, lines,
                                             kernel_args)
        finally:
            guest_s = time.monotonic() - start
            show(None)
            # Whatever happened, keep what the guest printed.
            (results / "guest.log").write_text("\n".join(lines) + "\n")
        if timed_out:
            say(f"the guest timed out after {timed_out} s and was stopped; "
                f"what it printed is in {results} (guest.log, console.log)")
        out = GuestOutput(lines, console, timed_out)
        out.guest_s = guest_s       # the guests' own time, boots retried too
        out.spoilt = self.spoilt
        return out

    def _boot_twice(self, image, cpus, memory, kvm, console, show, lines,
                    kernel_args=()):
        """Boot; once more if the kernel died before /init ran.  Returns
        the --timeout in seconds if the guest ran past it, else None."""
        icount = self.args.accel == "icount"
        self.spoilt = first_flags = None
        for attempt in (1, 2):
            with Phase(f"guest ({'KVM' if kvm else 'TCG'}"
                       f"{', icount' if icount else ''}, {cpus} "
                       f"CPU{'s' if cpus > 1 else ''}, {memory} MiB"
                       + (f", {self.nodes} nodes" if self.nodes > 1 else "")
                       + ")"):
                try:
                    guest.boot(self.kernel, image, cpus, memory, kvm,
                               console, show, self.args.timeout,
                               arch=self.arch,
                               kernel_args=list(getattr(
                                   self.args, "kernel_arg", None) or []) +
                               list(kernel_args),
                               icount=icount, nodes=self.nodes)
                except guest.GuestTimeout as e:
                    return e.seconds
            # A kernel that died before /init ran tested nothing: TCG
            # very rarely trips in early boot (an int3 in sched_clock).
            # Nor did one whose oops or warning shows EFLAGS no x86 CPU
            # sets: QEMU 7.2's fault (tooling/doc/compare-method.md, "Instructions, not time"),
            # seen once without icount, in a debug kernel's guest.
            show(None)
            early = not any(line.startswith("MMBENCH-GUEST-BEGIN")
                            for line in lines)
            # In icount mode measure.alternate() boots such a guest again.
            flags = not icount and guest.impossible_eflags(
                console.parent)
            if attempt == 2 or not (early or flags):
                # Such flags in both boots: no verdict is the kernel's.
                self.spoilt = flags if attempt == 2 and first_flags \
                    else None
                break
            first_flags = flags
            first = console.with_name("console-first-boot.log")
            first.write_bytes(console.read_bytes())
            console.with_name("guest-first-boot.log").write_text(
                "\n".join(lines) + "\n")
            say(f"the guest's log shows EFLAGS {flags}, bits no x86 CPU "
                f"sets: the emulator's fault (see {first}); booting once "
                "more" if flags else
                f"the guest kernel died before /init ran (see {first}); "
                "booting once more")
            lines.clear()
        return None


def arm64_kernel():
    """Debian's 6.12 cloud-arm64 kernel, downloaded and unpacked: the twin
    of the x86_64 guest's release when the apt lists have it; returns
    (image, headers, release)."""
    try:
        x86 = build.default_release()
    except Failure:
        x86 = None
    release = arm64.choose_release(x86)
    deps.ensure(arm64.host_packages(release))
    kernel = arm64.Kernel(release).fetch()
    return kernel.image, kernel.headers, release


class GuestOutput:
    """The guest's result port, split by section."""

    def __init__(self, lines, console, timed_out=None):
        self.lines = lines
        self.console = console
        self.timed_out = timed_out      # seconds, when it was stopped
        self.suite = ktap.between(lines, "MMBENCH-GUEST-BEGIN",
                                  "MMBENCH-SUITE-END") or []
        self.negative = ktap.between(lines, "MMBENCH-NEGATIVE-BEGIN",
                                     "MMBENCH-NEGATIVE-END")
        self.faults = ktap.between(lines, "MMBENCH-FAULTS-BEGIN",
                                   "MMBENCH-FAULTS-END")
        self.isolated = ktap.between(lines, "MMBENCH-ISOLATED-BEGIN",
                                     "MMBENCH-ISOLATED-END")
        self.dmesg = ktap.between(lines, "MMBENCH-DMESG-BEGIN",
                                  "MMBENCH-DMESG-END")
        self.fragment = ktap.between(lines, "MMBENCH-FRAGMENT-BEGIN",
                                     "MMBENCH-FRAGMENT-END")
        self.kmemleak = ktap.between(lines, "MMBENCH-KMEMLEAK-BEGIN",
                                     "MMBENCH-KMEMLEAK-END")
        self.finished = any(line.startswith("MMBENCH-GUEST-END")
                            for line in lines)
        # EFLAGS no x86 CPU sets in the log of a guest booted twice.
        self.spoilt = None

    def kernel_log(self):
        """The kernel's log: the guest's dmesg at the end, and the serial
        console (warnings and worse), which has what dmesg's ring buffer
        may have overwritten in a long run."""
        console = []
        if self.console.exists():
            console = self.console.read_text(errors="replace").splitlines()
        return ktap.merge_logs(self.dmesg or [], console)

    def kernel_problems(self):
        return ktap.bad_kernel_lines(self.kernel_log())


def boot_stage(console):
    """The last line of a guest's console, as a hint of where its boot
    was when it was stopped."""
    try:
        lines = [line.strip() for line in
                 Path(console).read_text(errors="replace").splitlines()
                 if line.strip()]
    except OSError:
        lines = []
    return f"its console's last line: {lines[-1][:120]}" if lines else \
        "its console is empty"


def judge_suite(setup, out, results):
    """Save and check the suite's KTAP; return a list of (ok, what, why)."""
    checks = []
    inner = ktap.inner_ktap(out.suite)
    raw = results / "mmbench_test.ktap"
    raw.write_text("\n".join(inner) + "\n")
    say(f"raw KTAP of mmbench_test: {raw}")
    if out.dmesg is not None:
        (results / "dmesg.log").write_text("\n".join(out.dmesg) + "\n")

    began = any(line.startswith("MMBENCH-GUEST-BEGIN") for line in out.lines)
    checks.append((out.finished, "the guest ran to the end",
                   f"timed out after {out.timed_out} s; what it printed is "
                   f"in {results}: guest.log, {raw.name}, console.log"
                   if out.timed_out and began else
                   f"timed out after {out.timed_out} s before the guest "
                   f"printed its first line ({boot_stage(out.console)}): "
                   f"{setup.args.cpus} CPUs "
                   f"{'under KVM' if getattr(setup, 'kvm', False) else 'emulated by TCG'} "
                   "can take that long; raise --timeout or lower --cpus"
                   if out.timed_out else f"no end marker; see {out.console}"))
    problems = out.kernel_problems()
    problems_check = (not problems, "no oops, BUG or WARN in the kernel log",
                      "; ".join(problems[:5]))
    if out.timed_out and not began:
        # Nothing ran but the boot: the checks of the suite would only
        # say so again; a boot that hung may have said why.
        return checks + [problems_check]
    verdict = ktap.runner_verdict(out.suite)
    checks.append((bool(verdict) and verdict.startswith("ok ") and
                   "# SKIP" not in verdict,
                   "run_kselftest.sh reports mmbench_test ok",
                   f"runner line: {verdict}" if verdict else
                   "run_kselftest.sh printed no result line for it"))
    res = ktap.results(inner)
    failed = [r for r in res if not r[0]]
    passed = [r for r in res if r[0] and r[3] != "SKIP"]
    skipped = [r for r in res if r[0] and r[3] == "SKIP"]
    for r in skipped:
        say(f"skipped {r[2]}: {r[4]}")
    checks.append((bool(passed) and not failed,
                   f"mmbench_test: {len(passed)} passed, {len(failed)} "
                   f"failed, {len(skipped)} skipped",
                   "failed: " + ", ".join(r[2] for r in failed) if failed
                   else "nothing passed"))
    parsed_ok, parsed = ktap.kunit_parse(setup.tree, raw)
    (results / "kunit-parse.txt").write_text(parsed)
    checks.append((parsed_ok, "kunit.py parse reads the raw KTAP cleanly",
                   f"see {results / 'kunit-parse.txt'}"))
    checks.append(problems_check)
    checks += leaks(out, results)
    table = ktap.figures(inner)
    checks.append(measured(setup.args, res, table))
    if table:
        say("figures (ns/op under TCG are inflated; see README):")
        ktap.print_table(table)
        ktap.print_scaling(table)
    checks += ceilings(setup.args, table)
    return checks


def literal_checks(setup, out, results):
    """Checks of the users' literal command, which the guest ran in the
    kernel tree built on the host: judged as the suite is."""
    checks, inner = literal.judge(out.lines, ktap.inner_ktap(out.suite))
    (results / "literal-run_tests.log").write_text(
        "\n".join(ktap.between(out.lines, literal.BEGIN, literal.END) or [])
        + "\n")
    raw = results / "literal-run_tests.ktap"
    raw.write_text("\n".join(inner) + "\n")
    rc, seconds = literal.end_status(out.lines)
    if rc is not None:
        say(f"{literal.COMMAND}: exit {rc} in {seconds} s in the guest; "
            f"its KTAP: {raw}")
    parsed_ok, parsed = ktap.kunit_parse(setup.tree, raw)
    (results / "literal-kunit-parse.txt").write_text(parsed)
    checks.append((bool(inner) and parsed_ok,
                   literal.PREFIX + "kunit.py parse reads its KTAP cleanly",
                   f"see {results / 'literal-kunit-parse.txt'}"))
    return checks


def leaks(out, results):
    """On a kernel with kmemleak: the checks that the module, unloaded,
    left no object (kmemleak's scan) and no slab cache behind."""
    if out.kmemleak is None:
        return []
    (results / "kmemleak.log").write_text("\n".join(out.kmemleak) + "\n")
    begin = [line for line in out.lines
             if line.startswith("MMBENCH-KMEMLEAK-BEGIN")]
    unloaded = bool(begin) and "loaded=0" in begin[0]
    objects = [line.strip() for line in out.kmemleak
               if line.startswith("unreferenced object")]
    caches = [line.split()[1] for line in out.kmemleak
              if line.startswith("MMBENCH-SLAB ")]
    return [(unloaded, "rmmod test_mmbench after the suite",
             "the module was still loaded"),
            (not objects, "kmemleak: no unreferenced object after rmmod",
             f"{len(objects)}: " + "; ".join(objects[:3]) +
             f" (all in {results / 'kmemleak.log'})"),
            (not caches, "no slab cache of the module left after rmmod",
             "left: " + ", ".join(caches))]


def selection(a):
    """What the options ask the suite to run, in words."""
    for param in module_params(a):
        if param.startswith("benchmarks="):
            return param
    return "every benchmark"


def measured(a, res, table):
    """The check that some case was judged and some row measured: a
    selection that runs nothing must not pass."""
    judged = [r for r in res if not r[2].startswith("context.") and
              r[3] != "SKIP"]
    rows = [name for name, f in table.items() if "ns_per_op_median" in f]
    # The commonest reason first: one cause (a module not installed for
    # the kernel) skips every case, each for that reason.
    said = [r[4] for r in res if r[3] == "SKIP"]
    # A case the selection left out says nothing of why those in it
    # skipped: theirs first.
    left_out = "is not in the benchmarks= of"
    reasons = sorted(set(said), key=lambda w: (left_out in w,
                                               -said.count(w), w))
    why = "no case ran" if not res else \
        "every case skipped" if not judged else "no row printed figures"
    if reasons:
        why += ": " + "; ".join(reasons[:3]) + \
            ("; ..." if len(reasons) > 3 else "")
    return (bool(judged) and bool(rows), "the run measured something",
            f"{selection(a)}: {why}")


def ceilings(a, table):
    """Say which rows are over their ceiling; return the check that each
    --ceiling was held against a row (a row of the ceilings file keeps
    its own ceiling over its benchmark's)."""
    benches = names.benchmarks()
    hand = {c.split("=")[0].lower(): c for c in a.ceiling}
    why = set()
    for row, f in table.items():
        mark = ktap.over_ceiling(f)
        if not mark:
            continue
        by = hand.get(row) or hand.get(names.bench_of(row, benches))
        say(f"over its ceiling: {row} {f['ns_per_op_median']} > "
            f"{f['ceiling_ns']} ns/op" + (f" (--ceiling {by})" if by else "")
            + mark[len("OVER"):])
        if mark != "OVER":
            why.add(re.sub(r"^(informational|not judged) \((.*)\)(: .*)?$",
                           r"\1: \2", f.get("ceiling", "")))
    for reason in sorted(why):
        say(f"the test did not hold a row over its ceiling to it: {reason}")
    if not hand:
        return []
    unused = []
    for name, given in hand.items():
        value = float(given.split("=")[1])
        rows = [row for row, f in table.items()
                if name in (row, names.bench_of(row, benches))]
        met = [row for row in rows
               if re.fullmatch(r"[0-9.]+", table[row].get("ceiling_ns", ""))
               and float(table[row]["ceiling_ns"]) == value]
        # Over it and not judged: say so; the case skips with the reason.
        for row in met:
            if table[row].get("ceiling", "").startswith("not judged"):
                say(f"--ceiling {given}: {row} is over it, but the run "
                    f"could not judge it: {table[row]['ceiling']}")
        own = [row for row in rows if row not in met and
               row in names.ceiling_names(ceilings_file(a))]
        if met and own:
            say(f"--ceiling {given} held {', '.join(met)} only: "
                f"{', '.join(own)} have a line of their own in the "
                "ceilings file, which the test takes first (set theirs "
                "with --ceiling <row>=NS)")
        if not met:
            unused.append(f"--ceiling {given} met no row" +
                          (f" (rows with a line of their own in the "
                           f"ceilings file keep it: {', '.join(own)})"
                           if own else
                           f" ({', '.join(rows)} printed no ceiling)"
                           if rows else ": no such row ran"))
    return [(not unused, "every --ceiling was held against a row",
             "; ".join(unused))]


def spoilt(checks, out):
    """@checks of the guest @out (a GuestOutput, a verdicts.Condition),
    each failed one naming QEMU when that guest's log showed EFLAGS no
    x86 CPU sets in both boots: the emulator's fault, not the kernel's."""
    if not out.spoilt:
        return checks
    blame = guest.spoilt_why(out.spoilt)
    return [(ok, what, why if ok else f"{why}; {blame}" if why else blame)
            for ok, what, why in checks]


def report(checks):
    for ok, what, why in checks:
        say(f"{'PASS' if ok else 'FAIL'}: {what}" +
            ("" if ok or not why else f" ({why})"))
    return all(ok for ok, _, _ in checks)


def save_archive(setup, out, results, mode):
    """Write the archive of a guest's loads to @results/archive.jsonl;
    return its records."""
    lines = ktap.between(out.lines, "MMBENCH-BENCH-BEGIN",
                         "MMBENCH-BENCH-END") or []
    # The suite's fingerprint lines, when it ran before the loads.
    lines += [f"MMBENCH-BENCH fingerprint {m.group(1)}" for m in
              (re.match(r"^(?:# )+fingerprint\.(\w+=.*)$", line)
               for line in (out.suite or [])) if m]
    params, _, _ = setup.guest_env()
    recs = archive.records(lines, setup.host_facts(),
                           {"module": params, "mode": mode,
                            "loads_asked": getattr(setup.args, "loads",
                                                   None)})
    archive.write(results / archive.FILE, recs)
    return recs
