"""Assemble the guest's initramfs and boot it in QEMU."""
import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import threading
import time
from pathlib import Path

from .arch import X86_64
from .common import GUEST_FILES, OUT, Failure, run, say

BUSYBOX = Path("/bin/busybox")
# ELF programs from the host the guest needs besides busybox.  runner.sh
# calls /usr/bin/timeout --foreground, which busybox's timeout lacks, and
# its "(((((" pipeline is read as arithmetic by busybox sh: /bin/sh is dash,
# as on Debian.  chrt (util-linux) makes a real-time spinner for a stall.
HOST_PROGRAMS = ["/usr/bin/timeout", "/bin/dash", "/usr/bin/chrt"]
KVM_PROBE_SECONDS = 30
# The users' literal command runs in a kernel tree built on the host, here
# in the guest: GNU make, and coreutils' readlink (the selftests Makefile
# calls "readlink -e", which busybox's lacks).
LITERAL_PROGRAMS = ["/usr/bin/make", "/usr/bin/readlink"]
LITERAL_TREE = "/usr/src/linux"
# What of the tree that command reads: the selftests Makefile, lib.mk and
# the headers the test program depends on (every file at the top of
# tools/testing/selftests), the runner, the test's own folder with the
# program built on the host, and the one file of the kernel's the
# Makefile includes.  Other tests' folders are left out.
LITERAL_DIRS = ["tools/testing/selftests/kselftest",
                "tools/testing/selftests/mm/mmbench"]
LITERAL_FILES = ["scripts/subarch.include"]
LITERAL_TOP = "tools/testing/selftests"
LITERAL_PROGRAM = "tools/testing/selftests/mm/mmbench/mmbench_test"


class GuestTimeout(Exception):
    """The guest ran past its time and was stopped."""

    def __init__(self, seconds):
        super().__init__(f"the guest ran for more than {seconds} s")
        self.seconds = seconds


def _copy_with_libs(prog, root, dest=None):
    dest = root / (dest or prog.lstrip("/"))
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(prog, dest)
    out = run(["ldd", prog], capture=True, check=False)
    for lib in re.findall(r"(/\S+) \(0x", out):
        target = root / lib.lstrip("/")
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(os.path.realpath(lib), target)


def _base_root(root, busybox=BUSYBOX, applets=True):
    """Lay out @root with @busybox; with @applets, its applets' links,
    which running it here lists (a busybox of another architecture does
    not run here: /init installs the links in the guest)."""
    if root.exists():
        shutil.rmtree(root)
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "proc", "sys", "dev",
              "tmp", "etc", "mmbench"):
        (root / d).mkdir(parents=True)
    shutil.copy2(busybox, root / "bin/busybox")
    for applet in (run([str(busybox), "--list"], capture=True).split()
                   if applets else []):
        link = root / "bin" / applet
        if applet not in ("busybox", "sh") and not link.exists():
            link.symlink_to("busybox")
    (root / "bin/sh").symlink_to("dash")
    (root / "etc/passwd").write_text(
        "root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n")
    (root / "etc/group").write_text("root:x:0:\nnogroup:x:65534:\n")


def _pack(root, image):
    """Write @root as a gzipped newc cpio archive to @image."""
    names = subprocess.run(["find", "."], cwd=root, check=True, text=True,
                           stdout=subprocess.PIPE).stdout
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root,
                          input=names.encode(), stdout=subprocess.PIPE,
                          check=True).stdout
    with gzip.open(image, "wb", compresslevel=1) as f:
        f.write(cpio)


def copy_literal_tree(tree, dest):
    """Copy what "make -C tools/testing/selftests TARGETS=mm/mmbench
    run_tests" reads from the kernel tree @tree (built: the test program
    is there) to @dest, times kept, so that make finds the program up to
    date; return the files copied, relative to @tree."""
    top = tree / LITERAL_TOP
    rels = [str(p.relative_to(tree)) for p in sorted(top.iterdir())
            if p.is_file()] + LITERAL_FILES
    for d in LITERAL_DIRS:
        rels += [str(p.relative_to(tree))
                 for p in sorted((tree / d).rglob("*"))
                 if p.is_file()]
    if LITERAL_PROGRAM not in rels:
        raise Failure(f"{tree / LITERAL_PROGRAM} missing: build the "
                      "kselftest in that tree first")
    for rel in rels:
        if not (tree / rel).exists():
            raise Failure(f"{tree / rel} missing: the literal run_tests "
                          "needs it")
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tree / rel, dest / rel)
    return rels


