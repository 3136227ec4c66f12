"""The options the commands share: the guest's, measure's, and the checks
that refuse bad ones before anything is installed or built."""
import argparse
import os
import re
from pathlib import Path

from . import arch as archmod, bench, build, compare, names
from .common import Failure

# Memory of the small guest of ./mmbench test, in MiB.
SMALL_MEMORY = 192

# ./mmbench measure's defaults: under 2 minutes of guest time a kernel
# under TCG here, 8 boots of 4 s and 8 loads of about 1.2 s; loads of one
# boot share more than loads of different boots, and a boot costs little
# more than three loads (tooling/doc/compare-method.md).
DEFAULT_BOOTS = 8
DEFAULT_LOADS = 8
EXIT_CODES = ("exit status: 0 passed, 1 a check or test failed, 2 bad "
              "options or a step could not be done, 130 interrupted; "
              "measure and compare: 1 a REGRESSION, 3 no regression but "
              "rows undecided (their --help)")
# compare's and measure's (measure.exit_status()): a CI gate is not green
# where nothing could have been seen.
COMPARE_EXIT_CODES = (
    "exit status: 0 answered, no regression: every row NO CHANGE or "
    "IMPROVEMENT; 1 a REGRESSION; 2 no answer: bad options or archives, a "
    "step that could not be done, NOT COMPARABLE, a kernel measured in one "
    "boot, a row measured in one kernel only; 3 no regression found, but "
    "rows INCONCLUSIVE: no answer for them (the summary says about how "
    "many more boots would decide); 130 interrupted.")
# Environment of the test program that --env may set: numbers, and
# MMBENCH_CEILINGS (a host file, copied into the guest) and MMBENCH_PARAMS
# (taken with the --param ones).
TEST_ENV = {"MMBENCH_ENFORCE"}
TEST_ENV_TEXT = {"MMBENCH_CEILINGS", "MMBENCH_PARAMS"}
# Where a MMBENCH_CEILINGS file given with --env is in the guest.
GUEST_CEILINGS = "/mmbench/ceilings"
# The largest ceiling the test program reads (FIXED_MAX / 1000 ns).
CEILING_MAX_NS = 10 ** 12


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


def _add_guest_options(p, kernels=True):
    """The options of a guest; @kernels: with those that choose its kernel
    (--kernel, --headers, --release, --debug-kernel) and an accelerator."""
    if not kernels:
        p.set_defaults(kernel=None, headers=None, release=None,
                       debug_kernel=False, accel="tcg")
    else:
        _add_kernel_options(p)
    _add_common_guest_options(p, kernels)


def _add_kernel_options(p):
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


def _add_common_guest_options(p, kernels=True):
    p.add_argument("--cpus", type=int, default=2,
                   help="guest CPUs (default 2)")
    p.add_argument("--memory", type=int, default=1024,
                   help="guest memory in MiB (default 1024)")
    p.add_argument("--nodes", type=int, default=1,
                   help="guest NUMA nodes, 1..8 (default 1), a socket "
                        "each of --cpus / N CPUs and --memory / N: the "
                        "*_remote_node rows need 2")
    p.add_argument("--param", action="append", default=[],
                   metavar="NAME=VALUE",
                   help="extra test_mmbench parameter, repeatable, e.g. "
                        "--param iterations=10000 --param cpu=1")
    if kernels:
        _add_accel_option(p)
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


def _add_accel_option(p):
    p.add_argument("--accel", choices=("auto", "kvm", "tcg", "icount"),
                   default="auto",
                   help="QEMU accelerator; auto probes KVM with a time "
                        "limit and falls back to TCG; icount: TCG whose "
                        "guest clocks count instructions, one a "
                        "nanosecond, so that ns/op are instructions an op "
                        "(measure and compare-check only, x86_64; see "
                        "tooling/doc/compare-method.md) (default auto)")


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


def _arm64_image(path):
    """Whether @path is an arm64 boot image as QEMU's -kernel takes it: an
    Image (its header's magic "ARMd" at 0x38), gzip'd or not."""
    try:
        with open(path, "rb") as f:
            head = f.read(0x3c)
    except OSError as e:
        raise Failure(f"--kernel {path}: {e.strerror or e}") from e
    return head[0x38:0x3c] == b"ARMd" or head[:2] == b"\x1f\x8b"


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


def vcpus_note(cpus, host=None):
    """What a run says when its guest of @cpus vCPUs has more than the
    host's CPUs (@host, default os.cpu_count()): the rows on several CPUs
    then time the host's scheduling of the vCPUs; else None."""
    host = host or os.cpu_count() or 1
    if cpus <= host:
        return None
    return (f"the guest has {cpus} vCPUs, this host {host} CPUs: the rows "
            "on several CPUs time how the host shares its CPUs among the "
            "vCPUs as much as the kernel's paths")


