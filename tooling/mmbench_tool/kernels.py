"""Kernels mmbench builds itself: where they are kept, how they are
configured and made.

They are kept outside the clone, in MMBENCH_CACHE (default
/var/cache/mmbench), each under a key made of what it is built from, so
that a fresh clone (CI's) finds what an earlier run on the machine built.
The configuration is "make tinyconfig" with tooling/kernel/guest.config
(what the guest needs) and more fragments merged on top
(scripts/kconfig/merge_config.sh), or a user's own .config.
"""
import hashlib
import os
import re
import subprocess

from .common import REPO, Failure

CACHE = __import__("pathlib").Path(
    os.environ.get("MMBENCH_CACHE", "/var/cache/mmbench")).resolve()
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


def compiler():
    """The first line of gcc --version: part of every build's key."""
    try:
        return subprocess.run(["gcc", "--version"], text=True,
                              stdout=subprocess.PIPE, check=False,
                              stdin=subprocess.DEVNULL
                              ).stdout.split("\n", 1)[0]
    except OSError:
        return "no gcc"


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


def make(src, obj, log, *targets, what="the kernel", env=None):
    """make -C @src O=@obj @targets, its output appended to @log."""
    cmd = ["make", "-C", str(src), f"O={obj}", "ARCH=x86_64",
           f"-j{os.cpu_count() or 1}", *targets]
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f,
                            stderr=subprocess.STDOUT, check=False,
                            env=env).returncode
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
            env=dict(os.environ, ARCH="x86_64")).returncode
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
