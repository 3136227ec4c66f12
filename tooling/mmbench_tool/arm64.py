"""The arm64 guest: Debian's 6.12 cloud-arm64 kernel and an arm64 userland,
from Debian's arm64 packages unpacked with dpkg -x (never installed: this
host is x86_64), the module and the kselftest cross-built for them."""
import os
import re
import shutil
import subprocess
from pathlib import Path

from . import deps
from .common import OUT, Failure, run, say

CROSS_COMPILE = "aarch64-linux-gnu-"
# Make variables of a cross build for arm64.
MAKE_VARS = ["ARCH=arm64", f"CROSS_COMPILE={CROSS_COMPILE}"]

# The host's (amd64) packages an arm64 guest needs, name -> reason.
HOST_PACKAGES = deps.ARM64_HOST_PACKAGES

# Debian's arm64 packages unpacked for the guest's userland: package ->
# [(path in the package, path in the guest)], and why.
USERLAND = {
    "busybox-static": ([("bin/busybox", "bin/busybox")],
                       "the guest's userspace"),
    "dash": ([("bin/dash", "bin/dash")],
             "/bin/sh, as on Debian: runner.sh's \"(((((\" pipeline is "
             "arithmetic to busybox sh"),
    "coreutils": ([("usr/bin/timeout", "usr/bin/timeout")],
                  "timeout --foreground, which runner.sh calls and "
                  "busybox's timeout lacks"),
    "util-linux": ([("usr/bin/chrt", "usr/bin/chrt")],
                   "chrt, as in the x86_64 guest"),
    "libc6": ([], "the C library of dash, timeout and chrt"),
}

# linux-image-<release> is the signed image; -unsigned and -dbg are other
# packages of the same release, never the one booted.
IMAGE_SERIES = deps.Kernel(
    "6.12 cloud arm64", r"^linux-image-6\.12\.(\d+)\+deb12-cloud-arm64",
    "Debian's 6.12 cloud kernel for arm64")


def release_of(x86_release):
    """The arm64 twin of an x86_64 cloud release: 6.12.117+deb12-cloud-amd64
    -> 6.12.117+deb12-cloud-arm64; None for a release of another flavour."""
    if not x86_release or not x86_release.endswith("-cloud-amd64"):
        return None
    return x86_release[:-len("amd64")] + "arm64"


def version_of(release):
    """The version part of a release, which names the kernel's kbuild and
    common headers packages: 6.12.117+deb12-cloud-arm64 -> 6.12.117+deb12."""
    m = re.fullmatch(r"(\d+\.\d+\.\d+\+deb\d+)-cloud-arm64", release)
    if not m:
        raise Failure(f"{release}: not a release of Debian's cloud-arm64 "
                      "kernel (6.12.N+debN-cloud-arm64)")
    return m.group(1)


def packages(release):
    """The arm64 packages of @release that are downloaded and unpacked,
    name -> reason."""
    return {f"linux-image-{release}": "the arm64 kernel the guest boots",
            f"linux-headers-{release}":
                "its config, Module.symvers and arch headers, to cross-build "
                "the module"}


def host_packages(release):
    """The host's packages of @release's build tree, name -> reason: the
    arm64 headers include the common headers by their absolute path, and
    their scripts/ are the host's kbuild programs (modpost, fixdep)."""
    version = version_of(release)
    return {f"linux-headers-{version}-common":
                "the arch-independent headers of the arm64 kernel (its "
                "Makefile includes them from /usr/src)",
            f"linux-kbuild-{version}":
                "the kernel's build programs for this host (modpost, "
                "fixdep), which the arm64 headers' scripts/ point at"}


def foreign_arch_enabled():
    out = run(["dpkg", "--print-foreign-architectures"], capture=True,
              check=False)
    return "arm64" in out.split()


