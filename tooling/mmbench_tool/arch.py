"""The guest's architecture: x86_64, the host's, or arm64, cross-built on
this x86_64 host and emulated by QEMU's TCG."""


# Under -icount TCG runs the vCPUs in turn on one host thread, and the
# guest's clocks (TSC, HPET, ...) advance 2^shift ns an instruction:
# shift=0, one nanosecond.  sleep=off: an idle guest's clock jumps to its
# next timer instead of waiting for the host's.
ICOUNT = "shift=0,sleep=off"


class Arch:
    """What booting a guest of one architecture takes.

    @qemu: the QEMU program; @machine: the machine and CPU model for TCG; @console: the kernel console's tty;
    @port: the QEMU options of the guest's result port, and @guest_port
    its device in the guest; @kvm: whether KVM can run it on this host.
    """

    def __init__(self, name, qemu, machine, console, port, guest_port, kvm):
        self.name = name
        self.qemu = qemu
        self.machine = machine
        self.console = console
        self.port = port
        self.guest_port = guest_port
        self.kvm = kvm

    def command(self, kernel, initrd, cpus, memory, kvm, console,
                kernel_args=(), icount=False, nodes=1):
        """The QEMU command line of a guest that writes the kernel console
        to the file @console and its results on stdout; @kernel_args: more
        of the kernel's command line; @icount: under TCG, the guest's
        clocks count its instructions (one a nanosecond) instead of
        following the host's; @nodes: NUMA nodes (numa_args())."""
        if kvm and not self.kvm:
            raise ValueError(f"KVM cannot run an {self.name} guest here")
        if kvm and icount:
            raise ValueError("icount is TCG's: not with KVM")
        if cpus % nodes:
            raise ValueError(f"{nodes} nodes of {cpus} CPUs: a socket each "
                             "of the same share")
        accel = ["-accel", "kvm", "-cpu", "host"] if kvm else \
            ["-accel", "tcg"] + self.machine
        if icount:
            accel += ["-icount", ICOUNT]
        return ([self.qemu] + accel +
                # A node a socket: the kernel warns of a cache shared
                # across nodes (topology_sane()) otherwise.
                ["-smp", str(cpus) + (f",sockets={nodes}" if nodes > 1
                                      else ""), "-m", str(memory),
                 "-nodefaults", "-display", "none", "-no-reboot",
                 "-kernel", str(kernel), "-initrd", str(initrd),
                 "-append", " ".join([f"console={self.console}",
                                     "panic=-1 oops=panic loglevel=5",
                                     *kernel_args]),
                 "-serial", f"file:{console}"] + self.port +
                numa_args(cpus, memory, nodes))


def numa_args(cpus, memory, nodes):
    """QEMU's options of @nodes NUMA nodes (none for one): node N has
    the Nth socket's share of the @cpus CPUs (a multiple of @nodes) and
    of the @memory MiB, the last the rest of it."""
    out = []
    for n in range(nodes if nodes > 1 else 0):
        size = memory // nodes + (memory % nodes if n == nodes - 1 else 0)
        lo, hi = n * cpus // nodes, (n + 1) * cpus // nodes - 1
        out += ["-object", f"memory-backend-ram,id=mem{n},size={size}M",
                "-numa", f"node,nodeid={n},memdev=mem{n},cpus={lo}-{hi}"]
    return out


X86_64 = Arch(
    "x86_64", "qemu-system-x86_64", [], "ttyS0",
    # The second 8250 port, ttyS1 in the guest.
    ["-serial", "stdio"], "/dev/ttyS1", kvm=True)

# QEMU 7.2's virt machine has one PL011 UART (the console): the results
# go through a virtio console, hvc0 in the guest (VIRTIO_CONSOLE and
# VIRTIO_PCI are built into Debian's arm64 kernels).  -cpu max emulates
# the architected pointer authentication algorithm (QARMA5), which makes
# every function return of Debian's kernel (built with PAC) costly under
# TCG: pauth-impdef=on keeps the feature with QEMU's cheaper algorithm
# (boot to /init 10 s instead of 25 s here).
ARM64 = Arch(
    "arm64", "qemu-system-aarch64",
    ["-machine", "virt", "-cpu", "max,pauth-impdef=on"], "ttyAMA0",
    ["-device", "virtio-serial-pci", "-chardev", "stdio,id=mmbench",
     "-device", "virtconsole,chardev=mmbench"], "/dev/hvc0", kvm=False)

ARCHES = {a.name: a for a in (X86_64, ARM64)}


def of(args):
    """The Arch that the options @args ask for (x86_64 without --arch)."""
    return ARCHES[getattr(args, "arch", None) or "x86_64"]
