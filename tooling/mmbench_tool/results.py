"""results.json: what one ./mmbench run ran and found, in one JSON file
for scripts and robots (tooling/doc/results-schema.md documents it).

Every field comes from what the run parsed already: the cases from
ktap.results(), the rows and their figures from ktap.figures() (as the
table shows them), the fingerprint as the archive composes it, the
checks from setup.judge_suite().  It is written whatever the run's end:
passed, failed, timed out, stopped by an error or interrupted.
"""
import datetime
import json
import math
import os
import platform
import re

from . import archive, ktap
from .options import module_params

# Raised when a field changes meaning, unit or type, or goes away; a new
# field does not raise it (tooling/doc/results-schema.md).
SCHEMA = 2
FILE = "results.json"
# Keys of a row whose value is text, whatever it looks like.
TEXT_KEYS = ("status", "reason", "group", "context", "ceiling")
# Keys of a row whose value is a list of numbers, even of one.
LIST_KEYS = ("sample_ns",)
# What the fingerprint says of the kernel itself.
KERNEL_KEYS = ("preempt", "debug", "init_on_alloc", "init_on_free",
               "slub_debug")
# The files of a results folder that results.json names, when there.
FILES = {"ktap": "mmbench_test.ktap", "guest_log": "guest.log",
         "console_log": "console.log", "dmesg_log": "dmesg.log",
         "kunit_parse": "kunit-parse.txt", "archive": archive.FILE}
_INT = re.compile(r"[-+]?\d+")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def value(key, text):
    """The value of a "# name.key=text" line as results.json holds it: a
    number (a list of them for LIST_KEYS), null for the module's "none"
    (no sample kept), else the text as printed."""
    if key in TEXT_KEYS:
        return text
    if text.strip() == "none":
        return [] if key in LIST_KEYS else None
    words = text.split()
    if all(_NUMBER.fullmatch(w) for w in words):
        nums = [int(w) if _INT.fullmatch(w) else float(w) for w in words]
        if all(math.isfinite(n) for n in nums):
            if key in LIST_KEYS:
                return nums
            if len(nums) == 1:
                return nums[0]
    return text


def vs_ceiling(f):
    """Where a row's median is against its ceiling, as the table marks
    it: "over" (held to it), "over, reported only", "over, not judged",
    "under", or None without both figures."""
    mark = ktap.over_ceiling(f)
    if mark:
        return mark.lower()
    try:
        float(f["ns_per_op_median"])
        float(f["ceiling_ns"])
    except (KeyError, ValueError):
        return None
    return "under"


def verdict_of(line):
    """pass, fail or skip of a KTAP result line, or None."""
    m = ktap.RESULT.match(line or "")
    if not m:
        return None
    return "skip" if m.group(4) == "SKIP" else \
        "pass" if m.group(1) == "ok" else "fail"


def guest_begin(lines):
    """(release, CPUs online) of the guest's first line, or (None, None)."""
    for line in lines:
        m = re.match(r"^MMBENCH-GUEST-BEGIN (\S+) cpus=(\d+)", line)
        if m:
            return m.group(1), int(m.group(2))
    return None, None


def _mmbench_version():
    from .verbs import version
    return version()


