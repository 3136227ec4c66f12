"""./mmbench's command line: the parser of every command and its options."""
import argparse
import subprocess

# The commands' modules are not imported here but named ("module.function",
# imported by cli.main() when its command runs): the checks of ./mmbench
# test parse a measure command line, and would import themselves.
from . import compare, fleet, revisions, verdicts
from .common import OUT, REPO
from .options import (COMPARE_EXIT_CODES, EXIT_CODES, SMALL_MEMORY,
                      _add_arch_option, _add_guest_options,
                      _add_measure_options, add_label_options, path_arg)

# The commands of ./mmbench --help's two lists: what a user runs, and
# what checks mmbench itself (CI's, and a developer's).
USER_COMMANDS = ("run", "measure", "compare", "fleet", "export", "lava")
OWN_CHECKS = ("test", "bench", "verdicts", "compare-check")
# What --version says of a copy that is no git checkout.
VERSION = "unversioned"


def version():
    """mmbench's version: git describe of this checkout, else VERSION."""
    if not (REPO / ".git").exists():
        return VERSION
    try:
        proc = subprocess.run(["git", "-C", str(REPO), "describe", "--always",
                               "--dirty"], text=True, timeout=30,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return VERSION
    return proc.stdout.strip() if proc.returncode == 0 and \
        proc.stdout.strip() else VERSION


class _Version(argparse.Action):
    """--version: "mmbench <version>", asked of git only when given."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS,
                 default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=default,
                         help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"mmbench {version()}", flush=True)
        parser.exit()


def _list_commands(parser, sub):
    """./mmbench --help's lists of the commands, a user's apart from
    mmbench's own checks, in place of argparse's one list."""
    helps = {a.dest: a for a in sub._get_subactions()}
    assert set(helps) == set(USER_COMMANDS + OWN_CHECKS), sorted(helps)
    for title, description, names in (
            ("commands", None, USER_COMMANDS),
            ("mmbench's own checks", "These check mmbench itself (its "
             "tests, and how far its figures and verdicts hold), not a "
             "kernel.", OWN_CHECKS)):
        group = parser.add_argument_group(title, description)
        group._group_actions.extend(helps[name] for name in names)
    # Listed there, before the options; the usage line keeps the
    # commands.
    parser._positionals._group_actions.remove(sub)
    groups = parser._action_groups
    groups[:] = [g for g in groups if g is not parser._optionals] + \
        [parser._optionals]


def _add_compare_commands(sub):
    p = sub.add_parser(
        "measure", help="measure two kernels, or two revisions of a "
        "tree, and compare",
        description="With --tree DIR REV_A REV_B: build both revisions of "
        "a kernel git tree (x86_64, out of tree, in the build cache "
        "MMBENCH_CACHE, default /var/cache/mmbench; the tree is only read, "
        "commit first), each in --layouts code layouts, and measure them "
        "so; results in out/results/<date-time>-measure/. "
        "Boot kernel A and kernel B in turn (A, B, A, B, ...: "
        "host drift falls on both), --boots times each, loading the module "
        "--loads times a boot, with samples=3 unless --param says other "
        "(loads, not samples, narrow a comparison); save each kernel's "
        "results archive (A.jsonl, B.jsonl) and compare them as ./mmbench "
        "compare does. Both sides are sampled alike: samples, sample_us, "
        "iterations and budget_ms go in --param, not --a-param or "
        "--b-param. Without "
        "--a-kernel (with --a-headers) or --b-kernel a side is --kernel's, "
        "or Debian's stock 6.12 kernel; "
        "--a-param and --b-param are module parameters of one side only "
        "(e.g. --b-param slow_into=kmalloc_64:40, a known regression).",
        epilog=COMPARE_EXIT_CODES + " Under TCG, time moves with code "
        "layout: with --tree use --accel icount to see a change in path "
        "length.")
    _add_guest_options(p)
    _add_arch_option(p)
    for side in ("a", "b"):
        S = side.upper()
        p.add_argument(f"--{side}-kernel", type=path_arg,
                       help=f"kernel image of {S} (with --{side}-headers)")
        p.add_argument(f"--{side}-headers", type=path_arg,
                       help=f"build tree of {S}'s kernel")
        p.add_argument(f"--{side}-release", help=f"uname -r of {S}'s kernel")
        p.add_argument(f"--{side}-param", action="append", default=[],
                       metavar="NAME=VALUE",
                       help=f"a module parameter of {S} only, repeatable")
        p.add_argument(f"--{side}-kernel-arg", action="append",
                       default=[], metavar="ARG",
                       help=f"a parameter more on {S}'s command line only, "
                            "as --kernel-arg (e.g. a kernel knob: "
                            "sysctl.vm.percpu_pagelist_high_fraction=100000)")
    p.add_argument("--tree", type=path_arg, metavar="DIR",
                   help="a kernel git tree: build REV_A and REV_B of it "
                        "(x86_64, out of tree, in the build cache; the "
                        "tree itself is only read) and measure them")
    p.add_argument("revisions", nargs="*", metavar="REV",
                   help="with --tree: revision A, then revision B (any "
                        "name git rev-parse takes: v6.12, HEAD~1, a hash)")
    p.add_argument("--config", type=path_arg, metavar="FILE",
                   help="with --tree: the .config both revisions are "
                        "built with (checked for what the guest needs: "
                        "tooling/kernel/guest.config); default tinyconfig "
                        "with guest.config and the kselftest's config")
    p.add_argument("--layouts", type=int,
                   help="with --tree: code layouts a revision, 1.."
                        f"{revisions.MAX_LAYOUTS} (default "
                        f"{revisions.DEFAULT_LAYOUTS}): builds whose code "
                        "is shifted by padding that never runs, the boots "
                        "spread over them, so that compare sees what "
                        "layout alone does to each row")
    p.add_argument("--align-functions", action="store_true",
                   help="with --tree: build both with "
                        "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B, as the "
                        "kernel test robot re-tests a suspected "
                        "regression (under TCG layout moved rows as much "
                        "with it: tooling/doc/measured.md)")
    p.add_argument("--aa", action="store_true",
                   help="let A and B be one kernel with the same "
                        "parameters (with --tree: the same commit, in "
                        "layouts of their own): an A/A, about one in "
                        "twenty flags a row by chance")
    _add_measure_options(p)
    add_label_options(p, tree=True)
    p.set_defaults(func="measure.cmd_measure")
    p = sub.add_parser(
        "compare", help="compare two results archives row by row",
        description="First the kernels' names and the answer: the rows B "
        "made slower and faster, the largest change first, how many did "
        "not change, how many are undecided and what would decide them. "
        "Then, for every row (those with a verdict first, the largest "
        "first; an undecided row's change in brackets): the medians, the "
        "change of B against A in % with its 95 % interval (under icount "
        "in instructions an op: path length, not time), a p-value of "
        "Welch's t test on the "
        "medians of each boot's loads (on the means of each layout's boots "
        "where a kernel was measured in several layouts), "
        "Benjamini-Hochberg over the rows (q = 0.05) and one verdict: "
        "REGRESSION, IMPROVEMENT, NO CHANGE, INCONCLUSIVE (with about how "
        "many more boots a kernel would decide, or that layout alone moves "
        "the row as much) or NOT COMPARABLE; a forest plot and each row's "
        "samples (PNG). A and B: archives (.jsonl) or results folders with "
        "an archive.jsonl; or one folder of ./mmbench measure.",
        epilog=COMPARE_EXIT_CODES)
    p.add_argument("a", type=path_arg, metavar="A",
                   help="the base kernel's archive (.jsonl), results "
                        "folder, or one folder of ./mmbench measure "
                        "(then no B)")
    p.add_argument("b", type=path_arg, nargs="?", metavar="B",
                   help="the kernel compared with A: its archive or "
                        "results folder")
    p.add_argument("--norm", choices=compare.NORMS,
                   default=compare.DEFAULT_NORM,
                   help=f"default {compare.DEFAULT_NORM}, none when both "
                        "archives are icount's")
    p.add_argument("-o", "--output", type=path_arg,
                   help="folder for compare.txt, compare.json and the "
                        "plots (default: the measure folder, or a new "
                        "results folder)")
    p.add_argument("--no-plots", action="store_true",
                   help="write no PNG plots (compare.txt and "
                        "compare.json only)")
    add_label_options(p)
    p.set_defaults(func="comparecmd.cmd_compare")
    p = sub.add_parser(
        "compare-check", help="how far compare's verdicts hold (a "
        "benchmark, not a test)",
        description="aa: the stock kernel (or --kernel's) against itself, "
        "--comparisons times, counting REGRESSION and IMPROVEMENT verdicts (goal: at "
        "most 1 in all), and each row's minimum detectable effect; known: "
        "slow_into making inc_dec_zone_page_state, kmalloc_64 and "
        "alloc_pages_order0 2, 5 and 10 % slower (calibrated against "
        "alu_chain in a first boot), each level compared with the stock "
        "kernel (or --kernel's) --comparisons times: the detection rate "
        "of each; split: "
        "no guest, the boots of one kernel's archives (--reuse FOLDER) "
        "drawn --boots a side into --comparisons A/A comparisons (no boot "
        "on both sides), per normalisation the comparisons that flag a "
        "row, the median minimum detectable "
        "effect and how often +5 and +10 % added to three rows is found. "
        "split and --reuse boot nothing: they refuse the options that "
        "say how to boot a guest.",
        epilog="exit status (aa: the goal of at most 1 false verdict; the MDE and +2 % figures are printed, not judged): 0 goal met, 1 missed, 2 a step failed or NOT COMPARABLE")
    p.add_argument("what", choices=("aa", "known", "split"),
                   help="aa: the kernel against itself; known: against "
                        "known slowdowns; split: A/A comparisons drawn "
                        "from one kernel's earlier boots (--reuse)")
    _add_guest_options(p)
    _add_arch_option(p)
    _add_measure_options(p)
    p.add_argument("--comparisons", type=int, default=20,
                   help="comparisons (default 20)")
    p.add_argument("--reuse", type=path_arg,
                   help="recompute from the archives of an earlier "
                        "compare-check folder, booting nothing (aa: with "
                        "each boot's first --loads loads)")
    p.set_defaults(func="comparecheck.cmd_compare_check")
    p = sub.add_parser(
        "fleet", help="an archive's figures for LAVA, KCIDB or LKP",
        description="Print an archive's rows in a fleet's format (tooling/doc/"
        "ci.md, \"Metric names\"): lava (lava-test-case commands with "
        "measurement and units), kcidb (JSON) or lkp (key: value).",
        epilog="exit status: 0 printed, 2 not an archive, an archive "
        "without rows, or one of --accel icount (its ns/op are "
        "instructions)")
    p.add_argument("archive", type=path_arg,
                   help="an archive.jsonl (./mmbench run --loads N) or the "
                        "results folder holding it")
    p.add_argument("--format", choices=fleet.FORMATS, default="lava",
                   help="lava: lava-test-case commands; kcidb: KCIDB "
                        "JSON; lkp: key: value lines (default lava)")
    p.set_defaults(func="fleetcmd.cmd_fleet")


def parser():
    """The parser of ./mmbench's command line, and its subparsers."""
    parser = argparse.ArgumentParser(
        prog="mmbench",
        description="Benchmark mm hot paths inside a kernel, as a kselftest.",
        epilog=EXIT_CODES)
    parser.add_argument("--version", action=_Version,
                        help="print mmbench's version (git describe of "
                             "this checkout) and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "run", help="run the suite on Debian's 6.12 kernel in a QEMU guest",
        description="Build test_mmbench and the mm/mmbench kselftest, boot "
        "the kernel in QEMU, run the kselftest there as LKFT does and judge "
        "its KTAP, showing each case's result as it ends and the figures' "
        f"table. Results go to {OUT}/results/<date-time>/ (MMBENCH_OUT "
        "moves out/): results.json (rows, figures, verdicts, fingerprint; "
        "tooling/doc/results-schema.md), written however the run ends, "
        "the raw KTAP mmbench_test.ktap and the guest's logs.",
        epilog=EXIT_CODES)
    _add_guest_options(p)
    _add_arch_option(p)
    p.add_argument("--loads", type=int,
                   help="after the suite, load the module this many times "
                        "more (2..50) and write every row of every load to "
                        "the results archive, archive.jsonl")
    p.add_argument("--raw-output", "--raw", dest="raw_output",
                   action="store_true",
                   help="show every line the guest prints (the raw KTAP, "
                        "each figure a '# <row>.<key>=<value>' line), as "
                        "kunit.py run --raw_output does; by default only "
                        "each case's result line (the raw KTAP is in the "
                        "results folder either way)")
    p.set_defaults(func="run.cmd_run")
    p = sub.add_parser(
        "test", help="run mmbench's own tests",
        description="Run the front end's unit tests (tooling/tests) on "
        "this host, build with W=1 and sparse, run checkpatch --strict, "
        "check the upstream series (checkpatch of each patch, kernel-doc, "
        "get_abi.pl) and build it in the 6.12 tree, patch by patch, "
        "run the suite, the literal 'make -C tools/testing/selftests "
        "TARGETS=mm/mmbench run_tests' (in a copy of that tree, built "
        "here) and the bad-input cases in a QEMU guest, then the "
        f"suite in a 1-CPU {SMALL_MEMORY} MiB guest, plain and with no free "
        "block of order 9 or above, with clocksource=jiffies, three times "
        "under host load, "
        "as a LAVA job with lava-run, a known regression that ./mmbench "
        "compare must find (four boots), "
        "on Debian's 6.1 cloud and 6.12 rt kernels (installed by name), "
        "on Debian's 6.12 cloud kernel for arm64 (cross-built, under "
        "TCG), and on the debug kernel (built once and kept), and end with the line "
        "'N passed, N failed'.", epilog=EXIT_CODES)
    _add_guest_options(p)
    p.add_argument("--no-arm64-guest", dest="arm64_guest",
                   action="store_false",
                   help="only cross-build for arm64, without booting its "
                        "guest (which takes about a minute)")
    p.add_argument("--arm64-guest", dest="arm64_guest", action="store_true",
                   default=True, help=argparse.SUPPRESS)
    p.set_defaults(func="selftest.cmd_test")
    p = sub.add_parser(
        "lava", help="run the suite as a LAVA job with lava-run",
        description="Install lava-dispatcher, build what ./mmbench run "
        "builds, write the device and job files (tooling/lava/, with "
        "file:// urls of Debian's 6.12 cloud kernel and of a ramdisk with "
        "the guest's contents) and run the job with lava-run, no "
        "lava-server; its test definition turns each row into LAVA test "
        "cases: mmbench.<row> (pass, fail or skip) and "
        "mmbench.<row>.ns_per_op (the median, in ns). Prints LAVA's "
        "results and checks that every row arrived.", epilog=EXIT_CODES)
    _add_guest_options(p, kernels=False)
    p.set_defaults(func="lava.cmd_lava")
    p = sub.add_parser(
        "bench", help="measure how far the figures can be trusted",
        description="A benchmark, not a test: in the guest, time the "
        "default suite, then load the module --loads times and print the "
        "baseline, the ndelay slope errors and the spread "
        "of each benchmark's median across loads.", epilog=EXIT_CODES)
    _add_guest_options(p)
    _add_arch_option(p)
    p.add_argument("--loads", type=int, default=5,
                   help="separate module loads, 2..50 (default 5)")
    p.set_defaults(func="selfbench.cmd_bench")
    p = sub.add_parser(
        "verdicts", help="how often the verdicts hold, idle and under load",
        description="Boot once and run the suite --runs times, on an idle "
        "host and with every host CPU kept busy by a busy loop this command "
        "starts and stops; print, for each, the runs that failed a case "
        "and why, and the skips by reason. Exits 1 when a goal is missed: "
        "every run completes, no case fails.", epilog=EXIT_CODES)
    _add_guest_options(p)
    _add_arch_option(p)
    p.add_argument("--runs", type=int, default=10,
                   help="runs of the suite per condition, 1..100 "
                        "(default 10)")
    p.add_argument("--load", choices=("idle", "busy", "both"),
                   default="both",
                   help="the host idle, every host CPU busy, or one boot "
                        "each (default both)")
    p.set_defaults(func="verdicts.cmd_verdicts")
    _add_compare_commands(sub)
    p = sub.add_parser(
        "export", help="write the upstream patch series",
        description="Commit the series of tooling/upstream/series on a new "
        "branch of a git tree of linux-source-6.12 (made once under "
        f"{OUT}), and write it with git format-patch --cover-letter, the "
        "cover letter quoting the figures of the latest run.",
        epilog=EXIT_CODES)
    p.add_argument("-o", "--output", type=path_arg, default=OUT / "series",
                   help=f"folder of the patch files (default {OUT}/series;"
                        " the patches an earlier export wrote there are "
                        "replaced; a folder holding other *.patch files "
                        "is refused)")
    p.add_argument("--results", type=path_arg,
                   help="results folder the cover letter's figures come "
                        f"from (default: the newest in {OUT}/results of a "
                        "run that had figures and did not fail)")
    p.add_argument("--check", action="store_true",
                   help="run checkpatch.pl --strict on each patch, "
                        "kernel-doc on the module and get_abi.pl on the "
                        "ABI file; exit 1 on any report")
    p.set_defaults(func="export.cmd_export")
    _list_commands(parser, sub)
    return parser, sub
