"""The guest's architecture: QEMU's command line and the result port of an
x86_64 and of an arm64 guest, and the initramfs of a userland that does
not run on this host."""
import gzip
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support
from mmbench_tool import arch, guest

RELEASE = "6.12.117+deb12-cloud-arm64"


class CommandLines(unittest.TestCase):
    def test_x86_64_unchanged(self):
        self.assertEqual(
            arch.X86_64.command("K", "I", 2, 1024, False, "C"),
            ["qemu-system-x86_64", "-accel", "tcg", "-smp", "2", "-m",
             "1024", "-nodefaults", "-display", "none", "-no-reboot",
             "-kernel", "K", "-initrd", "I", "-append",
             "console=ttyS0 panic=-1 oops=panic loglevel=5",
             "-serial", "file:C", "-serial", "stdio"])
        self.assertEqual(
            arch.X86_64.command("K", "I", 2, 1024, True, "C")[:5],
            ["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host"])

    def test_numa_nodes(self):
        cmd = arch.X86_64.command("K", "I", 2, 1024, False, "C", nodes=2)
        self.assertEqual(cmd[cmd.index("-object"):], [
            "-object", "memory-backend-ram,id=mem0,size=512M",
            "-numa", "node,nodeid=0,memdev=mem0,cpus=0-0",
            "-object", "memory-backend-ram,id=mem1,size=512M",
            "-numa", "node,nodeid=1,memdev=mem1,cpus=1-1"])
        # A socket a node: the kernel warned of an LLC shared across
        # nodes at boot; the rest of the memory to the last node.
        self.assertEqual(cmd[cmd.index("-smp") + 1], "2,sockets=2")
        self.assertEqual(arch.numa_args(6, 1000, 3), [
            "-object", "memory-backend-ram,id=mem0,size=333M",
            "-numa", "node,nodeid=0,memdev=mem0,cpus=0-1",
            "-object", "memory-backend-ram,id=mem1,size=333M",
            "-numa", "node,nodeid=1,memdev=mem1,cpus=2-3",
            "-object", "memory-backend-ram,id=mem2,size=334M",
            "-numa", "node,nodeid=2,memdev=mem2,cpus=4-5"])
        self.assertEqual(arch.numa_args(4, 1024, 1), [])
        # QEMU refuses sockets that do not divide the CPUs.
        with self.assertRaisesRegex(ValueError, "2 nodes of 3 CPUs"):
            arch.X86_64.command("K", "I", 3, 1024, False, "C", nodes=2)
        self.assertNotIn("-numa", arch.ARM64.command("K", "I", 2, 1024,
                                                     False, "C"))
        for argv, says in ((["--nodes", "0"], "--nodes 0: want 1 to 8"),
                           (["--nodes", "9"], "--nodes 9: want 1 to 8"),
                           (["--nodes", "4", "--cpus", "4", "--memory", "500"],
                            "--memory 500 gives it 125: give --memory 512"),
                           # The cause, and what would do (it said "want 1
                           # to 8" of 2 nodes on 3 CPUs).
                           (["--nodes", "2", "--cpus", "3"],
                            "--cpus 3 does not divide by 2: give --cpus 2 "
                            "or 4"),
                           (["--nodes", "4"], "give --cpus 4")):
            rc, out = support.options_only("run", "--accel", "tcg", *argv)
            self.assertEqual(rc, 2, out)
            self.assertIn(says, out)
        rc, out = support.options_only("run", "--accel", "tcg", "--nodes",
                                       "2")
        self.assertIsNone(rc, out)

    def test_more_of_the_kernel_command_line(self):
        cmd = arch.X86_64.command("K", "I", 2, 1024, False, "C",
                                  ["nokaslr"])
        self.assertEqual(cmd[cmd.index("-append") + 1],
                         "console=ttyS0 panic=-1 oops=panic loglevel=5 "
                         "nokaslr")
        cmd = arch.ARM64.command("K", "I", 2, 1024, False, "C", ["nokaslr"])
        self.assertIn("console=ttyAMA0 panic=-1 oops=panic loglevel=5 "
                      "nokaslr", cmd)

    def test_icount(self):
        # TCG whose guest clocks count instructions, one a nanosecond.
        cmd = arch.X86_64.command("K", "I", 2, 1024, False, "C", (), True)
        self.assertEqual(cmd[:5], ["qemu-system-x86_64", "-accel", "tcg",
                                   "-icount", "shift=0,sleep=off"])
        self.assertNotIn("-icount", arch.X86_64.command("K", "I", 2, 1024,
                                                        False, "C"))
        with self.assertRaises(ValueError):
            arch.X86_64.command("K", "I", 2, 1024, True, "C", (), True)

    def test_arm64_virt_tcg(self):
        cmd = arch.ARM64.command("K", "I", 2, 1024, False, "C")
        self.assertEqual(cmd[:7], ["qemu-system-aarch64", "-accel", "tcg",
                                   "-machine", "virt", "-cpu",
                                   "max,pauth-impdef=on"])
        self.assertIn("console=ttyAMA0 panic=-1 oops=panic loglevel=5", cmd)
        # The console on the PL011, the results on a virtio console.
        self.assertEqual(cmd[cmd.index("-serial") + 1], "file:C")
        self.assertEqual(cmd.count("-serial"), 1)
        self.assertIn("virtconsole,chardev=mmbench", cmd)
        self.assertIn("stdio,id=mmbench", cmd)
        self.assertEqual(arch.ARM64.guest_port, "/dev/hvc0")
        with self.assertRaises(ValueError):
            arch.ARM64.command("K", "I", 2, 1024, True, "C")


