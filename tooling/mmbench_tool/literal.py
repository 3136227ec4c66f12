"""The users' literal command, run in the guest: its output judged.

Robots and developers run the kselftest as

    make -C tools/testing/selftests TARGETS=mm/mmbench run_tests

in a kernel tree.  The test guest runs exactly that, as root, in the
kernel tree the series was applied to and the kselftest built in on the
host (tooling/guest/init, between the MMBENCH-LITERAL markers).  make must
find the test program up to date and only run it: the guest has no
compiler, and a rebuild would not be the program built and checked on the
host.  Its KTAP is judged as run_kselftest.sh's is.
"""
import re

from . import ktap

COMMAND = "make -C tools/testing/selftests TARGETS=mm/mmbench run_tests"
BEGIN = "MMBENCH-LITERAL-BEGIN"
END = "MMBENCH-LITERAL-END"
PREFIX = "literal run_tests: "
# What make may say of its own when it has nothing to build.
QUIET_MAKE = re.compile(r"^make(\[\d+\])?: (Entering directory|Leaving "
                        r"directory|Nothing to be done for) ")
PLAN = re.compile(r"^1\.\.\d+$")


def end_status(lines):
    """(make's exit status, seconds) from the end marker, or (None, None)
    when the guest never printed it."""
    for line in lines:
        m = re.match(rf"^{END} rc=(\d+) seconds=(\d+)", line)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None, None


def unexpected(section):
    """What the command printed that is neither the runner's KTAP nor
    make's entering, leaving and "nothing to be done": a build step, a
    compiler or tool not found, an error of make's."""
    return [line for line in section
            if not (line.startswith("#") or ktap.RESULT.match(line) or
                    line == "TAP version 13" or PLAN.match(line) or
                    QUIET_MAKE.match(line))]


def judge(lines, suite_inner):
    """Checks of the literal command's run in the guest's output @lines;
    @suite_inner: the KTAP of the suite run_kselftest.sh ran in the same
    guest.  Returns ([(ok, what, why)], its test program's KTAP)."""
    section = ktap.between(lines, BEGIN, END)
    rc, _ = end_status(lines)
    inner = ktap.inner_ktap(section or [])
    if section is None:
        ran = "the guest did not run it"
    elif rc is None:
        ran = "it did not finish"
    else:
        ran = f"make exited with {rc}"
    other = unexpected(section or [])
    verdict = ktap.runner_verdict(section or [])
    res = ktap.results(inner)
    failed = [r[2] for r in res if not r[0]]
    passed = [r[2] for r in res if r[0] and r[3] != "SKIP"]
    skipped = [r[2] for r in res if r[0] and r[3] == "SKIP"]
    names = [r[2] for r in res]
    theirs = [r[2] for r in ktap.results(suite_inner)]
    missing = [n for n in theirs if n not in names]
    extra = [n for n in names if n not in theirs]
    checks = [
        (rc == 0, f"{COMMAND} ran in the guest and exited 0", ran),
        (bool(section) and not other,
         "make built nothing: the test program built on the host was up "
         "to date", "make printed: " + " / ".join(other[:4])
         if other else "no output"),
        (bool(verdict) and verdict.startswith("ok ") and
         "# SKIP" not in verdict, "mm/mmbench: mmbench_test ok",
         f"runner line: {verdict}" if verdict else
         "run_kselftest.sh printed no result line for it"),
        (bool(passed) and not failed,
         f"mmbench_test: {len(passed)} passed, {len(failed)} failed, "
         f"{len(skipped)} skipped",
         "failed: " + ", ".join(failed) if failed else "nothing passed"),
        (bool(names) and not missing and not extra,
         "the same cases as run_kselftest.sh's run",
         f"missing: {', '.join(missing[:4]) or 'none'}; "
         f"not in that run: {', '.join(extra[:4]) or 'none'}"),
    ]
    return [(ok, PREFIX + what, why) for ok, what, why in checks], inner
