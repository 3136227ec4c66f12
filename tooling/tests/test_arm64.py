"""The arm64 guest (--arch arm64, and in ./mmbench test): which Debian
packages it takes, by name, the make command lines of the cross builds,
the libraries of its userland, and the options refused before anything
is installed."""
import argparse
import contextlib
import io
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support
from mmbench_tool import arch, arm64, build, cli, deps, guest, selftest
from mmbench_tool import setup as setupmod

RELEASE = "6.12.117+deb12-cloud-arm64"

SEARCH = """\
linux-image-6.12-cloud-arm64 - Linux for arm64 cloud (meta-package)
linux-image-6.12.115+deb12-cloud-arm64 - Linux 6.12 for arm64 cloud (signed)
linux-image-6.12.117+deb12-cloud-arm64 - Linux 6.12 for arm64 cloud (signed)
linux-image-6.12.118+deb12-cloud-arm64-unsigned - Linux 6.12 for arm64 cloud
linux-image-6.12.119+deb12-cloud-arm64-dbg - Debug symbols
linux-image-6.12.117+deb12-cloud-amd64 - Linux 6.12 for x86-64 cloud (signed)
"""

# What aarch64-linux-gnu-readelf -d -l says of a dynamic program and of
# the C library.
READELF = """#!/bin/sh
case "$*" in
*libc.so.6*) echo ' 0x1 (NEEDED) Shared library: [ld-linux-aarch64.so.1]' ;;
*ld-linux*) ;;
*-h*static*) echo '  Machine: AArch64' ;;
*-h*dynamic*) echo '  Machine: AArch64'; echo '  INTERP 0x0' ;;
*-h*) echo '  Machine: Advanced Micro Devices X86-64' ;;
*) echo '      [Requesting program interpreter: /lib/ld-linux-aarch64.so.1]'
   echo ' 0x1 (NEEDED) Shared library: [libc.so.6]' ;;
esac
"""


class Packages(unittest.TestCase):
    def test_twin_of_the_x86_release(self):
        self.assertEqual(arm64.release_of("6.12.117+deb12-cloud-amd64"),
                         RELEASE)
        self.assertIsNone(arm64.release_of("6.12.117+deb12-rt-amd64"))
        self.assertIsNone(arm64.release_of(None))

    def test_the_x86_version_when_the_lists_have_it(self):
        self.assertEqual(arm64.choose_release("6.12.115+deb12-cloud-amd64",
                                              SEARCH),
                         "6.12.115+deb12-cloud-arm64")

    def test_else_the_newest_signed_image(self):
        """Never a -dbg or -unsigned package, nor the amd64 one."""
        with mock.patch.object(arm64, "say"):
            self.assertEqual(arm64.choose_release(
                "6.12.120+deb12-cloud-amd64", SEARCH), RELEASE)
        self.assertEqual(arm64.choose_release(None, SEARCH), RELEASE)

    def test_arm64_packages_by_name(self):
        self.assertEqual(sorted(arm64.packages(RELEASE)),
                         ["linux-headers-6.12.117+deb12-cloud-arm64",
                          "linux-image-6.12.117+deb12-cloud-arm64"])

    def test_host_packages_of_the_release(self):
        """The arm64 headers include the common headers from /usr/src and
        run this host's kbuild programs."""
        self.assertEqual(sorted(arm64.host_packages(RELEASE)),
                         ["linux-headers-6.12.117+deb12-common",
                          "linux-kbuild-6.12.117+deb12"])
        with self.assertRaises(cli.Failure):
            arm64.host_packages("6.12.117+deb12-rt-arm64")

    def test_userland_packages(self):
        self.assertEqual(sorted(arm64.USERLAND),
                         ["busybox-static", "coreutils", "dash", "libc6",
                          "util-linux"])

    def test_host_packages_of_an_arm64_guest(self):
        wanted = deps.packages_for("arm64")
        for pkg in ("qemu-system-arm", "gcc-aarch64-linux-gnu",
                    "libc6-dev-arm64-cross", "binutils-aarch64-linux-gnu",
                    "linux-source-6.12", "dwarves", "kmod", "cpio"):
            self.assertIn(pkg, wanted)
        for pkg in ("qemu-system-x86", "busybox-static",
                    "linux-headers-6.12-cloud-amd64"):
            self.assertNotIn(pkg, wanted)
        self.assertEqual(deps.packages_for("x86_64"), deps.PACKAGES)


