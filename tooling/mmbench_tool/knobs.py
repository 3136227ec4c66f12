"""The module's test-only knobs: tooling/kernel/patches/test_mmbench-knobs.patch.

lib/test_mmbench.c is the lean module that goes upstream; the knobs the
project's own checks need (slow_into, inject_stall_ms, make_it_fail,
break_check) are a patch on top of it that never does.  The guests'
module is built with the patch applied only when a run needs a knob:
./mmbench test (negative.sh, faults.sh, its compare checks), or a knob
given as a module parameter (measure --b-param slow_into=...).  Plain
runs load the module as it goes upstream.
"""
import functools
import os
import subprocess
import tempfile
from pathlib import Path

from .common import REPO, Failure

MODULE_SOURCE = REPO / "lib" / "test_mmbench.c"
PATCH = REPO / "tooling" / "kernel" / "patches" / "test_mmbench-knobs.patch"


def _rel(path):
    try:
        return path.relative_to(REPO)
    except ValueError:
        return path


def patched_text(source=MODULE_SOURCE, patch=PATCH):
    """The text of @source with @patch applied by git apply (no fuzz);
    Failure, saying what git apply said, if it does not apply."""
    return _apply(source.read_text(), patch.read_text(), str(_rel(source)),
                  str(_rel(patch)))


@functools.lru_cache(maxsize=4)
def _apply(text, diff, source_name, patch_name):
    # git apply, not patch(1): git is there wherever the clone is (patch is
    # not on a minimal Debian), and it takes no fuzz.  Outside any git
    # tree (the ceiling), the paths of the diff are the folder's.
    with tempfile.TemporaryDirectory(prefix="mmbench-knobs-") as d:
        target = Path(d) / "lib" / "test_mmbench.c"
        target.parent.mkdir()
        target.write_text(text)
        proc = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", "-"], cwd=d,
            env=dict(os.environ, GIT_CEILING_DIRECTORIES=str(Path(d).parent)),
            input=diff, text=True, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, check=False)
        if proc.returncode:
            raise Failure(f"{patch_name} does not apply to {source_name} "
                          f"(git apply exited with {proc.returncode}): "
                          + " ".join(proc.stdout.split())[:600] +
                          "; bring the patch up to date with the module")
        return target.read_text()


class Source:
    """lib/test_mmbench.c with the knobs patch applied, read as names.py
    reads a source file."""

    def __init__(self, source=MODULE_SOURCE, patch=PATCH):
        self.source, self.patch = source, patch

    def read_text(self):
        return patched_text(self.source, self.patch)

    def __str__(self):
        return f"{_rel(self.source)} with {_rel(self.patch)}"


SOURCE = Source()

