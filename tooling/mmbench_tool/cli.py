"""./mmbench subcommands: run (the suite in a guest), test (our tests),
bench (how far the figures can be trusted), verdicts (how often the
verdicts hold, idle and under load) and lava (the suite as a LAVA job)."""
import argparse
import contextlib
import copy
import os
import re
import signal
import sys
import time
from pathlib import Path

from . import (arch as archmod, archive, arm64, bench, build, compare,
               debugkernel, deps, fleet, guest, intree, ktap, lava, literal,
               measure, names, revcheck, revisions, series, verdicts)
from .common import OUT, REPO, Failure, Phase, run, say

EXIT_CODES = ("exit status: 0 passed, 1 a check or test failed, 2 bad "
              "options or a step could not be done, 130 interrupted")
# Environment of the test program that --env may set: numbers, and
# MMBENCH_CEILINGS (a host file, copied into the guest) and MMBENCH_PARAMS
# (taken with the --param ones).
TEST_ENV = {"MMBENCH_ENFORCE", "MMBENCH_DELAY_TOLERANCE"}
TEST_ENV_TEXT = {"MMBENCH_CEILINGS", "MMBENCH_PARAMS"}
# Where a MMBENCH_CEILINGS file given with --env is in the guest.
GUEST_CEILINGS = "/mmbench/ceilings"
# The largest ceiling the test program reads (FIXED_MAX / 1000 ns).
CEILING_MAX_NS = 10 ** 12
# The front end's unit tests, run on the host by ./mmbench test.
UNIT_TESTS = REPO / "tooling" / "tests"
# Runs of the suite under load in ./mmbench test.
LOADED_RUNS = 3
# Memory of the small guest of ./mmbench test, in MiB.
SMALL_MEMORY = 192
CHECKPATCH_FILES = ["lib/test_mmbench.c",
                    "tools/testing/selftests/mm/mmbench/mmbench_test.c"]


def path_arg(text):
    """A path option or argument: Path(""), the current folder, is not
    one."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    return Path(text)


def _add_arch_option(p):
    p.add_argument("--arch", choices=sorted(archmod.ARCHES),
                   default="x86_64",
                   help="the guest's architecture (default x86_64): arm64 "
                        "boots Debian's 6.12 cloud-arm64 kernel under "
                        "qemu-system-aarch64 -M virt (TCG), the module and "
                        "the kselftest cross-built")


def _add_guest_options(p):
    p.add_argument("--kernel", type=path_arg,
                   help="kernel image to boot (default: /boot/vmlinuz of "
                        "Debian's linux-image-6.12-cloud-amd64)")
    p.add_argument("--headers", type=path_arg,
                   help="kernel build tree to build the module against "
                        "(default: /lib/modules/<release>/build); give it "
                        "with --kernel")
    p.add_argument("--release",
                   help="the kernel's release (uname -r), for the module "
                        "path in the guest (default: the headers' "
                        "UTS_RELEASE; give it for headers without one)")
    p.add_argument("--debug-kernel", action="store_true",
                   help="boot a debug kernel (KASAN, kmemleak, lockdep, "
                        "...) built once from linux-source-6.12 with "
                        "tooling/kernel/debug.config, and kept")
    p.add_argument("--cpus", type=int, default=2,
                   help="guest CPUs (default 2)")
    p.add_argument("--memory", type=int, default=1024,
                   help="guest memory in MiB (default 1024)")
    p.add_argument("--param", action="append", default=[],
                   metavar="NAME=VALUE",
                   help="extra test_mmbench parameter, repeatable, e.g. "
                        "--param iterations=10000 --param cpu=1")
    p.add_argument("--accel", choices=("auto", "kvm", "tcg", "icount"),
                   default="auto",
                   help="QEMU accelerator; auto probes KVM with a time "
                        "limit and falls back to TCG; icount: TCG whose "
                        "guest clocks count instructions, one a "
                        "nanosecond, so that ns/op are instructions an op "
                        "(measure and compare-check only, x86_64; see "
                        "tooling/doc/compare-method.md) (default auto)")
    p.add_argument("--ceiling", action="append", default=[],
                   metavar="BENCHMARK=NS",
                   help="ns/op ceiling for one benchmark or one row "
                        "(e.g. kmalloc_64), repeatable (sets "
                        "MMBENCH_CEILING_<NAME> in the guest)")
    p.add_argument("--env", action="append", default=[],
                   metavar="NAME=VALUE",
                   help="environment of the test program, repeatable: "
                        + ", ".join(sorted(TEST_ENV)) + " (numbers), "
                        "MMBENCH_CEILINGS=<file on this host>, "
                        "MMBENCH_PARAMS='<NAME=VALUE ...>' (as many "
                        "--param; a parameter may be given once)")
    p.add_argument("--timeout", type=int, default=1800,
                   help="seconds the guest may run before it is stopped, "
                        f"10 to {TIMEOUT_MAX} (default 1800)")


# Commands that run the kselftest, which loads the module once a case.
KSELFTEST = ("run", "test", "lava", "verdicts", "bench")
# The most MMBENCH_PARAMS (but benchmarks=) the kselftest takes: its
# build_params() holds 1023 characters, of which it needs up to 16 for
# budget_ms=, 50 for a case's benchmarks=, and the one-CPU guest of
# ./mmbench test adds 20 (fragment.sh): 900 leaves a margin.
KSELFTEST_PARAMS_MAX = 900


# The longest --timeout: a week (past about 9.2e9 s, Python's timers
# cannot hold it, and the guest would run without one).
TIMEOUT_MAX = 7 * 24 * 3600


def _bzimage(path):
    """Whether @path is an x86 boot image: the setup header's magic
    "HdrS" at 0x202, as QEMU's -kernel looks for it."""
    try:
        with open(path, "rb") as f:
            f.seek(0x202)
            return f.read(4) == b"HdrS"
    except OSError as e:
        raise Failure(f"--kernel {path}: {e.strerror or e}") from e


