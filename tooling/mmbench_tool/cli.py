"""./mmbench's dispatcher: the command line parsed (verbs.py), the
command's function run (run.py, selftest.py, lava.py, selfbench.py,
verdicts.py, measure.py, comparecmd.py, fleetcmd.py, comparecheck.py,
export.py), its failures turned into exit statuses."""
import importlib
import os
import signal
import sys

from . import verbs
from .common import OUT, REPO, Failure, Phase, say


def parse(argv):
    """The command line @argv parsed: its args, with .func the command's
    function; argparse's refusal (SystemExit 2) for what it does not
    take."""
    parser, sub = verbs.parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # The command's usage, not the top level's.
        sub.choices[args.command].error("unrecognized arguments: " +
                                        " ".join(extra))
    return args


class _ClosedPipeProof:
    """sys.stdout that, once its reader has gone (compare ... | head),
    drops what is written instead of failing: the command runs to its
    end and exits with its own status (1 is a REGRESSION), not with an
    error of its output."""

    def __init__(self, stream):
        self._stream, self._gone = stream, False

    def _drop(self):
        self._gone = True
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, self._stream.fileno())
            os.close(fd)
        except (OSError, ValueError):
            pass

    def write(self, text):
        if not self._gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self):
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._drop()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv):
    args = parse(argv)
    if not isinstance(sys.stdout, _ClosedPipeProof):
        sys.stdout = _ClosedPipeProof(sys.stdout)
    # A kill is an interrupt: the guest and any busy loop are stopped.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        if os.environ.get("MMBENCH_OUT") == "":
            raise Failure("MMBENCH_OUT is empty: name a folder, or unset it "
                          f"for {REPO / 'out'}")
        try:
            OUT.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise Failure(f"MMBENCH_OUT={OUT}: cannot make that folder: "
                          f"{e.strerror or e}") from e
        return command(args.func)(args)
    except (Failure, OSError) as e:
        # An OSError no step turned into a Failure (a file that cannot be
        # read, a folder that cannot be made): 2, not a traceback and 1,
        # which measure and compare say for a REGRESSION.
        if isinstance(e, OSError):
            e = f"{e.filename + ': ' if e.filename else ''}" \
                f"{e.strerror or e}"
        Phase.report()
        # Not on stdout, which may be data (fleet's formats).
        print(f"mmbench: error: {e}", file=sys.stderr, flush=True)
        if args.command == "test":
            print("0 passed, 1 failed", flush=True)
        return 2
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def command(name):
    """The function @name ("module.function" of this package) that runs
    a command, imported now: verbs.py names them rather than import
    them."""
    module, function = name.rsplit(".", 1)
    return getattr(importlib.import_module(f".{module}", __package__),
                   function)


def _interrupt(signum, frame):
    raise KeyboardInterrupt
