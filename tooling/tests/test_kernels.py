"""The other kernels of ./mmbench test: the newest build of each series
in the apt lists, by name, numerically, and never a -dbg or -unsigned
package."""
import unittest

import support  # noqa: F401  (the import path of mmbench_tool)
from mmbench_tool import deps

CLOUD_61 = deps.KERNELS[0]
RT_612 = deps.KERNELS[1]

SEARCH = """\
linux-image-6.1.0-9-cloud-amd64 - Linux 6.1 for x86-64 cloud (signed)
linux-image-6.1.0-57-cloud-amd64 - Linux 6.1 for x86-64 cloud (signed)
linux-image-6.1.0-58-cloud-amd64-dbg - Debug symbols
linux-image-6.1.0-59-cloud-amd64-unsigned - Linux 6.1 for x86-64 cloud
linux-image-6.1.0-50-cloud-amd64 - Linux 6.1 for x86-64 cloud (signed)
linux-image-6.12.99+deb12-rt-amd64 - Linux 6.12 for 64-bit PCs (signed), PREEMPT_RT
linux-image-6.12.117+deb12-rt-amd64 - Linux 6.12 for 64-bit PCs (signed), PREEMPT_RT
linux-image-6.12.118+deb12-rt-amd64-unsigned - Linux 6.12, PREEMPT_RT
linux-image-6.12.117+deb12-cloud-amd64 - Linux 6.12 for x86-64 cloud (signed)
"""


class Kernels(unittest.TestCase):
    def test_newest_61_cloud(self):
        self.assertEqual(CLOUD_61.newest(SEARCH), "6.1.0-57-cloud-amd64")

    def test_newest_612_rt(self):
        self.assertEqual(RT_612.newest(SEARCH), "6.12.117+deb12-rt-amd64")

    def test_none_in_the_lists(self):
        self.assertIsNone(CLOUD_61.newest("linux-image-6.12-cloud-amd64 - x\n"))

    def test_packages_by_name(self):
        self.assertEqual(sorted(RT_612.packages("6.12.117+deb12-rt-amd64")),
                         ["linux-headers-6.12.117+deb12-rt-amd64",
                          "linux-image-6.12.117+deb12-rt-amd64"])


if __name__ == "__main__":
    unittest.main()


class Make(unittest.TestCase):
    def test_a_long_make_says_it_is_going_on(self):
        # A first build printed nothing for 19 minutes (a new user's).
        import contextlib
        import io
        import tempfile
        from pathlib import Path
        from unittest import mock
        from mmbench_tool import kernels
        with tempfile.TemporaryDirectory() as d:
            src = Path(d)
            (src / "Makefile").write_text(
                "all:\n\t@echo '  CC      mm/slub.o'\n"
                "\t@echo '  CC      mm/page_alloc.o'\n\t@sleep 1\n")
            out = io.StringIO()
            with mock.patch.object(kernels, "HEARTBEAT_S", 0.3), \
                    contextlib.redirect_stdout(out):
                kernels.make(src, src, src / "build.log", "all",
                             what="revision HEAD")
            self.assertIn("revision HEAD: still making, 0 min, 2 files "
                          "compiled so far", out.getvalue())
            (src / "Makefile").write_text("all:\n\t@exit 3\n")
            with self.assertRaises(kernels.Failure) as e, \
                    contextlib.redirect_stdout(io.StringIO()):
                kernels.make(src, src, src / "build.log", "all")
            self.assertIn("'make all' exited with 2", str(e.exception))