KVM_DEVICE = "/dev/kvm"


def _bzimage_release(path, opt="--kernel"):
    """The release an x86 boot image says it is: the first word of the
    string its setup header's kernel_version (at 0x20e, boot protocol
    2.00 on) points to, 0x200 past it; None where it has none, or is no
    bzImage."""
    try:
        with open(path, "rb") as f:
            f.seek(0x202)
            head = f.read(14)
            if len(head) < 14 or head[:4] != b"HdrS" or \
                    int.from_bytes(head[4:6], "little") < 0x200:
                return None
            at = int.from_bytes(head[12:14], "little")
            if not at:
                return None
            f.seek(at + 0x200)
            text = f.read(128).split(b"\0")[0].decode("ascii", "replace")
    except OSError as e:
        raise Failure(f"{opt} {path}: {e.strerror or e}") from e
    return text.split()[0] if text.split() else None


# What uname -r can print: __NEW_UTS_LEN is 64.
_RELEASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+~-]{0,63}")


def check_release(kernel, headers, release, arch, opt="--"):
    """Refuse a release that is no uname -r (it names a folder of the
    guest and of out/), or that is not the one the headers were built
    for (the module would carry theirs), and a kernel image (x86) of
    another release than the headers' (the module would not load in
    it).  @opt: the options' prefix, "--" or "--a-"."""
    if release is not None and not _RELEASE.fullmatch(release):
        raise Failure(f"{opt}release {release!r}: not a kernel release "
                      "(uname -r) such as 6.12.118+deb12-cloud-amd64")
    if not headers:
        return
    uts = headers / "include" / "generated" / "utsrelease.h"
    built = build.kernel_release(headers) if uts.exists() else None
    if release and built and release != built:
        raise Failure(f"{opt}release {release}: {opt}headers {headers} "
                      f"are of {built} (UTS_RELEASE), the release the "
                      "module would carry")
    image = _bzimage_release(kernel, opt + "kernel") if kernel and \
        arch is archmod.X86_64 else None
    if image and (release or built) and image != (release or built):
        raise Failure(f"{opt}kernel {kernel} is {image}, but {opt}headers "
                      f"{headers} are of {release or built}: the module "
                      "would not load in it")


