"""Split the guest's output, recover the test binary's KTAP, judge it."""
import re
import sys

from .common import run

RESULT = re.compile(r"^(not ok|ok) (\d+) (.*?)(?: # (SKIP|TODO)\b ?(.*))?$")
FIGURE = re.compile(r"^# ([A-Za-z0-9_+]+)\.([a-z_][a-z0-9_]*)=(.*)$")
CASE_END = re.compile(r"^(not )?ok \d+ ")
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


# The harness's line of a failed assertion, or its TH_LOG():
# "# mmbench_test.c:806:run:kmalloc_64: median ... is over the ceiling".
ASSERTION = re.compile(r"^# [^ :]+\.c:\d+:[^:]*:(.*)$")


def results(ktap_lines):
    """Top-level results: list of (ok, number, name, directive, reason);
    a failed case's reason, where its result line gives none, the
    harness's words on why: its TH_LOG() lines, else its assertions'."""
    found, why = [], []
    for line in ktap_lines:
        m = ASSERTION.match(line)
        if m:
            why.append(m.group(1).strip())
            continue
        m = RESULT.match(line)
        if m:
            reason = m.group(5) or ""
            said = [w for w in why if not w.startswith("Expected ")] or why
            if m.group(1) == "not ok" and not reason and said:
                reason = "; ".join(said)[:500]
            found.append((m.group(1) == "ok", int(m.group(2)), m.group(3),
                          m.group(4) or "", reason))
            why = []
    return found


def _figure_lines(ktap_lines):
    """(case, name, key, value) of each "# name.key=value" line, case the
    number of result lines before it: the index in results() of the case
    that printed it (len(results()) for a case that never ended)."""
    case = 0
    for line in ktap_lines:
        if CASE_END.match(line):
            case += 1
            continue
        m = FIGURE.match(line)
        if m:
            yield case, m.group(1), m.group(2), m.group(3)


def figures(ktap_lines):
    """{benchmark: {key: value}} from the "# name.key=value" lines.  A row
    printed by several cases keeps what the first of them printed (the last
    value of a key there): its own case, where it was judged, comes before
    the cases that print it too."""
    table, owner = {}, {}
    for case, name, key, value in _figure_lines(ktap_lines):
        if owner.setdefault(name, case) == case:
            table.setdefault(name, {})[key] = value
    return table


def figure_cases(ktap_lines):
    """{name: the case whose figures of it figures() keeps}, the case as
    an index into results(); one past its end for the case that was
    running when the output stopped."""
    owner = {}
    for case, name, _, _ in _figure_lines(ktap_lines):
        owner.setdefault(name, case)
    return owner


HARNESS_RUN = re.compile(r"^#  RUN\s+(\S+) \.\.\.$")


def unfinished(ktap_lines):
    """The case the harness started last ("#  RUN ... name ...") when no
    result line followed it: the one running when the output stopped;
    else None."""
    running = None
    for line in ktap_lines:
        m = HARNESS_RUN.match(line)
        if m:
            running = m.group(1)
        elif CASE_END.match(line):
            running = None
    return running


def kunit_parse(tree, path):
    """Run the kernel's KTAP parser on @path; return (ok, output)."""
    out = run([sys.executable, str(tree / "tools/testing/kunit/kunit.py"),
               "parse", str(path)], capture=True, check=False)
    ok = "[ERROR]" not in out and "Could not find any KTAP output" not in out \
        and not re.search(r"\bERROR\b", out)
    return ok, out


PRINTK_TIME = re.compile(r"^\[\s*(\d+\.\d+)\]")


def merge_logs(*logs):
    """One kernel log out of several views of it (dmesg, the console): in
    the order of the printk timestamps, each line once.  A line without a
    timestamp keeps the place after the line before it."""
    keyed, seen = [], set()
    for log in logs:
        when = 0.0
        for line in log:
            line = line.rstrip("\r")
            m = PRINTK_TIME.match(line)
            if m:
                when = float(m.group(1))
            if line in seen and m:
                continue
            seen.add(line)
            keyed.append((when, len(keyed), line))
    return [line for _, _, line in sorted(keyed)]


# What tooling/guest/faults.sh writes to /dev/kmsg around its run.
FAULTS_BEGIN = "mmbench-faults: begin"
FAULTS_END = "mmbench-faults: end"


def injected_failure_reports(dmesg_lines):
    """The reports of allocations failed on purpose: within the fault
    injection window, from a "page allocation failure" line (warn_alloc)
    to the end of its stack trace.  Returns (reports, lines left)."""
    left, reports, window, report = [], 0, False, False
    for line in dmesg_lines:
        if FAULTS_BEGIN in line:
            window = True
        elif FAULTS_END in line:
            window = report = False
        if window and "page allocation failure:" in line:
            reports += 1
            report = True
        if report:
            if "</TASK>" in line or "Mem-Info:" in line:
                report = False
            continue
        left.append(line)
    return reports, left


