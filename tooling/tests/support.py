"""What the unit tests share: the import path of mmbench_tool."""
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
            contextlib.redirect_stdout(out):
        try:
            rc = cli.main(list(argv))
        except Reached:
            rc = None
    return rc, out.getvalue()