def check_options(a):
    """Refuse bad options before anything is installed or built."""
    # QEMU's most: the x86_64 guest's pc machine takes 255 CPUs, the
    # arm64 guest's virt machine (GICv2) 8.
    most = 8 if getattr(a, "arch", "x86_64") == "arm64" else 255
    if not 1 <= a.cpus <= most:
        raise Failure(f"--cpus must be from 1 to {most}")
    if not 256 <= a.memory <= 1 << 20:
        raise Failure("--memory must be from 256 to 1048576 (MiB)")
    if not 10 <= a.timeout <= TIMEOUT_MAX:
        raise Failure(f"--timeout must be from 10 to {TIMEOUT_MAX} "
                      "(seconds, a week)")
    if getattr(a, "loads", None) is not None and not 2 <= a.loads <= 50:
        raise Failure("--loads must be from 2 to 50")
    if not 1 <= getattr(a, "runs", 1) <= 100:
        raise Failure("--runs must be from 1 to 100")
    if bool(a.kernel) != bool(a.headers):
        raise Failure("--kernel and --headers go together")
    if a.release is not None and not a.headers:
        raise Failure("--release goes with --kernel and --headers")
    if a.debug_kernel and a.kernel:
        raise Failure("--debug-kernel builds the kernel it boots: not with "
                      "--kernel and --headers")
    arch = archmod.of(a)
    if a.debug_kernel and arch is not archmod.X86_64:
        raise Failure(f"--debug-kernel builds an x86_64 kernel: not with "
                      f"--arch {arch.name}")
    if a.accel == "kvm" and not arch.kvm:
        raise Failure(f"--accel kvm: an {arch.name} guest cannot run under "
                      "KVM on this x86_64 host; it runs under TCG")
    if a.accel == "kvm" and arch.kvm and \
            not os.access(KVM_DEVICE, os.R_OK | os.W_OK):
        raise Failure(f"--accel kvm: {KVM_DEVICE} is "
                      f"{'not usable' if os.path.exists(KVM_DEVICE) else 'absent'}"
                      " on this machine; --accel tcg emulates the guest "
                      "(auto, the default, picks what works)")
    if a.accel == "icount" and getattr(a, "command", None) not in \
            ("measure", "compare-check"):
        raise Failure("--accel icount: for measure and compare-check, "
                      "which compare two kernels' instructions; the "
                      "suite's checks and ceilings are of time")
    if a.accel == "icount" and arch is not archmod.X86_64:
        raise Failure(f"--accel icount: tried with x86_64 guests only, not "
                      f"with --arch {arch.name}")
    for opt, p in (("--kernel", a.kernel), ("--headers", a.headers)):
        if p and not p.exists():
            raise Failure(f"{opt} {p}: does not exist")
    if a.headers and not (a.headers / "Makefile").is_file():
        raise Failure(f"--headers {a.headers}: not a kernel headers tree "
                      "(no Makefile), e.g. /lib/modules/<release>/build")
    if a.kernel and arch is archmod.X86_64 and not _bzimage(a.kernel):
        raise Failure(f"--kernel {a.kernel}: not an x86 bzImage (no "
                      "\"HdrS\" boot header), e.g. /boot/vmlinuz-"
                      "<release>")
    check_release(a.kernel, a.headers, a.release, arch)
    env = env_options(a)
    benches = names.benchmarks()
    try:
        params = dict(p.split("=", 1) for p in module_params(a))
        names.check_parameter_names(params)
        if "slow_into" in params and \
                getattr(a, "command", None) in KSELFTEST and \
                not getattr(a, "loads_only", False):
            raise Failure(f"--param slow_into={params['slow_into']}: the "
                          "kselftest loads the module once a case, with "
                          "that case's benchmark alone, so every other "
                          "case's load would refuse the row; slow_into is "
                          "for ./mmbench measure (--b-param slow_into=...)")
        fail = params.get("make_it_fail")
        if fail is not None and names.kstrtobool(fail) is None:
            raise Failure(f"--param make_it_fail={fail}: want a boolean as "
                          "the kernel reads it: y, n, 1, 0, on, off")
        if fail is not None and names.kstrtobool(fail) and \
                not getattr(a, "debug_kernel", False):
            raise Failure(f"--param make_it_fail={fail}: test only, for "
                          "fault injection, which only the debug kernel has "
                          "(--debug-kernel; ./mmbench test runs it there, in "
                          "tooling/guest/faults.sh): the stock kernels "
                          "refuse it")
        # What the kselftest's build_params() adds to them: budget_ms= and
        # each case's benchmarks= (the user's benchmarks= it leaves out).
        own = sum(len(p) + 1 for p in module_params(a)
                  if not p.startswith("benchmarks="))
        if getattr(a, "command", None) in KSELFTEST and \
                not getattr(a, "loads_only", False) and \
                own > KSELFTEST_PARAMS_MAX:
            raise Failure(f"--param: the module parameters come to {own} "
                          f"characters; the kselftest takes at most "
                          f"{KSELFTEST_PARAMS_MAX} besides its own")
        names.check_selection(params, benches)
        names.check_parameter_values(params)
        names.check_list_values(params)
        names.check_cpu_values(params, a.cpus,
                               kernel_args=getattr(a, "kernel_arg", []),
                               arch=getattr(a, "arch", "x86_64"))
    except Failure as e:
        # The checks say --param: name the option the parameter came with.
        m = re.match(r"--param '?([a-z_]+)=", str(e))
        opt = m and {p.split("=", 1)[0]: o for p, o in
                     param_sources(a).items()}.get(m.group(1))
        if not opt or opt == "--param":
            raise
        raise Failure(opt + str(e)[len("--param"):]) from e
    ceiled = names.ceiling_names()
    if "MMBENCH_CEILINGS" in env:
        check_ceilings_file(Path(env["MMBENCH_CEILINGS"]), benches, ceiled)
    for ceiling in a.ceiling:
        if not re.fullmatch(r"[A-Za-z0-9_]+=[0-9]+(\.[0-9]{1,3})?", ceiling):
            raise Failure(f"--ceiling {ceiling!r}: want BENCHMARK=NS, "
                          "e.g. count_vm_event=20")
        if not float(ceiling.split("=")[1]):
            raise Failure(f"--ceiling {ceiling!r}: a ceiling of 0 ns no "
                          "path can be under; want NS over 0")
        if float(ceiling.split("=")[1]) > CEILING_MAX_NS:
            raise Failure(f"--ceiling {ceiling!r}: over the test's largest "
                          f"ceiling, {CEILING_MAX_NS:.0f} ns")
        names.check_ceiling_name(ceiling.split("=")[0].lower(), benches,
                                 ceiled)
    named = [c.split("=")[0].lower() for c in a.ceiling]
    twice = sorted({n for n in named if named.count(n) > 1})
    if twice:
        raise Failure(f"--ceiling {twice[0]} given twice: give it once")


