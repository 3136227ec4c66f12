"""./mmbench run: the suite in a QEMU guest, its KTAP judged."""
from . import archive, guest
from .common import Phase, say
from .setup import Setup, judge_suite, report, save_archive, spoilt


def cmd_run(args):
    setup = Setup(args)
    setup.prepare()
    results = guest.results_dir()
    if args.loads:
        setup.extra_env = {"MMBENCH_LOADS": str(args.loads)}
    out = setup.boot("run", results)
    with Phase("results"):
        checks = judge_suite(setup, out, results)
        if args.loads:
            recs = save_archive(setup, out, results, "run")
            got = sum(1 for r in recs if r["type"] == "load" and
                      r["insmod"] == "ok")
            why = sorted({r["why"] for r in recs if r.get("why")})
            checks.append((got == args.loads,
                           f"{args.loads} more module loads for the archive",
                           f"{got} loaded" + "".join(
                               f"; insmod failed: {w}" for w in why[:2])))
            say(f"archive of {got} loads: {results / archive.FILE}")
    Phase.report()
    good = report(spoilt(checks, out))
    say(f"results in {results}")
    if not good and out.spoilt:
        say("suite NOT JUDGED: QEMU's fault, EFLAGS no x86 CPU sets in "
            f"both boots (the second's {out.spoilt}; exit status 2)")
        return 2
    say("suite PASSED" if good else "suite FAILED")
    return 0 if good else 1