class Download(unittest.TestCase):
    def test_downloads_arm64_packages_once(self):
        with tempfile.TemporaryDirectory() as tmp:
            dest = Path(tmp)
            calls = []

            def fake_run(cmd, cwd=None, capture=False, **kw):
                calls.append(cmd)
                for name in cmd[3:]:
                    (Path(cwd) / f"{name.split(':')[0]}_1.0_arm64.deb"
                     ).touch()
                return ""
            with mock.patch.object(arm64, "run", fake_run), \
                    mock.patch.object(arm64, "say"):
                debs = arm64._download(["dash", "libc6"], dest)
                again = arm64._download(["dash", "libc6"], dest)
            self.assertEqual(calls, [["apt-get", "download", "-q",
                                      "dash:arm64", "libc6:arm64"]])
            self.assertEqual(debs, again)
            self.assertEqual(debs["dash"].name, "dash_1.0_arm64.deb")

    def test_stale_lists_updated_once(self):
        """A download that fails (lists older than the mirror) is tried
        once more after apt-get update."""
        with tempfile.TemporaryDirectory() as tmp:
            calls = []

            def fake_run(cmd, cwd=None, capture=False, **kw):
                calls.append(cmd[:2])
                if cmd[1] == "download" and len(calls) == 1:
                    raise cli.Failure("apt-get download exited with 100")
                if cmd[1] == "download":
                    (Path(cwd) / "dash_2.0_arm64.deb").touch()
                return ""
            with mock.patch.object(arm64, "run", fake_run), \
                    mock.patch.object(arm64, "say"), \
                    mock.patch.object(arm64.os, "geteuid", return_value=0):
                debs = arm64._download(["dash"], Path(tmp))
        self.assertEqual(calls, [["apt-get", "download"],
                                 ["apt-get", "update"],
                                 ["apt-get", "download"]])
        self.assertEqual(debs["dash"].name, "dash_2.0_arm64.deb")