def env_options(a):
    """{name: value} of --env; refuses a name it may not set or sets
    twice, and a value that is not what the name takes."""
    env = {}
    allowed = sorted(TEST_ENV | TEST_ENV_TEXT)
    for item in a.env:
        name, eq, value = item.partition("=")
        if not eq or name not in TEST_ENV | TEST_ENV_TEXT:
            hint = (" (use --ceiling)" if name.startswith("MMBENCH_CEILING_")
                    else "")
            raise Failure(f"--env {item!r}: want NAME=VALUE, NAME one of "
                          f"{', '.join(allowed)}{hint}")
        if name in env:
            raise Failure(f"--env {name} given twice")
        if name in TEST_ENV and not re.fullmatch(r"[0-9]{1,6}", value):
            raise Failure(f"--env {item!r}: {name} takes a whole number "
                          "from 0 to 999999")
        env[name] = value
    return env


def module_params(a):
    """The module parameters, NAME=VALUE: those of --env MMBENCH_PARAMS,
    then the --param ones.  A parameter given twice, in either or both, is
    refused: which one the module would take is not worth guessing."""
    return list(param_sources(a))


def param_sources(a):
    """{NAME=VALUE: the option it came with} of module_params()."""
    given = env_options(a).get("MMBENCH_PARAMS", "").split()
    # A side of measure names the option of each (measure.Side()).
    opts = getattr(a, "param_opts", None)
    if not isinstance(opts, list) or len(opts) != len(a.param):
        opts = ["--param"] * len(a.param)
    where = {}
    for opt, param in [("--env MMBENCH_PARAMS", p) for p in given] + \
            list(zip(opts, a.param)):
        if re.fullmatch(r"[a-z_]+=", param):
            raise Failure(f"{opt} {param!r}: the value is empty")
        if re.fullmatch(r"[A-Za-z_]*[A-Z][A-Za-z_]*=\S+", param):
            raise Failure(f"{opt} {param!r}: parameter names are lower "
                          f"case, e.g. {param.split('=')[0].lower()}=...")
        if not re.fullmatch(r"[a-z_]+=\S+", param):
            raise Failure(f"{opt} {param!r}: want NAME=VALUE, no spaces")
        name = param.split("=")[0]
        if name in where:
            raise Failure(f"module parameter {name} given twice "
                          f"({where[name]} and {opt} {param}): give it once")
        where[name] = f"{opt} {param}"
    return dict(zip(given, ["--env MMBENCH_PARAMS"] * len(given))) | \
        dict(zip(a.param, opts))


