"""Build, once, a small x86_64 debug kernel from Debian's linux-source-6.12.

make tinyconfig, then tooling/kernel/guest.config and
tooling/kernel/debug.config merged on top (kernels.configure()), built out
of a pristine copy of the source with O=<cache>/debug-kernel/<key>, where
<key> hashes the fragments and the source tarball: a second run with the
same ones reuses the kernel, a fresh clone on the same machine too.
The module is then built against that build tree, as against the stock
kernel's headers (--kernel IMAGE --headers DIR).
"""
import shutil
import time

from . import kernels
from .build import tarball_id, unpack_source
from .common import run, say

FRAGMENTS = (kernels.GUEST_CONFIG, kernels.DEBUG_CONFIG)
STAMP = ".mmbench-debug-kernel"
WHERE = kernels.CACHE / "debug-kernel"


def key():
    """Hash of what the kernel is built from: the fragments and the
    source."""
    return kernels.digest(*(f.read_bytes() for f in FRAGMENTS),
                          tarball_id())


# Days a debug kernel of another configuration is kept: the cache is
# the machine's, and another clone (an older checkout) may boot it.
PRUNE_DAYS = 7


def prune(keep):
    """Remove the debug kernels of other configurations (some 350 MB each)
    not built for PRUNE_DAYS: the fragment or the source changed, and
    this clone does not boot them again."""
    for old in sorted(WHERE.glob("*")):
        if old.name in (keep, "src") or not (old / "build.log").exists():
            continue
        if time.time() - (old / "build.log").stat().st_mtime < \
                PRUNE_DAYS * 86400:
            continue
        say(f"removing the debug kernel of an older configuration: {old}")
        shutil.rmtree(old, ignore_errors=True)


def build():
    """Return (bzImage, build tree, release) of the debug kernel."""
    kernels.check_cache()
    with kernels.lock(WHERE, "the debug kernel"):
        return _build()


def _build():
    k = key()
    obj = WHERE / k
    image = obj / "arch/x86/boot/bzImage"
    stamp = obj / STAMP
    if stamp.exists() and image.exists():
        release, took = stamp.read_text().split()
        say(f"debug kernel {release} (config {k}) already built "
            f"(it took {float(took):.0f} s): reusing {obj}")
        return image, obj, release
    prune(k)
    # A pristine copy of the source: O= builds need one clean.
    src = unpack_source(WHERE / "src")
    # A build stopped half-way is taken up where it stopped: make only
    # rebuilds what the (same) configuration has not built yet.
    resumed = obj.exists()
    obj.mkdir(parents=True, exist_ok=True)
    log = obj / "build.log"
    log.write_text("")
    say(f"{'resuming' if resumed else 'building'} the debug kernel (config "
        f"{k}) in {obj}, log in {log}: about 6-10 minutes on 2 cores, once")
    start = time.monotonic()
    kernels.configure(src, obj, log, FRAGMENTS, "the debug kernel")
    kernels.make(src, obj, log, "all", "modules_prepare",
                 what="the debug kernel")
    release = run(["make", "-s", "-C", str(obj), "kernelrelease"],
                  capture=True).strip()
    took = time.monotonic() - start
    stamp.write_text(f"{release} {took:.0f}\n")
    say(f"debug kernel {release} built in {took:.0f} s")
    return image, obj, release
