"""./mmbench fleet: the figures of an archive of one kernel and setup in
one of the fleets' formats (fleet.py), on standard output."""
from . import archive, fleet
from .common import Failure
from .measure import one_setup


def cmd_fleet(args):
    if not args.archive.exists():
        # The README's out/results/latest/archive.jsonl after a plain run.
        plain = (args.archive.parent / "mmbench_test.ktap").exists()
        raise Failure(f"{args.archive}: does not exist" +
                      ("; a plain ./mmbench run keeps no archive: "
                       "./mmbench run --loads N writes one" if plain else ""))
    try:
        arch = archive.Archive.read(args.archive)
    except (ValueError, OSError) as e:
        raise Failure(f"{args.archive}: {e}" if str(args.archive)
                      not in str(e) else str(e)) from e
    if not arch.rows:
        raise Failure(f"{args.archive}: no row record: no figures to give")
    if archive.ICOUNT_ACCEL in arch.fingerprint().get("accel", ()):
        raise Failure(f"{args.archive}: measured with --accel icount, its "
                      "ns/op are instructions an op; the fleet formats "
                      "carry ns")
    # A row's figure is one median over every load.
    one_setup(arch, args.archive,
              what="the fleet formats give the figures of one kernel and "
                   "setup: give an archive of one")
    print(fleet.render(arch, args.format), end="", flush=True)
    return 0
