"""isolated.sh's stall of the kernel needs lib/test_lockup.c built for the
guest's kernel: a failed build stops the isolated section on Debian's
kernels, and only skips its case on a kernel of one's own (--kernel)."""
import types
import unittest
from unittest import mock

import support  # noqa: F401  (the import path of mmbench_tool)
from mmbench_tool import selftest
from mmbench_tool.common import Failure


class Booted(Exception):
    """What the fake boot was given, instead of booting."""


def fake_setup(kernel):
    def boot(mode, results, **kw):
        raise Booted(kw.get("files"))
    return types.SimpleNamespace(
        args=types.SimpleNamespace(kernel=kernel), userland=None,
        headers="/nonexistent", release="6.99.0-test", cross=[], boot=boot)


def no_build(*args, **kwargs):
    raise Failure("make exited with 2")


class Lockup(unittest.TestCase):
    def setUp(self):
        patches = [mock.patch.object(selftest.build, "build_lockup", no_build),
                   mock.patch.object(selftest.guest, "results_dir",
                                     lambda suffix: "/nonexistent"),
                   mock.patch.object(selftest, "say", lambda *a, **k: None)]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)

    def test_debian_kernel_stops_on_a_failed_build(self):
        with self.assertRaisesRegex(Failure, "make exited with 2"):
            selftest.isolated_cpu_guest(fake_setup(kernel=None))

    def test_own_kernel_boots_without_it(self):
        with self.assertRaises(Booted) as booted:
            selftest.isolated_cpu_guest(fake_setup(kernel="/boot/vmlinuz-own"))
        self.assertEqual(booted.exception.args[0], {})


if __name__ == "__main__":
    unittest.main()