def enable_foreign_arch():
    """dpkg --add-architecture arm64 and apt-get update, once: apt-get
    download of arm64 packages needs their lists."""
    if foreign_arch_enabled():
        return
    say("will add the arm64 architecture to dpkg (dpkg --add-architecture "
        "arm64, then apt-get update): the arm64 guest's kernel and userland "
        "are Debian's arm64 packages, downloaded and unpacked, not "
        "installed")
    if os.geteuid():
        raise Failure("adding a dpkg architecture needs root: run as root, "
                      "or dpkg --add-architecture arm64 && apt-get update")
    run(["dpkg", "--add-architecture", "arm64"])
    run(["apt-get", "update", "-q"],
        env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def in_lists(package):
    """Whether apt knows the arm64 package @package."""
    proc = subprocess.run(["apt-cache", "show", "--no-all-versions",
                           f"{package}:arm64"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False)
    return proc.returncode == 0


def choose_release(x86_release, searched=None):
    """The release the arm64 guest boots: the twin of the x86_64 guest's
    (@x86_release) when the lists have it, else the newest 6.12 cloud-arm64
    kernel in them.  @searched: what apt-cache search prints (for tests);
    by default it is run."""
    twin = release_of(x86_release)
    if twin and (in_lists(f"linux-image-{twin}") if searched is None else
                 re.search(rf"^linux-image-{re.escape(twin)}\s", searched,
                           re.M)):
        return twin
    release = IMAGE_SERIES.newest(searched) if searched is not None else \
        IMAGE_SERIES.release()
    if not release:
        raise Failure("no linux-image-6.12.*-cloud-arm64 in the apt lists")
    if twin:
        say(f"no {twin} in the apt lists: the arm64 guest boots {release}")
    return release


def _download(names, dest):
    """apt-get download the arm64 packages @names into @dest (skipping the
    ones there); return {name: .deb path}."""
    dest.mkdir(parents=True, exist_ok=True)
    debs = {}
    missing = []
    for name in names:
        found = sorted(dest.glob(f"{name}_*_arm64.deb"))
        if found:
            debs[name] = found[-1]
        else:
            missing.append(name)
    if missing:
        say("apt-get download (arm64): " + " ".join(missing))
        cmd = ["apt-get", "download", "-q"] + [f"{n}:arm64" for n in missing]
        try:
            run(cmd, cwd=dest, capture=True)
        except Failure:
            # Lists older than the mirror name files it no longer has.
            if os.geteuid():
                raise
            say("apt-get download failed: apt-get update, then once more")
            run(["apt-get", "update", "-q"],
                env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
            run(cmd, cwd=dest, capture=True)
        for name in missing:
            found = sorted(dest.glob(f"{name}_*_arm64.deb"))
            if not found:
                raise Failure(f"apt-get download {name}:arm64 left no .deb "
                              f"in {dest}")
            debs[name] = found[-1]
    return debs


def _unpack(debs, root):
    """dpkg -x each of @debs into @root, anew unless a stamp says these
    very files are there."""
    stamp = root / ".mmbench-unpacked"
    want = "\n".join(sorted(d.name for d in debs)) + "\n"
    if stamp.exists() and stamp.read_text() == want:
        return root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for deb in debs:
        run(["dpkg", "-x", str(deb), str(root)])
    stamp.write_text(want)
    return root


class Kernel:
    """Debian's cloud-arm64 kernel @release, unpacked under OUT/arm64:
    .image (vmlinuz), .headers (a build tree the module can be built in
    from this host) and .release."""

    def __init__(self, release, top=None):
        self.release = release
        self.top = top or OUT / "arm64" / release
        self.root = self.top / "root"
        self.image = self.root / "boot" / f"vmlinuz-{release}"
        self.headers = self.root / "usr/src" / f"linux-headers-{release}"

    def fetch(self):
        debs = _download(packages(self.release), self.top / "debs")
        _unpack(debs.values(), self.root)
        # The headers' scripts and tools are symbolic links to
        # ../../lib/linux-kbuild-<version>: this host's kbuild package.
        kbuild = f"linux-kbuild-{version_of(self.release)}"
        link = self.root / "usr/lib" / kbuild
        if not link.is_symlink():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(Path("/usr/lib") / kbuild)
        for p in (self.image, self.headers / "Makefile",
                  self.headers / "scripts/mod/modpost"):
            if not p.exists():
                raise Failure(f"{p} missing after unpacking "
                              + ", ".join(d.name for d in debs.values()))
        return self


class Userland:
    """An arm64 busybox, dash, timeout and chrt from Debian's arm64
    packages, with the libraries they need; .files: [(host path, guest
    path)]."""

    def __init__(self, top=None):
        self.top = top or OUT / "arm64" / "userland"
        self.root = self.top / "root"
        self.files = []

    def fetch(self):
        debs = _download(USERLAND, self.top / "debs")
        _unpack(debs.values(), self.root)
        files = [(self.root / src, dest)
                 for paths, _ in USERLAND.values() for src, dest in paths]
        libs = set()
        for src, dest in files:
            if dest != "bin/busybox":       # static
                libs.update(needed(src, self.root))
        self.files = files + [(self.root / lib, lib) for lib in sorted(libs)]
        for host, _ in self.files:
            if not host.exists():
                raise Failure(f"{host} missing after unpacking the arm64 "
                              "userland packages")
        return self


def needed(prog, root, readelf=CROSS_COMPILE + "readelf"):
    """The libraries, paths relative to @root, that the arm64 program @prog
    needs (its interpreter first), found in @root's lib/aarch64-linux-gnu;
    a library's own needs are followed."""
    found = []
    todo = [prog]
    seen = set()
    while todo:
        elf = todo.pop()
        out = run([readelf, "-d", "-l", "-W", str(elf)], capture=True)
        interp = re.findall(r"\[Requesting program interpreter: (\S+)\]",
                            out)
        for name in interp + re.findall(r"\(NEEDED\)\s+Shared library: "
                                        r"\[([^\]]+)\]", out):
            rel = name.lstrip("/") if name.startswith("/") else \
                f"lib/aarch64-linux-gnu/{name}"
            if rel in seen:
                continue
            seen.add(rel)
            if not (root / rel).exists():
                raise Failure(f"{elf} needs {name}, not in {root}")
            found.append(rel)
            todo.append(root / rel)
    return found


def check_static(prog, readelf=CROSS_COMPILE + "readelf"):
    """Refuse @prog unless it is an arm64 program linked statically: the
    guest has no C library for it."""
    out = run([readelf, "-h", "-l", "-W", str(prog)], capture=True)
    if not re.search(r"Machine:\s+AArch64", out):
        raise Failure(f"{prog} is not an arm64 program")
    if "INTERP" in out:
        raise Failure(f"{prog} is linked dynamically: the arm64 guest "
                      "needs it static (LDFLAGS=-static)")
