"""--env MMBENCH_CEILINGS and MMBENCH_PARAMS are taken, checked before
anything is built, and reach the guest; other names stay refused."""
import tempfile
import unittest
from pathlib import Path

import support


class Options(support.Options, unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def file(self, text):
        path = self.dir / "ceilings"
        path.write_text(text)
        return path

    def test_ceilings_file(self):
        self.accepted("--env", "MMBENCH_CEILINGS=" + str(self.file(
            "# mine\nkmalloc 100\nkmalloc_64\t50.5  # a row\n"
            "alloc_pages_order3 9000 90000\t# and emulated\n")))
        self.refused("--env", f"MMBENCH_CEILINGS={self.dir}/none",
                     says=f"--env MMBENCH_CEILINGS={self.dir}/none: cannot "
                          "read it")
        self.refused("--env", f"MMBENCH_CEILINGS={self.dir}",
                     says="cannot read it")
        path = self.file("kmalloc 100\nkmaloc 100\n")
        self.refused("--env", f"MMBENCH_CEILINGS={path}",
                     says=f"{path}:2: no benchmark or row 'kmaloc'")
        for line in ("kmalloc fast\n", "kmalloc 1 2 3\n", "kmalloc\n",
                     "kmalloc 10 fast\n"):
            path = self.file(line)
            self.refused("--env", f"MMBENCH_CEILINGS={path}",
                         says=f"{path}:1: want '<benchmark> <ns> "
                              "[<emulated ns>]'")
        path = self.file("ndelay_50 300\n")
        self.refused("--env", f"MMBENCH_CEILINGS={path}",
                     says="ndelay is a calibration benchmark")
        # A ceiling of 0 fails every row, whatever the kernel (a new
        # user's trial); an empty name was read as ".".
        for line in ("kmalloc 0\n", "kmalloc 10 0.000\n"):
            path = self.file(line)
            self.refused("--env", f"MMBENCH_CEILINGS={path}",
                         says=f"{path}:1: a ceiling of 0 ns")
        self.refused("--env", "MMBENCH_CEILINGS=",
                     says="MMBENCH_CEILINGS=: the value is empty")
        self.refused("--ceiling", "kmalloc_64=0", says="want NS over 0")
        self.refused("--ceiling", "kmalloc_64=0.0", says="want NS over 0")
        self.accepted("--ceiling", "kmalloc_64=0.001")

    def test_params(self):
        self.accepted("--env", "MMBENCH_PARAMS=samples=21 cpu=1",
                      "--param", "sample_us=5000")
        self.refused("--env", "MMBENCH_PARAMS=samples=21",
                     "--param", "samples=5",
                     says="module parameter samples given twice "
                          "(--env MMBENCH_PARAMS samples=21 and --param "
                          "samples=5)")
        self.refused("--param", "samples=5", "--param", "samples=7",
                     says="module parameter samples given twice")
        self.refused("--env", "MMBENCH_PARAMS=benchmarks=kmaloc",
                     says="no benchmark 'kmaloc'")
        self.refused("--env", "MMBENCH_PARAMS=samples", says="NAME=VALUE")

    def test_other_names_and_values(self):
        self.accepted("--env", "MMBENCH_ENFORCE=1")
        # The kselftest reads no such variable any more.
        self.refused("--env", "MMBENCH_DELAY_TOLERANCE=30", says="NAME one of")
        self.refused("--env", "MMBENCH_ENFORCE=00", says="without leading zeros")
        self.refused("--env", "MMBENCH_ENFORCE=yes",
                     says="MMBENCH_ENFORCE takes a whole number")
        self.refused("--env", "MMBENCH_MODULE=/x.ko", says="NAME one of")
        self.refused("--env", "MMBENCH_CEILING_KMALLOC=5",
                     says="(use --ceiling)")
        self.refused("--env", "MMBENCH_ENFORCE=1", "--env",
                     "MMBENCH_ENFORCE=0", says="MMBENCH_ENFORCE given twice")
        self.refused("--env", "MMBENCH_NOISE_LIMIT=15", says="NAME one of")
        self.refused("--env", "MMBENCH_ENFORCE=99999999999999999999",
                     says="from 0 to 999999")
        self.refused("--param", "benchmarks=", says="the value is empty")
        self.refused("--kernel", "/nonexistent", "--headers", "/tmp",
                     says="--kernel /nonexistent: does not exist")
        # Once found only after the packages and the module's build: make
        # kernelrelease failing, or QEMU's "linux kernel too old".
        self.refused("--kernel", "/etc/passwd", "--headers", "/tmp",
                     says="--headers /tmp: not a kernel headers tree (no "
                          "Makefile)")
        with tempfile.TemporaryDirectory() as headers:
            (Path(headers) / "Makefile").write_text("")
            # Debian's linux-headers-*-common: a make error of 11 lines,
            # once found after the packages.
            self.refused("--kernel", "/etc/passwd", "--headers", headers,
                         says=f"--headers {headers}: not a build tree a "
                              "module can be built in (no include/config/auto.conf")
            (Path(headers) / "include/config").mkdir(parents=True, exist_ok=True)
            (Path(headers) / "include/config/auto.conf").write_text("")
            self.refused("--kernel", "/etc/passwd", "--headers", headers,
                         says="--kernel /etc/passwd: not an x86 bzImage "
                              "(no \"HdrS\" boot header)")
            self.refused("--kernel", headers, "--headers", headers,
                         says=f"--kernel {headers}: Is a directory")

    def test_accel_kvm_without_kvm(self):
        """Refused before the build, not after it with QEMU's words (a new
        user's trial)."""
        from unittest import mock

        from mmbench_tool import options
        with mock.patch.object(options, "KVM_DEVICE", "/nonexistent/kvm"):
            self.refused("--accel", "kvm", says="--accel kvm: "
                         "/nonexistent/kvm is absent on this machine")
        with tempfile.NamedTemporaryFile() as f, \
                mock.patch.object(options, "KVM_DEVICE", f.name):
            self.accepted("--accel", "kvm")

    def test_release(self):
        """--release names folders (the guest's, out/'s): a release as
        uname -r prints it, and the one the headers and the kernel image
        are of, or refused before anything is built (a new user's trial
        built into /tmp/etc with --release ../../../etc)."""
        with tempfile.TemporaryDirectory() as d:
            headers = Path(d) / "headers"
            (headers / "include/generated").mkdir(parents=True)
            (headers / "Makefile").write_text("")
            (headers / "include/config").mkdir(parents=True, exist_ok=True)
            (headers / "include/config/auto.conf").write_text("")
            (headers / "include/generated/utsrelease.h").write_text(
                '#define UTS_RELEASE "6.12.9-test"\n')

            def image(release):
                # The setup header: "HdrS" at 0x202, kernel_version at
                # 0x20e pointing 0x200 before the version string.
                b = bytearray(0x1000)
                b[0x202:0x206] = b"HdrS"
                b[0x206:0x208] = (0x20f).to_bytes(2, "little")
                b[0x20e:0x210] = (0x600).to_bytes(2, "little")
                text = f"{release} (me@example.org) #1 SMP".encode()
                b[0x800:0x800 + len(text)] = text
                path = Path(d) / f"vmlinuz-{release}"
                path.write_bytes(bytes(b))
                return str(path)
            ok = image("6.12.9-test")
            for release in ("../../../etc", "/etc", "", "a b", "x" * 65):
                self.refused("--kernel", ok, "--headers", str(headers),
                             "--release", release,
                             says=f"--release {release!r}: not a kernel "
                                  "release (uname -r)")
            self.refused("--release", "", says="--release goes with")
            self.refused("--kernel", ok, "--headers", str(headers),
                         "--release", "6.1.0-57-cloud-amd64",
                         says="--headers " + str(headers) + " are of "
                              "6.12.9-test (UTS_RELEASE)")
            self.refused("--kernel", image("6.1.0-57-cloud-amd64"),
                         "--headers", str(headers),
                         says="is 6.1.0-57-cloud-amd64, but --headers "
                              f"{headers} are of 6.12.9-test: the module "
                              "would not load in it")
            self.accepted("--kernel", ok, "--headers", str(headers))
            self.accepted("--kernel", ok, "--headers", str(headers),
                          "--release", "6.12.9-test")
            # RHEL's have "_"; an image of boot protocol 1 names none.
            from mmbench_tool import options
            self.assertTrue(options._RELEASE.fullmatch(
                "6.12.0-55.9.1.el10_0.x86_64"))
            old = Path(image("6.1.0-57-cloud-amd64"))
            b = bytearray(old.read_bytes())
            b[0x206:0x208] = (0x105).to_bytes(2, "little")
            old.write_bytes(bytes(b))
            self.assertIsNone(options._bzimage_release(old))
            self.assertIsNone(options._bzimage_release("/etc/hostname"))
            rc, out = support.options_only(
                "measure", "--b-kernel", image("6.1.0-57-cloud-amd64"),
                "--b-headers", str(headers))
            self.assertEqual(rc, 2, out)
            self.assertIn("--b-kernel ", out)
            self.assertIn("but --b-headers", out)


class Guest(unittest.TestCase):
    def test_reach_the_guest(self):
        """The file is copied in and the variable points at the copy; the
        parameters of --env and --param go together."""
        fake = support.FakeGuest(support.suite_lines(
            ["TAP version 13", "1..1", "# kmalloc_64.status=pass",
             "# kmalloc_64.ns_per_op_median=171.763",
             "ok 1 mmbench.kmalloc.run"]))
        self.addCleanup(fake.close)
        ceilings = fake.dir / "mine"
        ceilings.write_text("kmalloc 100\n")
        rc, out = fake.run("run", "--accel", "tcg",
                           "--env", f"MMBENCH_CEILINGS={ceilings}",
                           "--env", "MMBENCH_PARAMS=samples=3 cpu=1",
                           "--param", "benchmarks=kmalloc",
                           "--env", "MMBENCH_ENFORCE=1")
        self.assertEqual(rc, 0, out)
        (args, kwargs), = fake.initramfs
        params, env = args[4], args[5]
        files = args[7] if len(args) > 7 else kwargs.get("files")
        self.assertEqual(params, "samples=3 cpu=1 benchmarks=kmalloc")
        self.assertEqual(env, {"MMBENCH_CEILINGS": "/mmbench/ceilings",
                               "MMBENCH_ENFORCE": "1"})
        self.assertEqual(files, {"/mmbench/ceilings": ceilings})


class HostTestPackages(unittest.TestCase):
    def test_what_the_unit_tests_run_is_installed_first(self):
        # ./mmbench test runs the unit tests before the guest's packages
        # come: on a fresh machine test_arch's initramfs had no cpio.
        from unittest import mock

        from mmbench_tool import cli, deps, selftest

        class Stop(Exception):
            pass
        wanted = []
        with mock.patch.object(deps, "ensure",
                               side_effect=lambda p: wanted.extend(p)), \
                mock.patch.object(selftest, "host_tests", side_effect=Stop), \
                mock.patch.object(selftest, "say"):
            with self.assertRaises(Stop):
                cli.main(["test", "--accel", "tcg"])
        for tool in ("cpio", "python3-scipy", "python3-matplotlib"):
            self.assertIn(tool, wanted)


if __name__ == "__main__":
    unittest.main()


class VcpusNote(unittest.TestCase):
    def test_said_only_past_the_hosts_cpus(self):
        from mmbench_tool import options
        self.assertIsNone(options.vcpus_note(2, host=2))
        self.assertIsNone(options.vcpus_note(1, host=64))
        note = options.vcpus_note(4, host=2)
        self.assertIn("the guest has 4 vCPUs, this host 2 CPUs", note)
        self.assertIn("rows on several CPUs", note)