def check_options(a):
    """Refuse bad options before anything is installed or built."""
    # QEMU's most: the x86_64 guest's pc machine takes 255 CPUs, the
    # arm64 guest's virt machine (GICv2) 8.
    most = 8 if getattr(a, "arch", "x86_64") == "arm64" else 255
    if not 1 <= a.cpus <= most:
        raise Failure(f"--cpus must be from 1 to {most}")
    if not 256 <= a.memory <= 1 << 20:
        raise Failure("--memory must be from 256 to 1048576 (MiB)")
    nodes = getattr(a, "nodes", 1)
    if not 1 <= nodes <= 8:
        raise Failure(f"--nodes {nodes}: want 1 to 8")
    if a.cpus % nodes:
        fits = sorted({nodes * max(1, a.cpus // nodes),
                       nodes * (a.cpus // nodes + 1)})
        raise Failure(f"--nodes {nodes}: each node is a socket of the same "
                      f"number of CPUs, and --cpus {a.cpus} does not divide "
                      f"by {nodes}: give --cpus "
                      f"{' or '.join(str(n) for n in fits)}")
    if a.memory // nodes < 128:
        raise Failure(f"--nodes {nodes}: each node needs 128 MiB at least, "
                      f"and --memory {a.memory} gives it {a.memory // nodes}"
                      f": give --memory {128 * nodes} or more")
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
    if a.headers and not (a.headers / "include/config/auto.conf").is_file():
        raise Failure(f"--headers {a.headers}: not a build tree a module "
                      "can be built in (no include/config/auto.conf; "
                      "Debian's linux-headers-*-common is half of one): "
                      "give /lib/modules/<release>/build")
    if a.kernel and arch is archmod.X86_64 and not _bzimage(a.kernel):
        raise Failure(f"--kernel {a.kernel}: not an x86 bzImage (no "
                      "\"HdrS\" boot header), e.g. /boot/vmlinuz-"
                      "<release>")
    if a.kernel and arch is not archmod.X86_64 and not _arm64_image(a.kernel):
        raise Failure(f"--kernel {a.kernel}: not an arm64 Image (no "
                      "\"ARMd\" at 0x38, nor gzip'd)"
                      + (", but an x86 bzImage" if _bzimage(a.kernel) else
                         "") + ", e.g. Debian's /boot/vmlinuz-<release> of "
                      "linux-image-*-arm64")
    check_release(a.kernel, a.headers, a.release, arch)
    env = env_options(a)
    benches = names.benchmarks()
    try:
        params = dict(p.split("=", 1) for p in module_params(a))
        # The module with its test-only knobs where they are meant
        # (./mmbench test, or a knob given: Setup builds it so), else as
        # it goes upstream, which a plain run loads.
        source = names.CHECKED_SOURCE if knobs_meant(a, params) else \
            names.MODULE_SOURCE
        names.check_parameter_names(params, source)
        if "slow_into" in params and \
                getattr(a, "command", None) in KSELFTEST and \
                not getattr(a, "loads_only", False):
            raise Failure(f"--param slow_into={params['slow_into']}: the "
                          "kselftest loads the module once a case, with "
                          "that case's benchmark alone, so every other "
                          "case's load would refuse the row; slow_into is "
                          "for ./mmbench measure (--b-param slow_into=...)")
        # A benchmark no case of the kselftest runs (ndelay, a calibration
        # row): a run given it alone would skip every case.  (The baseline
        # check_selection() refuses by name.)
        cased = set(bench.groups()) - set(bench.UNCASED_GROUPS)
        caseless = [b for b in params.get("benchmarks", "").split(",")
                    if b in benches and b != "baseline" and b not in cased]
        if caseless and getattr(a, "command", None) in KSELFTEST and \
                not getattr(a, "loads_only", False):
            raise Failure(f"--param benchmarks={params['benchmarks']}: "
                          f"{', '.join(caseless)} has no case in the "
                          "kselftest, which loads the module a case at a "
                          "time: ./mmbench measure or bench (--loads) load "
                          "it")
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
        names.check_parameter_values(params, source)
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
        names.check_ceiling_in_load(ceiling.split("=")[0].lower(), params,
                                    benches)
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
        if name in TEST_ENV and not re.fullmatch(r"0|[1-9][0-9]{0,5}", value):
            raise Failure(f"--env {item!r}: {name} takes a whole number "
                          "from 0 to 999999, without leading zeros (the "
                          "test program reads \"0\" as off)")
        env[name] = value
    return env


def knobs_meant(a, params=None):
    """Whether the run of @a loads the module with its test-only knobs
    (tooling/kernel/patches/test_mmbench-knobs.patch): ./mmbench test's
    (negative.sh and faults.sh use them), or one with a knob among its
    module parameters (@params, {NAME: VALUE}; default @a's)."""
    if params is None:
        params = dict(p.split("=", 1) for p in module_params(a))
    return getattr(a, "command", None) == "test" or \
        bool(names.knobs_given(params))


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


def label(text):
    """A kernel's name for --label-a/-b: something to read."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name")
    if not text.isprintable():
        raise argparse.ArgumentTypeError(
            f"{text!r}: a name on one line, without control characters")
    return text


def check_labels(args):
    """Refuse --label-a and --label-b that cannot tell A from B."""
    a, b = getattr(args, "label_a", None), getattr(args, "label_b", None)
    if a is not None and a == b:
        raise Failure(f"--label-a and --label-b are both {a!r}: the table "
                      "could not tell A from B")


def add_label_options(p, tree=False):
    """--label-a and --label-b: the kernels' names in compare's table
    and plot."""
    for side in "ab":
        S = side.upper()
        p.add_argument(f"--label-{side}", metavar="NAME", type=label,
                       help=f"{S}'s name in the table's column, the "
                            "summary and the forest plot (default: its "
                            "release" + (f"; with --tree, REV_{S}"
                                         if tree else "") + ")")


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
    p.add_argument("--boots", type=int, default=DEFAULT_BOOTS,
                   help="boots a kernel, alternating, 2..50 (default "
                        f"{DEFAULT_BOOTS})")
    p.add_argument("--loads", type=int, default=DEFAULT_LOADS,
                   help="module loads a boot, 2..50 (default "
                        f"{DEFAULT_LOADS})")
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