def ceilings_file(a):
    """The ceilings file the test program reads, on this host."""
    given = env_options(a).get("MMBENCH_CEILINGS")
    return Path(given) if given else names.CEILINGS


def check_ceilings_file(path, benches, ceiled):
    """Refuse a ceilings file the guest could not use, or with a line for
    no benchmark or row, or for one held to no ceiling.  A line is
    '<row> <ns>', or '<row> <ns> <emulated ns>' where the test program
    takes a second ceiling for an emulated machine."""
    if str(path) in ("", "."):
        raise Failure("--env MMBENCH_CEILINGS=: the value is empty; name a "
                      "ceilings file")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise Failure(f"--env MMBENCH_CEILINGS={path}: cannot read it: "
                      f"{e}") from e
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) not in (2, 3) or \
           not all(re.fullmatch(r"[0-9]+(\.[0-9]{1,3})?", w)
                   for w in words[1:]):
            raise Failure(f"{path}:{n}: want '<benchmark> <ns> "
                          "[<emulated ns>]'")
        if not all(float(w) for w in words[1:]):
            raise Failure(f"{path}:{n}: a ceiling of 0 ns no path can be "
                          "under; want ns over 0")
        if any(float(w) > CEILING_MAX_NS for w in words[1:]):
            raise Failure(f"{path}:{n}: a ceiling over the test's largest, "
                          f"{CEILING_MAX_NS} ns")
        names.check_ceiling_name(words[0], benches, ceiled,
                                 where=f"{path}:{n}:")


class Setup:
    """What a guest run needs: kernel, module, kselftest, tree."""

    def __init__(self, args, checks=False):
        self.args = args
        self.checks = checks
        self.module_warnings = []
        self.kselftest_warnings = []
        self.extra_env = {}
        self.arch = archmod.of(args)
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
        with Phase("module"):
            self.ko, self.module_warnings = build.build_module(
                self.headers, self.release, checks=self.checks,
                cross=self.cross)
            say(f"built {self.ko}")
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
             echo=None, literal=False, kernel_args=(), files=None):
        """Boot the guest in @mode; @around: a context manager to run the
        guest in; @echo: which lines of the guest to show (default all);
        @kernel_args: more on the kernel's command line, this boot only;
        @files: more host files for the guest, {guest path: host path};
        @literal: run the users' literal make ... run_tests as well, in
        a copy of the kernel tree the kselftest was built in."""
        a = self.args
        cpus = cpus or a.cpus
        memory = memory or a.memory
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
                       f"{', icount' if icount else ''}, {cpus} CPUs, "
                       f"{memory} MiB)"):
                try:
                    guest.boot(self.kernel, image, cpus, memory, kvm,
                               console, show, self.args.timeout,
                               arch=self.arch,
                               kernel_args=list(getattr(
                                   self.args, "kernel_arg", None) or []) +
                               list(kernel_args),
                               icount=icount)
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
    reasons = sorted(set(said), key=lambda w: (-said.count(w), w))
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


