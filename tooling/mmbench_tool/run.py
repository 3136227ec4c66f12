"""./mmbench run: the suite in a QEMU guest, its KTAP judged, and
results.json written whatever the end."""
import re

from . import archive, guest, ktap, results as resultsmod
from .common import Failure, Phase, say
from .setup import (GuestOutput, Setup, judge_suite, report, save_archive,
                    spoilt)

# The guest's lines a run shows without --raw-output: its first line,
# each case's result as it ends (run_kselftest.sh puts "# " before the
# test program's lines), a bail out, run_kselftest.sh's own result and,
# with --loads, a line a load.  The rest, the figures' "# " lines among
# them, is in the results folder: guest.log, mmbench_test.ktap.
PROGRESS = re.compile(r"^MMBENCH-GUEST-BEGIN |^(# )?(not )?ok \d+ |"
                      r"^(# )*Bail out!|"
                      r"^MMBENCH-BENCH load=\d+ (run_ms=|insmod failed)")


def progress(line):
    return bool(PROGRESS.match(line))


def cmd_run(args):
    setup = Setup(args)
    setup.prepare()
    results = guest.results_dir()
    if args.loads:
        setup.extra_env = {"MMBENCH_LOADS": str(args.loads)}
    out = recs = None
    try:
        out = setup.boot("run", results,
                         echo=None if args.raw_output else progress)
        with Phase("results"):
            checks = judge_suite(setup, out, results)
            running = ktap.unfinished(ktap.inner_ktap(out.suite or []))
            if out.timed_out and running:
                say(f"the case running when the guest was stopped: "
                    f"{running}")
            if args.loads:
                recs = save_archive(setup, out, results, "run")
                got = sum(1 for r in recs if r["type"] == "load" and
                          r["insmod"] == "ok")
                why = sorted({r["why"] for r in recs if r.get("why")})
                checks.append((got == args.loads,
                               f"{args.loads} more module loads for the "
                               "archive",
                               f"{got} loaded" + "".join(
                                   f"; insmod failed: {w}"
                                   for w in why[:2])))
                say(f"archive of {got} loads: {results / archive.FILE}")
        Phase.report()
        checks = spoilt(checks, out)
        good = report(checks)
        judged = good or not out.spoilt
        rc = 0 if good else 1 if judged else 2
        _write(setup, out, results, checks, rc,
               "passed" if good else "failed" if judged else "not judged",
               recs=recs)
    except BaseException as e:
        # Whatever stopped the run: results.json says what there is.
        stopped = isinstance(e, KeyboardInterrupt)
        _write(setup, out or _what_was_printed(results), results, None,
               130 if stopped else 2 if isinstance(e, (Failure, OSError))
               else None, "interrupted" if stopped else "error",
               error=None if stopped else str(e) or type(e).__name__,
               recs=recs, quiet=True)
        raise
    say(f"results in {results}")
    if not judged:
        say("suite NOT JUDGED: QEMU's fault, EFLAGS no x86 CPU sets in "
            f"both boots (the second's {out.spoilt}; exit status 2)")
        return 2
    say("suite PASSED" if good else "suite FAILED")
    return rc


def _what_was_printed(results):
    """The guest's output as guest.log kept it, when the run stopped
    before its judging had it; None when the guest never ran."""
    log = results / "guest.log"
    if not log.exists():
        return None
    return GuestOutput(log.read_text(errors="replace").splitlines(),
                       results / "console.log")


def _write(setup, out, results, checks, rc, outcome, error=None,
           recs=None, quiet=False):
    """Write results.json; with @quiet (the run is failing already),
    a failure to write it is said, not raised over the run's own."""
    try:
        path = resultsmod.write(results, resultsmod.document(
            setup, out, results, checks, rc, outcome, error, recs))
    except Exception as e:          # noqa: BLE001 -- see @quiet
        if not quiet:
            raise
        say(f"results.json not written: {e}")
        return
    say(f"results.json (rows, figures, verdicts, fingerprint): {path}")