def make_initramfs(release, ko, kselftest, mode, params, env, results,
                   files=None, literal=None, arch=X86_64, userland=None):
    """Build the guest image in @results: busybox, the kselftest, the module.

    @env: more variables for the test program, name -> value.
    @files: host files to copy in, guest path -> host path.
    @literal: a kernel tree the kselftest was built in: copied in with make,
    and the guest runs the users' literal command in it too.
    @userland: for a guest of another @arch than the host's, its busybox
    and programs with their libraries, [(host path, guest path)], the
    first busybox; the kselftest is then linked statically.  Without it,
    the host's busybox and HOST_PROGRAMS with their libraries.
    """
    root = results / "guest-root"
    if userland:
        _base_root(root, userland[0][0], applets=False)
        for src, dest in userland[1:]:
            (root / dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, root / dest)
            (root / dest).chmod(0o755)
    else:
        _base_root(root)
        for prog in HOST_PROGRAMS:
            _copy_with_libs(prog, root)
    shutil.copytree(kselftest, root / "kselftest", symlinks=True)
    if not userland:
        _copy_with_libs(str(kselftest / "mm/mmbench/mmbench_test"), root,
                        "kselftest/mm/mmbench/mmbench_test")
    moddir = root / "lib/modules" / release
    (moddir / "extra").mkdir(parents=True)
    shutil.copy2(ko, moddir / "extra/test_mmbench.ko")
    for name in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
        (moddir / name).touch()
    run(["depmod", "-b", str(root), release])

    for name in ("init", "negative.sh", "faults.sh", "bench.sh",
                 "fragment.sh", "isolated.sh", "ktap.sh"):
        shutil.copy2(GUEST_FILES / name,
                     root / ("init" if name == "init" else "mmbench/" + name))
    if mode == "test" and not userland:
        # negative.sh's other task, moving a vmstat counter meanwhile.
        run(["gcc", "-static", "-O2", "-Wall", "-Werror", "-o",
             str(root / "mmbench/mlock_writer"),
             str(GUEST_FILES / "mlock_writer.c")])
    if mode == "isolated" and not userland:
        # isolated.sh's real-time task, keeping CPU 1.
        run(["gcc", "-static", "-O2", "-Wall", "-Werror", "-o",
             str(root / "mmbench/rt_hog"), str(GUEST_FILES / "rt_hog.c")])
    for dest, src in (files or {}).items():
        (root / dest.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, root / dest.lstrip("/"))
    if literal:
        for prog in LITERAL_PROGRAMS:
            _copy_with_libs(prog, root)
        copy_literal_tree(literal, root / LITERAL_TREE.lstrip("/"))
    conf = [f"MMBENCH_MODE={shlex.quote(mode)}",
            f"MMBENCH_PORT={shlex.quote(arch.guest_port)}",
            f"export MMBENCH_PARAMS={shlex.quote(params)}"]
    if literal:
        conf.append(f"MMBENCH_LITERAL={LITERAL_TREE}")
    conf += [f"export {name}={shlex.quote(value)}"
             for name, value in env.items()]
    (root / "mmbench/guest.conf").write_text("\n".join(conf) + "\n")
    image = results / "initramfs.cpio.gz"
    _pack(root, image)
    shutil.rmtree(root)
    return image


def _probe_image():
    root = OUT / "guest" / f"probe-root-{os.getpid()}"
    _base_root(root)
    _copy_with_libs("/bin/dash", root)
    (root / "init").write_text(
        "#!/bin/sh\necho MMBENCH-KVM-OK >/dev/ttyS0\nreboot -f\n")
    (root / "init").chmod(0o755)
    image = OUT / "guest" / f"probe-{os.getpid()}.cpio.gz"
    _pack(root, image)
    shutil.rmtree(root)
    return image


def _qemu_version():
    return run(["qemu-system-x86_64", "--version"], capture=True).split("\n")[0]


def kvm_works(kernel, reprobe=False):
    """Boot a tiny guest under KVM with a time limit; cache the answer."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    cache = OUT / "guest" / "kvm-probe.json"
    key = f"{kernel} {_qemu_version()}"
    if cache.exists() and not reprobe:
        data = json.loads(cache.read_text())
        if data.get("key") == key:
            return data["kvm"]
    say(f"probing KVM (at most {KVM_PROBE_SECONDS} s; nested KVM can hang)")
    (OUT / "guest").mkdir(parents=True, exist_ok=True)
    image = _probe_image()
    cmd = ["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host", "-m", "256",
           "-nodefaults", "-display", "none", "-no-reboot",
           "-serial", "stdio", "-kernel", str(kernel), "-initrd", str(image),
           "-append", "console=ttyS0 panic=-1 quiet"]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, text=True,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              timeout=KVM_PROBE_SECONDS, check=False)
        ok = "MMBENCH-KVM-OK" in proc.stdout
    except subprocess.TimeoutExpired:
        ok = False
    image.unlink()
    say("KVM works: using it" if ok else "KVM does not work here: using TCG")
    cache.write_text(json.dumps({"key": key, "kvm": ok}))
    return ok


# The EFLAGS bits an x86 CPU can set (CF, 1, PF, AF, ZF, SF, TF, IF, DF,
# OF, IOPL, NT, RF, VM, AC, VIF, VIP, ID); the others are reserved, 0.
EFLAGS_DEFINED = 0x3F7FD7


def spoilt_why(flags):
    """Why no verdict of a guest whose log, booted twice, still shows
    EFLAGS @flags is the kernel's."""
    return (f"booted twice, the guest's log still shows EFLAGS {flags}, "
            "bits no x86 CPU sets: QEMU's fault (tooling/doc/compare-method.md, "
            "\"Instructions, not time\"), not the kernel's")


