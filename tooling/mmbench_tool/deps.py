"""Install, from Debian's packages, what mmbench needs and is missing."""
import os
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
    "python3": "this tool and kunit.py",
}

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
