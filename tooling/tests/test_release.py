"""The kernel release read from a headers tree: uname -r, not the package
version that Debian's 6.1 headers put in include/config/kernel.release."""
import argparse
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support  # noqa: F401  (the import path of mmbench_tool)
from mmbench_tool import build, deps, series
from mmbench_tool import setup as setupmod


class Built(Exception):
    """Setup.prepare reached the module build."""


def debian_61_headers(top):
    """A headers tree laid out as linux-headers-6.1.0-57-cloud-amd64's:
    its Makefile prints include/config/kernel.release, which holds the
    package version; UTS_RELEASE holds uname -r."""
    tree = Path(top) / "linux-headers-6.1.0-57-cloud-amd64"
    (tree / "include/config").mkdir(parents=True)
    (tree / "include/generated").mkdir(parents=True)
    (tree / "include/config/kernel.release").write_text("6.1.192\n")
    (tree / "include/generated/utsrelease.h").write_text(
        '#define UTS_RELEASE "6.1.0-57-cloud-amd64"\n')
    (tree / "Makefile").write_text(
        "kernelrelease:\n\t@cat include/config/kernel.release\n")
    (tree / "include/config").mkdir(parents=True, exist_ok=True)
    (tree / "include/config/auto.conf").write_text("")
    return tree


class Release(unittest.TestCase):
    def prepare(self, headers, kernel, release=None):
        """The release Setup.prepare builds the module for."""
        args = argparse.Namespace(
            kernel=kernel, headers=headers, release=release,
            debug_kernel=False, cpus=2, memory=1024, timeout=1800, param=[],
            env=[], ceiling=[], accel="tcg")
        seen = {}

        def build_module(headers, release, checks=False, cross=(),
                         knobs=False):
            seen["release"] = release
            # Two runs at once once built the module in one folder.
            self.assertTrue(hold.called, "the module built without the "
                            "lock of out/")
            raise Built

        with mock.patch.object(deps, "ensure"), \
                mock.patch.object(series, "hold_out") as hold, \
                mock.patch.object(build, "build_module", build_module), \
                mock.patch.object(setupmod, "say"):
            with self.assertRaises(Built):
                setupmod.Setup(args).prepare()
        return seen["release"]

    def test_uname_release_not_package_version(self):
        with tempfile.TemporaryDirectory() as top:
            headers = debian_61_headers(top)
            kernel = Path(top) / "vmlinuz"
            kernel.write_bytes(bytes(0x202) + b"HdrS")
            self.assertEqual(self.prepare(headers, kernel),
                             "6.1.0-57-cloud-amd64")

    def test_release_option_wins(self):
        """Over make's answer; one that is not UTS_RELEASE, where the
        headers have it, is refused (test_env)."""
        with tempfile.TemporaryDirectory() as top:
            headers = debian_61_headers(top)
            (headers / "include/generated/utsrelease.h").unlink()
            kernel = Path(top) / "vmlinuz"
            kernel.write_bytes(bytes(0x202) + b"HdrS")
            self.assertEqual(self.prepare(headers, kernel, "6.1.0-x"),
                             "6.1.0-x")

    def test_without_utsrelease_make_decides(self):
        with tempfile.TemporaryDirectory() as top:
            headers = debian_61_headers(top)
            (headers / "include/generated/utsrelease.h").unlink()
            self.assertEqual(build.kernel_release(headers), "6.1.192")


if __name__ == "__main__":
    unittest.main()