# The kinds of report a debug kernel makes, each line counted once, by the
# first kind it matches.
REPORT_KINDS = (
    ("KASAN", re.compile(r"BUG: KASAN:")),
    ("sleeping function called from invalid context",
     re.compile(r"BUG: sleeping function called from invalid context")),
    ("lockdep", re.compile(
        r"WARNING: (possible (circular|recursive) locking|inconsistent lock "
        r"state|suspicious RCU usage|bad unlock balance|lock held when "
        r"returning|held lock freed)|INFO: (possible irq lock inversion|"
        r"trying to register non-static key)|BUG: MAX_LOCKDEP")),
    ("kmemleak", re.compile(r"kmemleak: \d+ new suspected memory leaks|"
                            r"^unreferenced object 0x")),
    ("WARN", re.compile(r"WARNING:")),
    ("BUG or oops", re.compile(r"BUG:|kernel BUG at|Oops|general protection|"
                               r"Kernel panic|soft lockup|hung_task|"
                               r"RCU stall|self-detected stall")),
)


def report_counts(lines):
    """{kind: lines that start a report of that kind} over @lines, with
    the reports of failures injected on purpose left out."""
    _, left = injected_failure_reports(lines)
    counts = {kind: 0 for kind, _ in REPORT_KINDS}
    for line in left:
        for kind, pattern in REPORT_KINDS:
            if pattern.search(line):
                counts[kind] += 1
                break
    return counts


def bad_kernel_lines(dmesg_lines):
    """Lines of a report of the kernel's, but those of an allocation that
    fault injection failed on purpose."""
    _, left = injected_failure_reports(dmesg_lines)
    return [line for line in left if BAD_KERNEL_LOG.search(line)]


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


def number_order(names):
    """@names with the rows of a list in the order of their numbers
    (kmalloc_8 before kmalloc_64), each list where its first row was."""
    def stem(name):
        return re.sub(r"\d+$", "", name)
    first = {}
    for i, name in enumerate(names):
        first.setdefault(stem(name), i)

    def key(name):
        m = re.search(r"\d+$", name)
        return first[stem(name)], int(m.group()) if m else -1
    return sorted(names, key=key)


# A row of a benchmark on N CPUs at once (team_cpus=): *_concurrent,
# *_contended.
CURVE = re.compile(r"^(\w+)_cpus(\d+)$")


def curves(names):
    """{benchmark: [(CPUs, row), ...] by CPUs} of the team_cpus= rows
    among @names: a benchmark's ns/op against the CPUs running it."""
    out = {}
    for name in names:
        m = CURVE.match(name)
        if m:
            out.setdefault(m.group(1), []).append((int(m.group(2)), name))
    return {bench: sorted(points) for bench, points in out.items()}


def print_scaling(table):
    """The team_cpus= rows of @table ({row: {key: value}}) as ns/op
    against CPUs: a line a benchmark, a column a CPU count (net ns/op
    median; "-" where it did not pass)."""
    got = curves(table)
    counts = sorted({n for points in got.values() for n, _ in points})
    if not counts:
        return
    rows = [("ns/op, CPUs at once",) + tuple(
        f"{n} CPU{'s' if n > 1 else ''}" for n in counts)]
    for bench, points in got.items():
        row = dict(points)
        rows.append((bench,) + tuple(
            table[row[n]].get("net_ns_per_op", "-")
            if n in row and table[row[n]].get("status") in ("pass", "fail")
            else "-" for n in counts))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print("  scaling: each CPU's net ns/op with that many CPUs running the "
          "benchmark at once (team_cpus=):")
    for r in rows:
        print("  " + "  ".join(c.ljust(w) if not i else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))))


def print_table(table):
    # p99 alone: of the ops timed one at a time, net of the clock's reads.
    cols = ("benchmark", "status", "context", "ns/op median", "net",
            "min", "mad", "net cycles/op", "p99 alone", "ceiling ns")
    keys = ("status", "context", "ns_per_op_median", "net_ns_per_op",
            "ns_per_op_min", "ns_per_op_mad", "net_cycles_per_op",
            "op_ns_p99", "ceiling_ns")
    rows = [cols]
    # A row that did not pass (unsupported, noisy, ...) has no figures.
    measured = ("status", "context", "ceiling_ns")
    table = {name: table[name] for name in number_order(list(table))}
    for name, f in table.items():
        if "status" in f:
            rows.append((name,) + tuple(
                f.get(k, "-") if k in measured or f["status"] in
                ("pass", "fail") else "-" for k in keys))
    # A last column only when a median is over its ceiling.
    over = [over_ceiling(f) for f in table.values() if "status" in f]
    if any(over):
        rows = [r + (o,) for r, o in zip(rows, ["vs ceiling"] + over)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print(("  " + "  ".join(c.ljust(w) if i < 3 or i == len(cols) else
                                c.rjust(w) for i, (c, w) in
                                enumerate(zip(r, widths)))).rstrip())
    print("  (each case loads the module anew: a row's net is against the "
          "baseline of its own case, not the baseline row above)")
    ceilings = table.get("fingerprint", {}).get("ceilings")
    if ceilings:
        print(f"  ceilings: {ceilings}")
