"""Kernels mmbench builds itself: where they are kept, how they are
configured and made.

They are kept outside the clone, in MMBENCH_CACHE (default
/var/cache/mmbench), each under a key made of what it is built from, so
that a fresh clone (CI's) finds what an earlier run on the machine built.
The configuration is "make tinyconfig" with tooling/kernel/guest.config
(what the guest needs) and more fragments merged on top
(scripts/kconfig/merge_config.sh), or a user's own .config.
"""
import contextlib
import fcntl
import hashlib
import os
import re
import subprocess
import time
from pathlib import Path

from .common import REPO, Failure, say

CACHE = Path(os.environ.get("MMBENCH_CACHE") or "/var/cache/mmbench"
             ).resolve()
KCONFIG = REPO / "tooling" / "kernel"
GUEST_CONFIG = KCONFIG / "guest.config"
DEBUG_CONFIG = KCONFIG / "debug.config"


def digest(*parts):
    """A short hash of @parts (text or bytes)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:12]


# How mmbench makes a kernel: a build made by an older way is not
# reused (raise it when the steps or their targets change).
RECIPE = 2
# make variables of the environment that change what kbuild makes: kept
# out of make's environment (a build is what its key says).
KBUILD_ENV = ("ARCH", "CROSS_COMPILE", "LLVM", "CC", "LD", "KCFLAGS",
              "KCPPFLAGS", "KAFLAGS", "KBUILD_BUILD_USER",
              "KBUILD_BUILD_HOST", "KBUILD_BUILD_TIMESTAMP", "KCONFIG_CONFIG",
              "LOCALVERSION", "O", "W", "C")


def toolchain():
    """The first lines of gcc and ld --version, and RECIPE: part of every
    build's key."""
    out = [f"recipe {RECIPE}"]
    for tool in ("gcc", "ld"):
        try:
            out.append(subprocess.run(
                [tool, "--version"], text=True, stdout=subprocess.PIPE,
                check=False, stdin=subprocess.DEVNULL).stdout.split("\n")[0])
        except OSError:
            out.append(f"no {tool}")
    return "\n".join(out)


def make_env():
    """The environment of make: this one without KBUILD_ENV."""
    return {k: v for k, v in os.environ.items() if k not in KBUILD_ENV}


@contextlib.contextmanager
def lock(folder, what):
    """Hold the lock of @folder (a build folder of the cache) for the
    block: two runs (a user's and CI's clone) share the cache, and one
    must not check out or make in a folder the other builds in."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".mmbench.flock", "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another mmbench run building {what} in "
                f"{folder}")
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


def check_cache():
    """Refuse a cache folder that cannot be made or written, naming
    MMBENCH_CACHE."""
    if os.environ.get("MMBENCH_CACHE") == "":
        raise Failure("MMBENCH_CACHE is empty: name a folder, or unset it "
                      "for /var/cache/mmbench")
    # Kbuild refuses a source or build folder whose path has these.
    if any(c in str(CACHE.resolve()) for c in " :"):
        raise Failure(f"the kernel build cache {CACHE}: the kernel cannot "
                      "be built in a path with a space or a colon "
                      "(MMBENCH_CACHE=DIR names another)")
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise Failure(f"the kernel build cache {CACHE}: {e.strerror or e} "
                      "(MMBENCH_CACHE=DIR names another)") from e
    if not os.access(CACHE, os.W_OK):
        raise Failure(f"the kernel build cache {CACHE} is not writable "
                      "(MMBENCH_CACHE=DIR names another)")


def wanted(text):
    """Options a fragment's @text sets: name -> value ("n" for "is not
    set")."""
    want = {}
    for line in text.splitlines():
        m = re.match(r"(CONFIG_\w+)=(.*)$", line)
        if m:
            want[m.group(1)] = m.group(2)
            continue
        m = re.match(r"# (CONFIG_\w+) is not set$", line)
        if m:
            want[m.group(1)] = "n"
    return want


def missed(config_text, fragments):
    """The options of @fragments (paths) that @config_text (a .config)
    does not have as they ask, as "NAME=want (got have)"."""
    have = wanted(config_text)
    out = []
    for frag in fragments:
        for name, value in wanted(frag.read_text()).items():
            if have.get(name, "n") != value:
                out.append(f"{name}={value} (got {have.get(name, 'n')})")
    return out


# How often a long make says it is still going, in s.
HEARTBEAT_S = 60


def _minutes(began):
    return f"{(time.monotonic() - began) / 60:.0f} min"


def compiled(log, start):
    """How many files Kbuild compiled ("  CC ..." lines) in @log past
    byte @start."""
    with open(log, "rb") as f:
        f.seek(start)
        return sum(1 for line in f if line.startswith(b"  CC "))


def make(src, obj, log, *targets, what="the kernel", env=None):
    """make -C @src O=@obj @targets, its output appended to @log."""
    cmd = ["make", "-C", str(src), f"O={obj}", "ARCH=x86_64",
           f"-j{os.cpu_count() or 1}", *targets]
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        start, began = f.tell(), time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f,
                                stderr=subprocess.STDOUT,
                                env=env or make_env())
        while True:
            try:
                rc = proc.wait(timeout=HEARTBEAT_S)
                break
            except subprocess.TimeoutExpired:
                # A first build takes many minutes: say it is going on.
                say(f"{what}: still making, {_minutes(began)}, "
                    f"{compiled(log, start)} files compiled so far")
            except BaseException:
                proc.kill()
                proc.wait()
                raise
    if rc:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        print("\n".join(tail))
        raise Failure(f"{what}: 'make {' '.join(targets)}' exited with "
                      f"{rc} (log: {log})")


def configure(src, obj, log, fragments, what="the kernel", required=None):
    """Write @obj/.config: tinyconfig with @fragments merged on top, then
    olddefconfig; refuse a result that lost an option of @required (the
    fragments by default)."""
    make(src, obj, log, "tinyconfig", what=what)
    with open(log, "a") as f:
        rc = subprocess.run(
            [str(src / "scripts/kconfig/merge_config.sh"), "-m",
             "-O", str(obj), str(obj / ".config"),
             *map(str, fragments)],
            cwd=obj, stdin=subprocess.DEVNULL, stdout=f,
            stderr=subprocess.STDOUT, check=False,
            env=dict(make_env(), ARCH="x86_64")).returncode
    if rc:
        raise Failure(f"{what}: merge_config.sh exited with {rc} "
                      f"(log: {log})")
    make(src, obj, log, "olddefconfig", what=what)
    check(obj / ".config", fragments if required is None else required,
          what)


def check(config, fragments, what):
    """Refuse a @config (path) without what @fragments ask, naming it."""
    lost = missed(config.read_text(), fragments)
    if lost:
        raise Failure(f"{what}'s .config lacks what "
                      + " and ".join(str(f.relative_to(REPO)) if
                                     f.is_relative_to(REPO) else str(f)
                                     for f in fragments)
                      + " ask: " + ", ".join(lost))