def impossible_eflags(d):
    """The first EFLAGS value of an oops or warning in @d/console.log
    with reserved bits set, or None.  No x86 CPU sets them; QEMU 7.2's
    TCG does now and then: each of the 14 guests it killed that were
    kept (13 in icount mode, one debug kernel's without; double faults,
    NULL pointers and list corruption after SLUB's fast path) showed
    them, e.g. 04602002.  A kernel's own oops shows real flags, so its
    death is not taken for the emulator's.  None on arm64, whose oopses
    print no EFLAGS."""
    try:
        text = (d / "console.log").read_text(errors="replace")
    except OSError:
        return None
    for m in re.finditer(r"EFLAGS: ([0-9a-f]{8,16})\b", text):
        if int(m.group(1), 16) & ~EFLAGS_DEFINED:
            return m.group(1)
    return None


# Seconds from QEMU's start without a word from the guest's init after
# which the run says so: a TCG boot takes 10-60 s, a debug kernel's more.
QUIET_SECONDS = 300


def quiet_note(console, cpus, icount):
    """What to say of a guest that has said nothing for QUIET_SECONDS:
    the last line of its kernel console (@console), and under icount on
    several CPUs where Debian's 6.1 kernel stops."""
    try:
        lines = [ln for ln in Path(console).read_text(
            errors="replace").splitlines() if ln.strip()]
    except OSError:
        lines = []
    return (f"the guest has said nothing for {QUIET_SECONDS} s; its "
            "console's last line: "
            + (repr(lines[-1][-120:]) if lines else "none") +
            (f" (under --accel icount, Debian's 6.1 kernel stops at "
             f"'Booting SMP configuration' with {cpus} CPUs: --cpus 1)"
             if icount and cpus > 1 else "") +
            "; it waits until --timeout, or Ctrl-C")


def boot(kernel, initrd, cpus, memory, kvm, console, on_line, timeout,
         arch=X86_64, kernel_args=(), icount=False, nodes=1):
    """Boot the @arch guest; feed each line of its result port to @on_line.

    The kernel console goes to the file @console.  Returns QEMU's exit
    status; raises GuestTimeout when the guest runs past @timeout seconds,
    once every line it printed has gone to @on_line.
    """
    cmd = arch.command(kernel, initrd, cpus, memory, kvm, console,
                       kernel_args, icount, nodes)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    expired = threading.Event()

    def kill():
        expired.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    # A guest silent that long has not booted: say so, while it waits on.
    quiet = threading.Timer(QUIET_SECONDS,
                            lambda: say(quiet_note(console, cpus, icount)))
    if QUIET_SECONDS < timeout:
        quiet.start()
    tail = []
    try:
        for raw in proc.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            if line.strip():
                quiet.cancel()
            tail = (tail + [line])[-20:]
            on_line(line)
            if line.startswith("KVM internal error"):
                proc.kill()
                raise Failure("KVM failed in the guest; try --accel tcg")
        rc = proc.wait()
    finally:
        timer.cancel()
        quiet.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if expired.is_set():
        raise GuestTimeout(timeout)
    if rc:
        raise Failure(f"{arch.qemu} exited with {rc}: "
                      + " / ".join(tail[-3:]))
    return rc


def results_dir(suffix=""):
    """A new folder for a run's results; without @suffix, also "latest"."""
    stamp = time.strftime("%Y%m%d-%H%M%S") + suffix
    d = OUT / "results" / stamp
    try:
        d.mkdir(parents=True, exist_ok=True)
        if not suffix:
            latest = OUT / "results" / "latest"
            if latest.is_symlink() or latest.exists():
                latest.unlink()
            latest.symlink_to(stamp)
    except OSError as e:
        raise Failure(f"MMBENCH_OUT={OUT}: cannot make the results folder "
                      f"{d}: {e.strerror or e}") from e
    return d
