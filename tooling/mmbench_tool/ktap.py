"""Split the guest's output, recover the test binary's KTAP, judge it."""
import re
import sys

from .common import run

RESULT = re.compile(r"^(not ok|ok) (\d+) (.*?)(?: # (SKIP|TODO)\b ?(.*))?$")
FIGURE = re.compile(r"^# ([A-Za-z0-9_+]+)\.([a-z_]+)=(.*)$")
BAD_KERNEL_LOG = re.compile(
    r"(Oops|BUG:|WARNING:|Call Trace:|Kernel panic|general protection|"
    r"soft lockup|hung_task|RCU stall|rcu_sched self-detected|"
    # lockdep's INFO: reports, UBSAN, kmemleak's own count of leaks
    r"INFO: |UBSAN:|suspected memory leak)")


def between(lines, begin, end):
    """Lines after the one starting with @begin up to the one with @end.

    None when @begin never came; up to the last line when @end never came.
    """
    inside, found = None, []
    for line in lines:
        if inside is None and line.startswith(begin):
            inside = True
            continue
        if inside and line.startswith(end):
            break
        if inside:
            found.append(line)
    return found if inside else None


def inner_ktap(runner_lines, test="mm/mmbench: mmbench_test"):
    """The test binary's own KTAP out of run_kselftest.sh's output."""
    inner, inside = [], False
    for line in runner_lines:
        if line == f"# selftests: {test}":
            inside = True
            continue
        if inside and re.match(rf"^(not )?ok \d+ selftests: {test}", line):
            break
        if inside:
            inner.append(line[2:] if line.startswith("# ") else
                         line[1:] if line == "#" else line)
    return inner


def runner_verdict(runner_lines, test="mm/mmbench: mmbench_test"):
    """run_kselftest.sh's own line for the program, or None."""
    for line in runner_lines:
        if re.match(rf"^(not )?ok \d+ selftests: {test}", line):
            return line
    return None


def results(ktap_lines):
    """Top-level results: list of (ok, number, name, directive, reason)."""
    found = []
    for line in ktap_lines:
        m = RESULT.match(line)
        if m:
            found.append((m.group(1) == "ok", int(m.group(2)), m.group(3),
                          m.group(4) or "", m.group(5) or ""))
    return found


def figures(ktap_lines):
    """{benchmark: {key: value}} from the "# name.key=value" lines."""
    table = {}
    for line in ktap_lines:
        m = FIGURE.match(line)
        if m:
            table.setdefault(m.group(1), {})[m.group(2)] = m.group(3)
    return table


def kunit_parse(tree, path):
    """Run the kernel's KTAP parser on @path; return (ok, output)."""
    out = run([sys.executable, str(tree / "tools/testing/kunit/kunit.py"),
               "parse", str(path)], capture=True, check=False)
    ok = "[ERROR]" not in out and "Could not find any KTAP output" not in out \
        and not re.search(r"\bERROR\b", out)
    return ok, out


def bad_kernel_lines(dmesg_lines):
    return [line for line in dmesg_lines if BAD_KERNEL_LOG.search(line)]


def over_ceiling(f):
    """'OVER' when the row's median is over its ceiling, 'OVER, reported
    only' when the test printed the ceiling as informational, 'OVER, not
    judged' when it did not judge the figure (the row's last "ceiling="
    line says which), else ''."""
    try:
        if float(f["ns_per_op_median"]) <= float(f["ceiling_ns"]):
            return ""
    except (KeyError, ValueError):
        return ""
    if f.get("ceiling", "").startswith("informational"):
        return "OVER, reported only"
    if f.get("ceiling", "").startswith("not judged"):
        return "OVER, not judged"
    return "OVER"


def print_table(table):
    cols = ("benchmark", "status", "context", "ns/op median", "net",
            "min", "max", "stddev", "cycles/op", "ceiling ns")
    keys = ("status", "context", "ns_per_op_median", "net_ns_per_op",
            "ns_per_op_min", "ns_per_op_max", "ns_per_op_stddev",
            "cycles_per_op_median", "ceiling_ns")
    rows = [cols]
    # A row that did not pass (unsupported, noisy, ...) has no figures.
    measured = ("status", "context", "ceiling_ns")
    for name, f in table.items():
        if "status" in f:
            rows.append((name,) + tuple(
                f.get(k, "-") if k in measured or f["status"] in
                ("pass", "suspect", "fail") else "-" for k in keys))
    # A last column only when a median is over its ceiling.
    over = [over_ceiling(f) for f in table.values() if "status" in f]
    if any(over):
        rows = [r + (o,) for r, o in zip(rows, ["vs ceiling"] + over)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print(("  " + "  ".join(c.ljust(w) if i < 3 or i == 10 else
                                c.rjust(w) for i, (c, w) in
                                enumerate(zip(r, widths)))).rstrip())
    print("  (each case loads the module anew: a row's net is against the "
          "baseline of its own case, not the baseline row above)")
    ceilings = table.get("fingerprint", {}).get("ceilings")
    if ceilings:
        print(f"  ceilings: {ceilings}")
