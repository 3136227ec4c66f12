"""./mmbench export: the upstream series written with git format-patch,
and with --check checkpatch, kernel-doc and get_abi.pl run on it."""
from . import deps, series
from .common import Failure, Phase, say


def cmd_export(args):
    out = args.output.resolve()
    if out.exists() and not out.is_dir():
        raise Failure(f"-o {args.output}: a file, not a folder")
    if args.results is not None and not args.results.is_dir():
        raise Failure(f"--results {args.results}: " +
                      ("a file, not a results folder (out/results/<date-"
                       "time>)" if args.results.exists() else
                       "no such results folder"))
    if args.results is not None and not series.run_figures(args.results):
        raise Failure(f"--results {args.results}: no figures in its "
                      "mmbench_test.ktap: not the results of a ./mmbench "
                      "run or test that ran the suite")
    if args.results is not None:
        series.check_cover_run(args.results)
    with Phase("packages"):
        deps.ensure(deps.EXPORT_PACKAGES)
    with Phase("export"):
        branch, files = series.export(out,
                                      results=args.results)
    say(f"branch {branch} of {series.PRISTINE}")
    for f in files:
        print(f)
    if not args.check:
        return 0
    # The checks run in the tree the series is applied to by git am.
    tree = series.applied_tree()
    bad = 0
    for f in files[1:]:
        issues = series.checkpatch(tree, f)
        bad += bool(issues)
        say(f"checkpatch --strict {f.name}: "
            + ("clean" if not issues else "; ".join(issues)))
    for what, issues in (("kernel-doc -none lib/test_mmbench.c",
                          series.kernel_doc(tree)),
                         ("get_abi.pl validate", series.abi_validate(tree))):
        bad += bool(issues)
        say(f"{what}: " + ("clean" if not issues else "; ".join(issues)))
    return 1 if bad else 0
