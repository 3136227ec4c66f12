"""--debug-kernel: refused with another kernel, keyed by its config, and
a .config that lost an option of the fragment is named."""
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import support


class DebugKernel(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def test_not_with_another_kernel(self):
        rc, out = support.options_only(
            "run", "--accel", "tcg", "--debug-kernel",
            "--kernel", "/bin/sh", "--headers", "/")
        self.assertEqual(rc, 2, out)
        self.assertIn("--debug-kernel builds the kernel it boots", out)
        rc, out = support.options_only("run", "--accel", "tcg",
                                       "--debug-kernel")
        self.assertIsNone(rc, out)

    def test_key_follows_the_fragment(self):
        from mmbench_tool import debugkernel
        frag = self.dir / "debug.config"
        frag.write_text("CONFIG_KASAN=y\n")
        with mock.patch.object(debugkernel, "FRAGMENT", frag), \
                mock.patch.object(debugkernel, "_tarball_id",
                                  return_value="tarball 1 2"):
            first = debugkernel.key()
            self.assertEqual(first, debugkernel.key())
            frag.write_text("CONFIG_KASAN=y\nCONFIG_DEBUG_VM=y\n")
            self.assertNotEqual(first, debugkernel.key())

    def test_missed_options_named(self):
        from mmbench_tool import debugkernel
        frag = self.dir / "debug.config"
        frag.write_text("CONFIG_KASAN=y\n# CONFIG_SLUB_TINY is not set\n"
                        "CONFIG_LOCALVERSION=\"-x\"\n")
        config = self.dir / ".config"
        config.write_text("CONFIG_SLUB_TINY=y\nCONFIG_LOCALVERSION=\"-x\"\n")
        with mock.patch.object(debugkernel, "FRAGMENT", frag):
            self.assertEqual(debugkernel._missed(config),
                             ["CONFIG_KASAN=y (got n)",
                              "CONFIG_SLUB_TINY=n (got y)"])


if __name__ == "__main__":
    unittest.main()