class CommandLines(unittest.TestCase):
    def test_module_cross_build(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(build, "OUT", Path(tmp)):
            seen = []

            def fake_run(cmd, capture=False, **kw):
                seen.append(cmd)
                (Path(tmp) / "module" / RELEASE / "test_mmbench.ko").touch()
                return ""
            with mock.patch.object(build, "run", fake_run):
                build.build_module(Path("/h"), RELEASE, checks=True,
                                   cross=arm64.MAKE_VARS)
        self.assertEqual(seen[0][:3], ["make", "-C", "/h"])
        for word in ("ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-",
                     "W=1", "C=2", "modules"):
            self.assertIn(word, seen[0])

    def test_kselftest_cross_static_out_of_the_tree(self):
        cmd = build.kselftest_command(Path("/t"), Path("/i"),
                                      arm64.MAKE_VARS, Path("/b"))
        for word in ("TARGETS=mm/mmbench", "ARCH=arm64",
                     "CROSS_COMPILE=aarch64-linux-gnu-", "LDFLAGS=-static",
                     "O=/b", "install", "INSTALL_PATH=/i"):
            self.assertIn(word, cmd)
        native = build.kselftest_command(Path("/t"), Path("/i"))
        self.assertEqual(native, [
            "make", "-C", "/t/tools/testing/selftests", "TARGETS=mm/mmbench",
            "install", "INSTALL_PATH=/i"])


class Userland(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        self.readelf = self.dir / "readelf"
        self.readelf.write_text(READELF)
        self.readelf.chmod(0o755)

    def test_libraries_found_in_the_packages(self):
        root = self.dir / "root"
        (root / "lib/aarch64-linux-gnu").mkdir(parents=True)
        for lib in ("lib/ld-linux-aarch64.so.1",
                    "lib/aarch64-linux-gnu/libc.so.6",
                    "lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"):
            (root / lib).touch()
        (root / "dash").touch()
        self.assertEqual(
            sorted(arm64.needed(root / "dash", root, str(self.readelf))),
            ["lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
             "lib/aarch64-linux-gnu/libc.so.6",
             "lib/ld-linux-aarch64.so.1"])

    def test_a_missing_library_is_an_error(self):
        (self.dir / "dash").touch()
        with self.assertRaises(cli.Failure):
            arm64.needed(self.dir / "dash", self.dir, str(self.readelf))

    def test_kselftest_must_be_static_arm64(self):
        arm64.check_static("static", str(self.readelf))
        for prog in ("dynamic", "x86"):
            with self.assertRaises(cli.Failure):
                arm64.check_static(prog, str(self.readelf))

class Options(support.Options, unittest.TestCase):
    def test_arm64_accepted(self):
        self.accepted("--arch", "arm64")

    def test_no_kvm_for_arm64(self):
        self.refused("--arch", "arm64", "--accel", "kvm",
                     says="an arm64 guest cannot run under KVM")

    def test_an_x86_kernel_for_arm64_refused(self):
        # Booted under qemu-system-aarch64 it printed nothing until
        # --timeout, then "suite FAILED" (a new user's).
        import glob
        images = [i for i in sorted(glob.glob("/boot/vmlinuz-*"))
                  if "arm64" not in i]
        if not images:
            self.skipTest("no x86 kernel image in /boot")
        release = images[0].split("vmlinuz-", 1)[1]
        self.refused("--arch", "arm64", "--kernel", images[0], "--headers",
                     f"/lib/modules/{release}/build",
                     says="not an arm64 Image (no \"ARMd\" at 0x38, nor "
                          "gzip'd), but an x86 bzImage")

    def test_no_debug_kernel_for_arm64(self):
        self.refused("--arch", "arm64", "--debug-kernel",
                     says="--debug-kernel builds an x86_64 kernel")

    def usage_error(self, *argv):
        """argparse's exit status of @argv (2: refused)."""
        rc, out = support.options_only(*argv)
        self.assertIn("usage:", out)
        return rc

    def test_unknown_arch(self):
        self.assertEqual(self.usage_error("run", "--arch", "sparc"), 2)

    def test_test_runs_arm64_itself(self):
        """./mmbench test takes no --arch: its arm64 part is its own."""
        self.assertEqual(self.usage_error("test", "--arch", "arm64"), 2)
        for command in ("bench", "verdicts"):
            rc, out = support.options_only(command, "--accel", "tcg",
                                           "--arch", "arm64")
            self.assertIsNone(rc, out)


class Guest(unittest.TestCase):
    def fake(self):
        fake = support.FakeGuest(support.suite_lines([
            "TAP version 13", "1..2",
            "# kmalloc_64.status=pass",
            "# kmalloc_64.ns_per_op_median=671.145",
            "ok 1 mmbench.kmalloc.run", "ok 2 context.fingerprint"]))
        self.addCleanup(fake.close)
        return fake

    def test_run_boots_qemu_system_aarch64(self):
        fake = self.fake()
        with mock.patch.object(guest, "kvm_works",
                               side_effect=AssertionError("probed KVM")):
            rc, out = fake.run("run", "--arch", "arm64")
        self.assertEqual(rc, 0, out)
        self.assertEqual(len(fake.commands()), 1)
        self.assertTrue(fake.commands()[0].startswith(
            "qemu-system-aarch64 -accel tcg -machine virt -cpu max"))
        self.assertEqual(fake.initramfs[0][1]["arch"], arch.ARM64)


    def in_mmbench_test(self, boot):
        """./mmbench test's arm64 part: its checks, and the QEMUs run."""
        fake = self.fake()
        args = argparse.Namespace(
            kernel=None, headers=None, release=None, debug_kernel=False,
            cpus=2, memory=1024, timeout=1800, param=[], env=[], ceiling=[],
            accel="auto")
        path = f"{fake.dir / 'bin'}:{os.environ['PATH']}"
        with mock.patch.object(guest, "kvm_works",
                               side_effect=AssertionError("probed KVM")), \
                contextlib.redirect_stdout(io.StringIO()), \
                mock.patch.object(setupmod.Setup, "prepare",
                                  lambda s: fake._prepare(s)), \
                mock.patch.object(guest, "make_initramfs",
                                  fake._make_initramfs), \
                mock.patch.object(guest, "results_dir", fake._results_dir), \
                mock.patch.object(selftest.ktap, "kunit_parse",
                                  return_value=(True, "")), \
                mock.patch.dict(os.environ, {"PATH": path}):
            checks = selftest.arm64_guest(args, boot=boot)
        self.assertTrue(all(ok for ok, _, _ in checks), checks)
        self.assertEqual(args.accel, "auto")    # the caller's, untouched
        return [what for _, what, _ in checks], fake.commands()

    def test_in_mmbench_test(self):
        """The builds are checked; the guest boots with --arm64-guest."""
        whats, qemus = self.in_mmbench_test(boot=True)
        self.assertIn("arm64 kernel: module cross-builds with W=1 and sparse "
                      "(C=2) without warnings", whats)
        self.assertIn("arm64 kernel: kselftest cross-builds, linked "
                      "statically, without warnings", whats)
        self.assertIn("arm64 kernel: mmbench_test: 2 passed, 0 failed, "
                      "0 skipped", whats)
        self.assertEqual(len(qemus), 1)
        self.assertTrue(qemus[0].startswith("qemu-system-aarch64 "))

    def test_builds_only_by_default(self):
        whats, qemus = self.in_mmbench_test(boot=False)
        self.assertEqual(len(whats), 2)
        self.assertEqual(qemus, [])

    def test_arm64_guest_option_of_test(self):
        """./mmbench test boots the arm64 guest unless told not to."""
        seen = []
        with mock.patch.object(selftest, "cmd_test",
                               lambda a: seen.append(a.arm64_guest) or 0):
            self.assertEqual(cli.main(["test"]), 0)
            self.assertEqual(cli.main(["test", "--no-arm64-guest"]), 0)
            self.assertEqual(cli.main(["test", "--arm64-guest"]), 0)
        self.assertEqual(seen, [True, False, True])


if __name__ == "__main__":
    unittest.main()
