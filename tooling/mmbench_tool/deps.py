"""Install, from Debian's packages, what mmbench needs and is missing."""
import os
import re
import subprocess

from .common import Failure, run, say

# package -> why mmbench needs it
PACKAGES = {
    "build-essential": "gcc and make, to build the module and the kselftest",
    "linux-headers-6.12-cloud-amd64":
        "Debian's 6.12 cloud kernel headers, to build the module out of "
        "tree (brings the kernel image the guest boots)",
    "linux-source-6.12":
        "the kernel tree the kselftest is built in, with checkpatch and "
        "the KTAP parser",
    "dwarves": "pahole, for the module's BTF",
    "kmod": "depmod, to install the module in the guest",
    "qemu-system-x86": "the guest machine",
    "busybox-static": "the guest's userspace",
    "cpio": "to pack the guest's initramfs",
    "rsync": "the kselftest install target copies with it",
    "xz-utils": "to unpack linux-source",
    "perl": "checkpatch.pl",
    "git": "the pristine kernel tree the upstream series is committed on "
           "and applied to (git am)",
    "python3": "this tool and kunit.py",
}

# The host's (amd64) packages an arm64 guest needs, name -> reason.
ARM64_HOST_PACKAGES = {
    "qemu-system-arm": "qemu-system-aarch64, the arm64 guest machine",
    "gcc-aarch64-linux-gnu": "the cross compiler of the module and the "
                             "kselftest (aarch64-linux-gnu-gcc-12, which "
                             "Debian's arm64 headers name)",
    "binutils-aarch64-linux-gnu": "aarch64-linux-gnu-readelf, to find the "
                                  "libraries of the guest's programs",
    "libc6-dev-arm64-cross": "glibc for arm64, to link the kselftest "
                             "statically",
}

# only the x86_64 guest needs these; an arm64 guest's kernel and userland
# are Debian's arm64 packages (arm64.py)
X86_64_ONLY = ("linux-headers-6.12-cloud-amd64", "qemu-system-x86",
               "busybox-static")


def packages_for(arch):
    """What a guest of @arch ("x86_64" or "arm64") needs of this host's
    packages, name -> reason."""
    if arch == "x86_64":
        return dict(PACKAGES)
    wanted = {p: why for p, why in PACKAGES.items() if p not in X86_64_ONLY}
    wanted.update(ARM64_HOST_PACKAGES)
    return wanted


# only --debug-kernel needs these: to build a kernel, not only a module
DEBUG_KERNEL_PACKAGES = {
    "flex": "the kernel's Kconfig lexer, to configure the debug kernel",
    "bison": "the kernel's Kconfig parser, to configure the debug kernel",
    "bc": "the debug kernel's build computes timer constants with it",
    "libelf-dev": "objtool, which the debug kernel's build runs",
    "libssl-dev": "the debug kernel's build tools (sign-file, certs)",
}

# only ./mmbench test needs these
TEST_PACKAGES = {
    "sparse": "static checks of the module (make C=2)",
    "python3-ply": "checkpatch.pl's SPDX license check (spdxcheck.py)",
    "flex": "make olddefconfig of the in-tree build",
    "bison": "make olddefconfig of the in-tree build",
    "bc": "make modules_prepare of the in-tree builds (x86_64, i386)",
    "libelf-dev": "objtool, which modules_prepare builds",
    "libssl-dev": "sign-file, which modules_prepare builds",
}

# only ./mmbench export needs these
EXPORT_PACKAGES = {
    "linux-source-6.12": "the tree the series is committed on",
    "xz-utils": "to unpack linux-source",
    "git": "to commit the series and write it with git format-patch",
    "perl": "checkpatch.pl, kernel-doc and get_abi.pl (--check)",
    "python3-ply": "checkpatch.pl's SPDX license check (--check)",
}


def installed(pkg):
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", pkg], text=True,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    return proc.returncode == 0 and "install ok installed" in proc.stdout


def ensure(packages):
    """Install the missing ones of @packages (name -> reason)."""
    missing = [p for p in packages if not installed(p)]
    if not missing:
        return
    for pkg in missing:
        say(f"will install {pkg}: {packages[pkg]}")
    if os.geteuid():
        raise Failure("installing packages needs root: run as root, or "
                      "apt-get install " + " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    say("apt-get update (once)")
    run(["apt-get", "update", "-q"], env=env)
    say(f"apt-get install {' '.join(missing)} (a few minutes on a new "
        "machine)")
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends"] +
        missing, env=env)
    still = [p for p in missing if not installed(p)]
    if still:
        raise Failure("still missing after apt-get: " + " ".join(still))


class Kernel:
    """A Debian kernel that ./mmbench test runs the suite on, installed
    from Debian's packages by name: the newest build in the apt lists of
    the series @pattern matches (a regular expression of the image
    package's name, group 1 the release's sort key)."""

    def __init__(self, name, pattern, why):
        self.name = name
        self.pattern = pattern
        self.why = why

    def newest(self, names):
        """The release of the newest build of the series in @names (the
        package names apt-cache search prints), or None."""
        found = []
        for line in names.splitlines():
            m = re.match(self.pattern + r"(?:\s|$)", line)
            if m:
                found.append((int(m.group(1)), line.split()[0]))
        if not found:
            return None
        return max(found)[1][len("linux-image-"):]

    def release(self):
        """Search the apt lists (once more after apt-get update, if the
        series is not there) for the newest build: its release."""
        for attempt in (1, 2):
            out = run(["apt-cache", "search", "--names-only",
                       self.pattern.replace(r"(\d+)", "[0-9]+") + "$"],
                      capture=True, check=False)
            release = self.newest(out)
            if release or attempt == 2 or os.geteuid():
                break
            say(f"no {self.name} kernel in the apt lists: apt-get update")
            run(["apt-get", "update", "-q"],
                env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        if not release:
            raise Failure(f"no package matching {self.pattern} in the apt "
                          "lists: apt-get update, or check the sources")
        return release

    def packages(self, release):
        """The image and headers packages of @release, name -> reason."""
        return {f"linux-image-{release}": f"the {self.name} kernel ({self.why})",
                f"linux-headers-{release}":
                    f"the {self.name} kernel's headers, to build the module"}


# The kernels ./mmbench test runs the suite on besides the stock 6.12
# cloud kernel.
KERNELS = [
    Kernel("6.1 cloud", r"^linux-image-6\.1\.0-(\d+)-cloud-amd64",
           "Debian 12's default kernel series"),
    Kernel("6.12 rt", r"^linux-image-6\.12\.(\d+)\+deb12-rt-amd64",
           "Debian's 6.12 PREEMPT_RT kernel"),
]
