"""Build, once, a small x86_64 debug kernel from Debian's linux-source-6.12.

make tinyconfig, then tooling/debug-kernel/debug.config merged on top
(scripts/kconfig/merge_config.sh), built out of a pristine copy of the
source with O=out/debug-kernel/<key>, where <key> hashes the fragment and
the source tarball: a second run with the same ones reuses the kernel.
The module is then built against that build tree, as against the stock
kernel's headers (--kernel IMAGE --headers DIR).
"""
import hashlib
import os
import re
import shutil
import subprocess
import time

from .build import tarball_id, unpack_source
from .common import OUT, REPO, Failure, run, say

FRAGMENT = REPO / "tooling" / "debug-kernel" / "debug.config"
STAMP = ".mmbench-debug-kernel"


def key():
    """Hash of what the kernel is built from: the fragment and the source."""
    h = hashlib.sha256()
    h.update(FRAGMENT.read_bytes())
    h.update(tarball_id().encode())
    return h.hexdigest()[:12]


def _wanted(fragment):
    """Options of @fragment: name -> value ("n" for "is not set")."""
    want = {}
    for line in fragment.read_text().splitlines():
        m = re.match(r"(CONFIG_\w+)=(.*)$", line)
        if m:
            want[m.group(1)] = m.group(2)
            continue
        m = re.match(r"# (CONFIG_\w+) is not set$", line)
        if m:
            want[m.group(1)] = "n"
    return want


def _missed(config):
    """Fragment options the final .config does not have as asked."""
    have = _wanted(config)
    return [f"{name}={value} (got {have.get(name, 'n')})"
            for name, value in _wanted(FRAGMENT).items()
            if have.get(name, "n") != value]


def _make(src, obj, log, *targets):
    cmd = ["make", "-C", str(src), f"O={obj}", "ARCH=x86_64",
           f"-j{os.cpu_count() or 1}", *targets]
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f,
                            stderr=subprocess.STDOUT, check=False).returncode
    if rc:
        tail = log.read_text().splitlines()[-30:]
        print("\n".join(tail))
        raise Failure(f"the debug kernel's 'make {' '.join(targets)}' "
                      f"exited with {rc} (log: {log})")


def prune(keep):
    """Remove the debug kernels of other configurations (some 350 MB each):
    the fragment or the source changed, and they are not booted again."""
    for old in sorted((OUT / "debug-kernel").glob("*")):
        if old.name in (keep, "src") or not (old / "build.log").exists():
            continue
        say(f"removing the debug kernel of an older configuration: {old}")
        shutil.rmtree(old, ignore_errors=True)


def build():
    """Return (bzImage, build tree, release) of the debug kernel."""
    k = key()
    obj = OUT / "debug-kernel" / k
    image = obj / "arch/x86/boot/bzImage"
    stamp = obj / STAMP
    if stamp.exists() and image.exists():
        release, took = stamp.read_text().split()
        say(f"debug kernel {release} (config {k}) already built "
            f"(it took {float(took):.0f} s): reusing {obj}")
        return image, obj, release
    prune(k)
    # A pristine copy of the source: O= builds need one clean.
    src = unpack_source(OUT / "debug-kernel" / "src")
    # A build stopped half-way is taken up where it stopped: make only
    # rebuilds what the (same) configuration has not built yet.
    resumed = obj.exists()
    obj.mkdir(parents=True, exist_ok=True)
    log = obj / "build.log"
    log.write_text("")
    say(f"{'resuming' if resumed else 'building'} the debug kernel (config "
        f"{k}) in {obj}, log in {log}: about 6-10 minutes on 2 cores, once")
    start = time.monotonic()
    _make(src, obj, log, "tinyconfig")
    with open(log, "a") as f:
        rc = subprocess.run(
            [str(src / "scripts/kconfig/merge_config.sh"), "-m",
             "-O", str(obj), str(obj / ".config"), str(FRAGMENT)],
            cwd=obj, stdin=subprocess.DEVNULL, stdout=f,
            stderr=subprocess.STDOUT, check=False,
            env=dict(os.environ, ARCH="x86_64")).returncode
    if rc:
        raise Failure(f"merge_config.sh exited with {rc} (log: {log})")
    _make(src, obj, log, "olddefconfig")
    missed = _missed(obj / ".config")
    if missed:
        raise Failure("the debug kernel's .config lacks what "
                      f"{FRAGMENT.relative_to(REPO)} asks: "
                      + ", ".join(missed))
    _make(src, obj, log, "all", "modules_prepare")
    release = run(["make", "-s", "-C", str(obj), "kernelrelease"],
                  capture=True).strip()
    took = time.monotonic() - start
    stamp.write_text(f"{release} {took:.0f}\n")
    say(f"debug kernel {release} built in {took:.0f} s")
    return image, obj, release