def cmd_run(args):
    setup = Setup(args)
    setup.prepare()
    results = guest.results_dir()
    if args.loads:
        setup.extra_env = {"MMBENCH_LOADS": str(args.loads)}
    out = setup.boot("run", results)
    with Phase("results"):
        checks = judge_suite(setup, out, results)
        if args.loads:
            recs = save_archive(setup, out, results, "run")
            got = sum(1 for r in recs if r["type"] == "load" and
                      r["insmod"] == "ok")
            why = sorted({r["why"] for r in recs if r.get("why")})
            checks.append((got == args.loads,
                           f"{args.loads} more module loads for the archive",
                           f"{got} loaded" + "".join(
                               f"; insmod failed: {w}" for w in why[:2])))
            say(f"archive of {got} loads: {results / archive.FILE}")
    Phase.report()
    good = report(spoilt(checks, out))
    say(f"results in {results}")
    if not good and out.spoilt:
        say("suite NOT JUDGED: QEMU's fault, EFLAGS no x86 CPU sets in "
            f"both boots (the second's {out.spoilt}; exit status 2)")
        return 2
    say("suite PASSED" if good else "suite FAILED")
    return 0 if good else 1


def cmd_bench(args):
    setup = Setup(args)
    setup.prepare()
    results = guest.results_dir()
    setup.extra_env = {"MMBENCH_LOADS": str(args.loads)}
    out = setup.boot("bench", results)
    lines = ktap.between(out.lines, "MMBENCH-BENCH-BEGIN",
                         "MMBENCH-BENCH-END") or []
    suite, fingerprint, loads = bench.parse(lines)
    save_archive(setup, out, results, "bench")
    Phase.report()
    say("benchmark of the benchmark (a measurement, not a test):")
    text = bench.report(suite, fingerprint, loads)
    (results / "bench.txt").write_text("\n".join(text) + "\n")
    say(f"results in {results}")
    return 0 if loads and suite and not out.timed_out else 1


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
        hog = verdicts.Hog(2 * setup.args.timeout + 60)
        say(f"busy host: a busy loop on each of CPUs "
            f"{','.join(map(str, hog.cpus))} while the guest runs")
    try:
        out = setup.boot(
            "verdicts", results, around=hog,
            echo=lambda line: line.startswith("MMBENCH-VERDICT") or
            re.match(r"^(not )?ok \d+ selftests: ", line) is not None)
    finally:
        setup.extra_env = saved
    found = verdicts.parse(out.lines)
    for one in found:
        (results / f"run{one.number}.ktap").write_text(
            "\n".join(one.inner) + "\n")
    return verdicts.Condition(load, runs, found, out.timed_out,
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
        checks += lava_guest(setup)[0]
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


def lava_guest(setup):
    """The suite as a LAVA job run by lava-run, on the kernel and with
    the module and kselftest of @setup.  Returns the checks and the
    results folder."""
    results = guest.results_dir("-lava")
    rc, text = lava.run_job(setup, results)
    with Phase("results"):
        checks = lava.job_checks(rc, text)
    return checks, results, lava.parse_log(text)


def cmd_lava(args):
    setup = Setup(args)
    if args.kernel or args.debug_kernel or setup.arch is not archmod.X86_64:
        raise Failure("./mmbench lava runs the job on Debian's stock 6.12 "
                      "cloud kernel for x86_64: not with --kernel, "
                      "--debug-kernel or --arch")
    if args.accel in ("kvm", "icount"):
        raise Failure("./mmbench lava's device runs QEMU under TCG (its "
                      "qemu command has neither KVM's nor -icount's "
                      f"options): not with --accel {args.accel}")
    setup.prepare()
    checks, results, found = lava_guest(setup)
    Phase.report()
    say(f"LAVA's results of test suite 0_{lava.DEFINITION} (case: result "
        "(measurement units)):")
    for line in lava.sample(found):
        print(line, flush=True)
    good = report(checks)
    say(f"results in {results / 'lava'} (job.yaml, device.yaml, "
        "lava-run.log)")
    return 0 if good else 1


def cmd_export(args):
    out = args.output.resolve()
    if out.exists() and not out.is_dir():
        raise Failure(f"-o {args.output}: a file, not a folder")
    if args.results is not None and not args.results.is_dir():
        raise Failure(f"--results {args.results}: no such results folder")
    if args.results is not None and not series.run_figures(args.results):
        raise Failure(f"--results {args.results}: no figures in its "
                      "mmbench_test.ktap: not the results of a ./mmbench "
                      "run or test that ran the suite")
    with Phase("packages"):
        deps.ensure(deps.EXPORT_PACKAGES)
    with Phase("export"):
        branch, files = series.export(out,
                                      results=args.results)
    say(f"branch {branch} of {series.PRISTINE}")
    for f in files:
        print(f)
    if not args.check:
        return 0
    # The checks run in the tree the series is applied to by git am.
    tree = series.applied_tree()
    bad = 0
    for f in files[1:]:
        issues = series.checkpatch(tree, f)
        bad += bool(issues)
        say(f"checkpatch --strict {f.name}: "
            + ("clean" if not issues else "; ".join(issues)))
    for what, issues in (("kernel-doc -none lib/test_mmbench.c",
                          series.kernel_doc(tree)),
                         ("get_abi.pl validate", series.abi_validate(tree))):
        bad += bool(issues)
        say(f"{what}: " + ("clean" if not issues else "; ".join(issues)))
    return 1 if bad else 0


def _add_measure_options(p):
    p.add_argument("--kernel-arg", action="append",
                   default=[], metavar="ARG",
                   help="a parameter more on both kernels' command line, "
                        "NAME or NAME=VALUE (NAME in lower case), "
                        "repeatable, e.g. mitigations=off (the guests' "
                        "/proc/cmdline is in the archives' fingerprint)")
    p.add_argument("--kaslr", action="store_true",
                   help="boot with KASLR, as the kernels are shipped: "
                        "without it (the default) the guests boot with "
                        "nokaslr, the kernel's and the module's code at the "
                        "same addresses every boot (tooling/doc/"
                        "compare-method.md, \"Boots without KASLR\")")
    p.add_argument("--boots", type=int, default=measure.DEFAULT_BOOTS,
                   help="boots a kernel, alternating, 2..50 (default "
                        f"{measure.DEFAULT_BOOTS})")
    p.add_argument("--loads", type=int, default=measure.DEFAULT_LOADS,
                   help="module loads a boot, 2..50 (default "
                        f"{measure.DEFAULT_LOADS})")
    p.add_argument("--norm", choices=compare.NORMS,
                   default=compare.DEFAULT_NORM,
                   help="what each load is normalised by (default "
                        f"{compare.DEFAULT_NORM}, none under --accel "
                        "icount; tooling/doc/compare-method.md)")


def loads_only_options(a, command):
    """Refuse, for @command, whose guests only load the module (bench.sh)
    and never run the kselftest, the options only the kselftest reads:
    --ceiling, and --env but MMBENCH_PARAMS."""
    env_options(a)              # a name it takes at all, first
    if a.ceiling:
        raise Failure(f"--ceiling {a.ceiling[0]}: {command} only loads the "
                      "module; the kselftest, which holds rows to "
                      "ceilings, does not run")
    for item in a.env:
        name = item.partition("=")[0]
        if name != "MMBENCH_PARAMS":
            raise Failure(f"--env {name}: {command} only loads the module; "
                          "the kselftest, which reads it, does not run "
                          "(MMBENCH_PARAMS is taken)")


def unused_options(a, unused=()):
    """Refuse options of @a that boot guests (and those of @unused, dest
    names of _add_measure_options()) given with other than their
    defaults, for a command that boots none and would ignore them."""
    p = argparse.ArgumentParser(add_help=False)
    _add_guest_options(p)
    _add_arch_option(p)
    _add_measure_options(p)
    kept = ("boots", "loads", "norm")
    for dest, default in vars(p.parse_args([])).items():
        if (dest not in kept or dest in unused) and \
                getattr(a, dest, default) != default:
            raise Failure(f"--{dest.replace('_', '-')}: this boots no "
                          "guest and would ignore it (the archives say "
                          "how theirs were measured)")


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