class Initramfs(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def test_initramfs_of_an_arm64_userland(self):
        """The arm64 busybox is not run here (no applet list: /init makes
        the links), no ldd, and the guest writes its results to hvc0."""
        for name in ("busybox", "dash", "libc.so.6", "ko"):
            (self.dir / name).write_text(name)
        kselftest = self.dir / "kselftest"
        (kselftest / "mm/mmbench").mkdir(parents=True)
        (kselftest / "mm/mmbench/mmbench_test").write_text("static")
        results = self.dir / "results"
        results.mkdir()
        ran = []

        def fake_run(cmd, **kw):
            ran.append(cmd)
            return ""
        with mock.patch.object(guest, "run", fake_run):
            image = guest.make_initramfs(
                RELEASE, self.dir / "ko", kselftest, "run", "", {}, results,
                arch=arch.ARM64,
                userland=[(self.dir / "busybox", "bin/busybox"),
                          (self.dir / "dash", "bin/dash"),
                          (self.dir / "libc.so.6",
                           "lib/aarch64-linux-gnu/libc.so.6")])
        self.assertEqual([c[0] for c in ran], ["depmod"])
        listing = subprocess.run(["cpio", "-it", "--quiet"],
                                 input=gzip.decompress(image.read_bytes()),
                                 stdout=subprocess.PIPE, check=True).stdout
        names = listing.decode().split()
        for name in ("bin/busybox", "bin/dash", "bin/sh",
                     "lib/aarch64-linux-gnu/libc.so.6", "init",
                     f"lib/modules/{RELEASE}/extra/test_mmbench.ko",
                     "kselftest/mm/mmbench/mmbench_test",
                     "mmbench/guest.conf"):
            self.assertIn(name, names)
        self.assertNotIn("bin/mount", names)
        out = subprocess.run(["sh", "-c", "cpio -i --quiet --to-stdout "
                              "mmbench/guest.conf"],
                             input=gzip.decompress(image.read_bytes()),
                             stdout=subprocess.PIPE, check=True).stdout
        self.assertIn("MMBENCH_PORT=/dev/hvc0", out.decode())

    def test_init_writes_to_the_port_of_guest_conf(self):
        init = (support.REPO / "tooling/guest/init").read_text()
        conf = init.index(". /mmbench/guest.conf")
        port = init.index('exec >"${MMBENCH_PORT:-/dev/ttyS1}" 2>&1')
        self.assertLess(conf, port)
        self.assertLess(init.index("/bin/busybox --install -s"),
                        init.index("mount -t proc"))


if __name__ == "__main__":
    unittest.main()