def document(setup, out, results, checks=None, exit_status=None,
             outcome=None, error=None, recs=None):
    """results.json's contents for a run of @setup whose guest printed
    @out (a setup.GuestOutput, or None when it never started) into the
    folder @results; @checks: [(ok, what, why)] as judged; @exit_status
    and @outcome ("passed", "failed", "not judged", "error",
    "interrupted"): how the run ended; @error: what stopped it; @recs:
    the archive's records (run --loads)."""
    a = setup.args
    lines = out.lines if out else []
    suite = (out.suite if out else None) or []
    inner = ktap.inner_ktap(suite)
    res = ktap.results(inner)
    table = ktap.figures(inner)
    owner = ktap.figure_cases(inner)
    facts = setup.host_facts()
    fp = dict(recs[0]["fingerprint"]) if recs else \
        archive.compose_fingerprint(table.get("fingerprint", {}), facts)
    release, online = guest_begin(lines)
    runner = ktap.runner_verdict(suite)
    plan = [int(m.group(1)) for m in
            (re.match(r"^1\.\.(\d+)$", line) for line in inner) if m]

    cases = [{"number": n, "name": name,
              "result": "skip" if directive == "SKIP" else
              "pass" if ok else "fail", "reason": reason}
             for ok, n, name, directive, reason in res]
    rows, other = [], {}
    for name in ktap.number_order(list(table)):
        f = table[name]
        if name == "fingerprint":
            continue
        figures = {k: value(k, v) for k, v in f.items()}
        if "status" not in f:
            other[name] = figures
            continue
        case = owner.get(name)
        row = {"row": name}
        row.update(figures)
        row["case"] = res[case][2] if case is not None and \
            case < len(res) else None
        row["vs_ceiling"] = vs_ceiling(f)
        rows.append(row)
    finished = bool(out and out.finished)
    doc = {
        "schema": SCHEMA,
        "mmbench": _mmbench_version(),
        "command": "run",
        "created": datetime.datetime.now(datetime.timezone.utc)
        .isoformat(timespec="seconds"),
        "host": platform.node(),
        "results_dir": str(results),
        "outcome": outcome,
        "exit_status": exit_status,
        "verdict": verdict_of(runner),
        "kselftest_line": runner,
        "finished": finished,
        "error": error,
        "kernel": {
            "release": fp.get("release") or release or
            getattr(setup, "release", None),
            "arch": setup.arch.name,
            "image": str(getattr(setup, "kernel", "")) or None,
            **{k: fp[k] for k in KERNEL_KEYS if k in fp}},
        "guest": {
            "arch": setup.arch.name,
            "accel": facts["accel"],
            "qemu_cpu": facts["qemu_cpu"],
            "cpus": a.cpus,
            "cpus_online": online,
            "memory_mib": a.memory,
            "nodes": getattr(setup, "nodes", getattr(a, "nodes", 1)),
            "timeout_s": a.timeout,
            "started": online is not None,
            "finished": finished,
            "timed_out_after_s": out.timed_out if out else None,
            "seconds": round(out.guest_s, 1) if
            isinstance(getattr(out, "guest_s", None), (int, float))
            else None,
            "qemu_spoilt_eflags": getattr(out, "spoilt", None) or None},
        "options": {
            "params": module_params(a),
            "ceilings": list(a.ceiling),
            "env": list(a.env),
            "loads": getattr(a, "loads", None)},
        "fingerprint": fp,
        "cases_planned": plan[0] if plan else None,
        "counts": {r: sum(1 for c in cases if c["result"] == r)
                   for r in ("pass", "fail", "skip")},
        "unfinished_case": ktap.unfinished(inner),
        "cases": cases,
        "rows": rows,
        "other_figures": other,
        "checks": [{"ok": bool(ok), "check": what,
                    "why": "" if ok else why or ""}
                   for ok, what, why in checks or []],
        "archive": None,
        "files": {k: name for k, name in FILES.items()
                  if (results / name).exists()},
    }
    if recs:
        loads = [r for r in recs if r["type"] == "load"]
        doc["archive"] = {
            "path": str(results / archive.FILE),
            "loads_asked": getattr(a, "loads", None),
            "loads_ok": sum(1 for r in loads if r["insmod"] == "ok"),
            "rows": sum(1 for r in recs if r["type"] == "row")}
    return doc


def write(results, doc):
    """Write @doc to @results/results.json, whole or not at all (a
    reader never sees half of it); return its path."""
    path = results / FILE
    tmp = results / f".{FILE}.{os.getpid()}"
    tmp.write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)
    return path
