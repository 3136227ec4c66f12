"""What the unit tests share: the import path of mmbench_tool, a command
run up to its option checks, and a guest run against a fake QEMU."""
import sys
from pathlib import Path

TOOLING = Path(__file__).resolve().parents[1]
REPO = TOOLING.parent
if str(TOOLING) not in sys.path:
    sys.path.insert(0, str(TOOLING))


class Reached(Exception):
    """The command went past its option checks."""


def options_only(*argv):
    """Run ./mmbench @argv up to where it would install packages.

    Returns (exit status, output); the status is None when the options
    were accepted and the command went on.
    """
    import contextlib
    import io
    from unittest import mock

    from mmbench_tool import cli, deps

    out = io.StringIO()
    with mock.patch.object(deps, "ensure", side_effect=Reached), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            rc = cli.main(list(argv))
        except Reached:
            rc = None
        except SystemExit as e:
            # argparse's refusal (usage, exit 2).
            rc = e.code
    return rc, out.getvalue()


class Options:
    """Mixin of a TestCase: ./mmbench run refuses (exit 2, saying what) or
    accepts the options given, before anything is installed or built."""

    def refused(self, *argv, says):
        rc, out = options_only("run", "--accel", "tcg", *argv)
        self.assertEqual(rc, 2, f"{argv} was accepted:\n{out}")
        self.assertIn(says, out)

    def accepted(self, *argv):
        rc, out = options_only("run", "--accel", "tcg", *argv)
        self.assertIsNone(rc, f"{argv} was refused:\n{out}")


def suite_lines(ktap_lines, verdict="ok", end=True):
    """What a guest running the suite prints on its result port, around
    @ktap_lines, the test program's own KTAP."""
    lines = ["MMBENCH-GUEST-BEGIN 6.12-fake cpus=2",
             "# selftests: mm/mmbench: mmbench_test"]
    lines += ["# " + line for line in ktap_lines]
    if end:
        lines += [f"{verdict} 1 selftests: mm/mmbench: mmbench_test",
                  "MMBENCH-SUITE-END rc=0 seconds=1",
                  "MMBENCH-DMESG-BEGIN", "MMBENCH-DMESG-END",
                  "MMBENCH-GUEST-END"]
    return lines


FAKE_QEMU = """#!/bin/sh
# A stand-in for qemu-system-x86_64 and qemu-system-aarch64: the console,
# the result port, then an exit or a wait to be killed.
for arg; do
	case $arg in file:*) console=${arg#file:} ;; esac
done
echo "[    0.000000] Linux version 6.12-fake (console)" >"$console"
echo $$ >>"$(dirname "$0")/pids"
echo "$(basename "$0") $*" >>"$(dirname "$0")/commands"
cat "$(dirname "$0")/console" >>"$console" 2>/dev/null
cat "$(dirname "$0")/lines"
"""


class FakeGuest:
    """Run ./mmbench with the build steps faked and a fake QEMU on PATH
    that prints @lines on the guest's result port, then exits, or with
    @hang waits to be killed.  Each boot prints @lines again, and
    @console on the console."""

    def __init__(self, lines, hang=False, console=()):
        import tempfile

        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        (self.dir / "bin").mkdir()
        for name in ("qemu-system-x86_64", "qemu-system-aarch64"):
            qemu = self.dir / "bin" / name
            qemu.write_text(FAKE_QEMU + ("exec sleep 60\n" if hang else
                                         "exit 0\n"))
            qemu.chmod(0o755)
        (self.dir / "bin" / "lines").write_text("\n".join(lines) + "\n")
        if console:
            (self.dir / "bin" / "console").write_text(
                "\n".join(console) + "\n")
        self.initramfs = []     # the arguments of each make_initramfs
        self.results = []       # each results folder

    def _prepare(self, setup):
        setup.release = "6.12-fake"
        for name in ("kernel", "ko", "kselftest", "tree", "headers"):
            setattr(setup, name, self.dir / name)

    def _make_initramfs(self, *args, **kwargs):
        self.initramfs.append((args, kwargs))
        return self.dir / "initramfs.cpio.gz"

    def _results_dir(self, suffix=""):
        d = self.dir / f"results{len(self.results)}{suffix}"
        d.mkdir()
        self.results.append(d)
        return d

    def run(self, *argv):
        """./mmbench @argv; returns (exit status, output)."""
        import contextlib
        import io
        import os
        from unittest import mock

        from mmbench_tool import cli, common, guest, ktap, setup as setupmod

        out = io.StringIO()
        path = f"{self.dir / 'bin'}:{os.environ['PATH']}"
        with mock.patch.object(setupmod.Setup, "prepare",
                                       lambda setup: self._prepare(setup)), \
                mock.patch.object(guest, "make_initramfs",
                                  self._make_initramfs), \
                mock.patch.object(guest, "results_dir", self._results_dir), \
                mock.patch.object(ktap, "kunit_parse",
                                  return_value=(True, "")), \
                mock.patch.dict(os.environ, {"PATH": path}), \
                mock.patch.object(common.Phase, "timings", []), \
                contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(out):
            rc = cli.main(list(argv))
        return rc, out.getvalue()

    def commands(self):
        """The command line of each fake QEMU started so far."""
        path = self.dir / "bin" / "commands"
        return path.read_text().splitlines() if path.exists() else []

    def pids(self):
        """Process ids of the fake QEMUs started so far."""
        path = self.dir / "bin" / "pids"
        return [int(p) for p in path.read_text().split()] \
            if path.exists() else []

    def close(self):
        self.tmp.cleanup()
