"""The results archive: one JSON-lines file per guest boot (a "run").

Record types (the "type" key), in this order in a file:

run   the header: schema, the fingerprint (what the figures depend on),
      the parameters, the boot id, the loads asked for, when and where.
load  one per module load: its number, whether insmod worked (and why
      not, when the module's log said), run_ms.
row   one per row per load: status, reason, median, mad, noise, net (all
      ns/op but noise, in %), the kept samples (ns/op, in the order
      taken), the samples kept and dropped, and the drops by cause:
      bench.row_figures() of the module's raw files.

Several runs' files concatenated are an archive too (./mmbench measure
writes one per side that way): every load and row record carries its
run's boot id.  tooling/doc/archive-schema.md is the schema's
documentation.
"""
import datetime
import json
import math
import platform
import re
import uuid
from pathlib import Path

from . import bench, names

SCHEMA = 1
FILE = "archive.jsonl"
# Fingerprint keys that change what an operation costs: two archives
# that differ in one are NOT COMPARABLE.
COST_KEYS = ("arch", "accel", "qemu_cpu", "cpu_model", "debug",
             "emulated")
# The accelerator of a TCG guest whose clocks count instructions
# (--accel icount): its ns/op are instructions an op, not comparable with
# a guest's whose clocks follow the host's.
ICOUNT_ACCEL = "tcg-icount"
# Keys that may change costs but may be what is being compared: said.
WARN_KEYS = ("preempt", "init_on_alloc", "init_on_free", "clocksource",
             "host_cpu", "kaslr")
# The module parameters that decide what a load's median is the median
# of, and their defaults: a median of 3 samples is not one of 9 (TCG's
# skewed noise lifts the former), so archives that differ in one are
# NOT COMPARABLE.
# budget_ms too: a shorter budget can cut a row's samples short.
SAMPLING = (("samples", "9"), ("sample_us", "2000"), ("iterations", "0"),
            ("budget_ms", "60000"))
def _number(text):
    """@text as a finite number, else None (not measured)."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def host_cpu():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def compose_fingerprint(test_program, host_facts, module=None, guest=None):
    """The fingerprint of a boot: the test program's fingerprint lines
    (its suite's, or its fingerprint case's), the module's files (its
    preempt model as the rows ran), what the guest
    said of itself and @host_facts, each over the ones before; emulated
    "yes" under TCG where the guest did not say."""
    fp = {}
    fp.update(test_program)
    fp.update(module or {})
    fp.update({k: v for k, v in (guest or {}).items() if k != "boot_id"})
    fp.update(host_facts)
    if "emulated" not in fp or fp["emulated"] == "unknown":
        fp["emulated"] = "yes" if host_facts.get("accel") in \
            ("tcg", ICOUNT_ACCEL) else \
            fp.get("emulated", "unknown")
    return fp


def records(lines, host_facts, params, boot=None):
    """The archive records of one guest boot from its MMBENCH-BENCH lines.

    @host_facts: the fingerprint keys the host knows (arch, accel,
    qemu_cpu, kernel image, ...); @params: {"module": [...], "loads": N};
    @boot: the boot id when the guest did not say it.
    """
    suite, fingerprint, loads = bench.parse(lines)
    guest_facts = bench.parse_prefixed(lines, "guest ")
    module = bench.parse_prefixed(lines, "module ")
    for ld in loads:
        module.update(ld.get(bench.MODULE_FP, {}))
    fp = compose_fingerprint(fingerprint, host_facts, module, guest_facts)
    # One of the host's for a guest that did not say it (no
    # /proc/sys/kernel/random/boot_id): two such boots are not one.
    boot_id = guest_facts.get("boot_id") or boot or f"host-{uuid.uuid4()}"
    head = {"type": "run", "schema": SCHEMA, "boot": boot_id,
            "fingerprint": fp, "params": params,
            "created": datetime.datetime.now(datetime.timezone.utc)
            .isoformat(timespec="seconds"),
            "host": platform.node(), "loads": len(loads)}
    if suite:
        head["suite"] = suite
    out = [head]
    for n, ld in enumerate(loads, 1):
        number = ld.get(bench.RUN_MS, {}).get("load", n)
        out.append({"type": "load", "boot": boot_id, "load": int(number),
                    "insmod": "failed" if bench.FAILED in ld else "ok",
                    "run_ms": _number(ld.get(bench.RUN_MS, {})
                                      .get("run_ms"))})
        if ld.get(bench.FAILED, {}).get("why"):
            out[-1]["why"] = ld[bench.FAILED]["why"]
        rows = sorted((row, f) for row, f in ld.items()
                      if not row.startswith(" "))
        # How many row records follow: a reader finds a file cut short.
        out[-1]["rows"] = len(rows)
        for row, f in rows:
            rec = {"type": "row", "boot": boot_id, "load": int(number),
                   "row": row, "status": f["status"], "reason": f["reason"],
                   "slow_ops": _number(f["slow_ops"])}
            rec.update({k: f[k] for k in (
                "median", "mad", "noise", "net", "samples", "dropped",
                "sample_ns", "dropped_why", "net_cycles", "ops_per_sample",
                "group", "cpu", "context", "op_ns")})
            rec["op_ns_hist"] = f.get("op_ns_hist")
            out.append(rec)
    return out


def write(path, recs, append=False):
    with open(path, "a" if append else "w") as f:
        for rec in recs:
            f.write(json.dumps(rec, sort_keys=True) + "\n")
    return path


def _files(where):
    where = Path(where)
    if where.is_dir():
        if (where / FILE).exists():
            return [where / FILE]
        found = sorted(where.glob("*.jsonl"))
        if len(found) != 1:
            names = ", ".join(f.name for f in found)
            raise ValueError(
                f"{where}: no {FILE}, and " +
                (f"{len(found)} *.jsonl archives ({names}): name one"
                 if found else "no *.jsonl archive in it" +
                 ("; a plain ./mmbench run keeps none: ./mmbench run "
                  "--loads N (or measure) writes one"
                  if (where / "mmbench_test.ktap").exists() else "")))
        return found
    return [where]


# The longest record line read: a row of samples is a few KiB.  A file
# without line ends (a tarball, a core file) is refused at the first
# line longer, not read whole into memory.
LINE_MAX = 1 << 20


def _lines(path):
    """The lines of the archive file @path, one at a time (a pipe too: a
    line longer than LINE_MAX, as /dev/zero's first, is refused with
    ValueError)."""
    with open(path, "rb") as f:
        n = 0
        while True:
            line = f.readline(LINE_MAX + 1)
            if not line:
                return
            n += 1
            if len(line) > LINE_MAX:
                raise ValueError(f"{path}:{n}: a line longer than "
                                 f"{LINE_MAX} bytes: not an archive's")
            yield line


def _number_or_none(v):
    try:
        return v is None or (isinstance(v, (int, float)) and
                             not isinstance(v, bool) and math.isfinite(v)
                             and abs(v) < FIGURE_MAX)
    except OverflowError:       # an int no float holds
        return False


# The largest figure an archive holds (ns, counts): past a year in ns.
FIGURE_MAX = 1e18
# The record types of an archive (tooling/doc/archive-schema.md).
KINDS = ("run", "load", "row")
# A row's ops timed alone (bench.tail()): how many, their percentiles.
TAIL_KEYS = ("alone", "p50", "p90", "p99", "p99_9", "max")
# The row compare makes of a row's p99 of its ops timed alone.
TAIL_ROW = "+p99"


# A row's name as the module makes it (a sysfs directory; a "+" in the
# rows of modules before 2026-12-01, <bench>+ndelay_<D>): nothing that a
# shell line of the fleets' formats would read as more than a word.
ROW_NAME = re.compile(r"[a-z_][a-z0-9_+]*")
# The longest: the module's 47 characters (MMBENCH_NAME_LEN); an old
# <bench>+ndelay_<D> under 64.  A plot is a file of the row's name.
ROW_NAME_MAX = 63
# Figures of a row record that are a number or null.
ROW_FIGURES = ("median", "net", "mad", "noise", "net_cycles")


def _bad_row(rec):
    """Why row record @rec cannot be one, or None."""
    name = rec.get("row")
    if not isinstance(name, str) or not ROW_NAME.fullmatch(name) or \
            len(name) > ROW_NAME_MAX:
        return f"a row record whose row is not a row's name: {name!r:.60}"
    for key in ROW_FIGURES:
        if not _number_or_none(rec.get(key)):
            return f"row {name}: {key} is not a number under 1e18"
    median = rec.get("median")
    # The module's figures are in ps: 0.001 ns is its least median.
    if rec.get("status") == "pass" and (median is None or median < 0.001):
        return f"row {name}: passed with a median of {median}, not a " \
               "positive number of ns (0.001 at least)"
    if not isinstance(rec.get("status"), (str, type(None))):
        return f"row {name}: status is not a string"
    for key in ("samples", "dropped"):
        v = rec.get(key)
        if v is not None and (not isinstance(v, int) or
                              isinstance(v, bool) or v < 0):
            return f"row {name}: {key} is not a count"
    for key in ("ops_per_sample", "slow_ops"):
        if not _number_or_none(rec.get(key)):
            return f"row {name}: {key} is not a number under 1e18"
    op_ns = rec.get("op_ns")
    if op_ns is not None and (not isinstance(op_ns, dict) or not all(
            k in TAIL_KEYS and _number_or_none(v) and v is not None
            for k, v in op_ns.items())):
        return f"row {name}: op_ns is not an object of " \
               f"{', '.join(TAIL_KEYS)} as numbers"
    hist = rec.get("op_ns_hist")
    if hist is not None and (not isinstance(hist, list) or not all(
            isinstance(b, list) and len(b) == 2 and
            all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                for v in b) for b in hist)):
        return f"row {name}: op_ns_hist is not a list of [ns, ops] counts"
    samples = rec.get("sample_ns", [])
    if not isinstance(samples, (list, type(None))) or \
            not all(_number_or_none(v) and v is not None
                    for v in samples or []):
        return f"row {name}: sample_ns is not a list of finite numbers"
    return None


def _bad_record(rec):
    """Why @rec cannot be an archive record, or None."""
    kind = rec.get("type")
    if kind not in KINDS:
        return f"a record of type {kind!r:.20}, not one of " \
               f"{', '.join(KINDS)}: not an mmbench archive's"
    if kind == "run":
        if not isinstance(rec.get("fingerprint", {}), dict) or \
                not isinstance(rec.get("params", {}), (dict, type(None))):
            return "a run record whose fingerprint or params is not an object"
        module = (rec.get("params") or {}).get("module")
        if module is not None and (not isinstance(module, list) or
                                   not all(isinstance(p, str) and
                                           re.fullmatch(r"[a-z_]+=\S+", p)
                                           for p in module)):
            return "a run record whose params.module is not a list of " \
                   "NAME=VALUE strings"
        if "boot" not in rec:
            return "a run record without its boot"
        if rec.get("schema", SCHEMA) != SCHEMA:
            return f"schema {rec.get('schema')!r:.20}: this mmbench reads " \
                   f"schema {SCHEMA}"
    if kind in ("row", "load"):
        if not isinstance(rec.get("load"), int) or \
                isinstance(rec.get("load"), bool) or "boot" not in rec or \
                rec.get("load") < 1:
            return f"a {kind} record without its boot, or whose load is " \
                   "not a number from 1"
    count = {"run": "loads", "load": "rows"}.get(kind)
    if count in rec and (not isinstance(rec[count], int) or
                         isinstance(rec[count], bool) or rec[count] < 0):
        return f"a {kind} record whose {count} is not a count"
    if kind == "row":
        why = _bad_row(rec)
        if why:
            return why
    if not isinstance(rec.get("boot"), str) or not rec["boot"]:
        return f"a {kind} record whose boot is not a string"
    return None



def _one_document(path):
    """Whether @path holds one JSON document over several lines (a
    compare.json, a results.json) rather than an archive's records."""
    try:
        path = Path(path)
        # Never a large or endless file read whole (a tarball, /dev/zero).
        if not path.is_file() or path.stat().st_size > 16 << 20:
            return False
        json.loads(path.read_text())
    except (ValueError, RecursionError, OSError):
        return False
    return True

def _check_whole(runs, rows, loads, seen):
    """Refuse boots whose records end early: fewer load records than
    their run record's "loads", or fewer row records than a load record's
    "rows" (a file cut at a line's end, which reads as JSON)."""
    cut = "records: the archive is cut short (a copy that did not finish?)"
    have = {}
    for rec in loads:
        have[rec["boot"]] = have.get(rec["boot"], 0) + 1
    for run in runs:
        want = run.get("loads")
        if isinstance(want, int) and have.get(run["boot"], 0) < want:
            raise ValueError(
                f"{seen[('run', run['boot'], None, None)]}: boot "
                f"{run['boot']:.40} has {have.get(run['boot'], 0)} of its "
                f"{want} load {cut}")
    have = {}
    for rec in rows:
        key = (rec["boot"], rec.get("load"))
        have[key] = have.get(key, 0) + 1
    for rec in loads:
        want = rec.get("rows")
        got = have.get((rec["boot"], rec.get("load")), 0)
        if isinstance(want, int) and got < want:
            raise ValueError(
                f"{seen[('load', rec['boot'], rec.get('load'), None)]}: "
                f"load {rec.get('load')} of boot {rec['boot']:.40} has "
                f"{got} of its {want} row {cut}")


class Archive:
    """The records of one or more archive files (or results folders)."""

    def __init__(self, runs, rows, loads, name=""):
        self.runs = runs        # the "run" records
        self.rows = rows        # the "row" records
        self.loads = loads      # the "load" records
        self.name = name

    @classmethod
    def read(cls, *wheres):
        runs, rows, loads = [], [], []
        # Where each boot's run record, load and row is: a file given
        # twice, or joined to itself, would count its loads twice.
        seen = {}
        for where in wheres:
            for path in _files(where):
                for n, raw in enumerate(_lines(path), 1):
                    if not raw.strip():
                        continue
                    try:
                        rec = json.loads(raw.decode())
                    except (ValueError, RecursionError) as e:
                        if n == 1 and _one_document(path):
                            raise ValueError(
                                f"{path}: a JSON document, not an archive "
                                "(one record a line, as ./mmbench run "
                                "--loads N and measure write them)") from e
                        raise ValueError(f"{path}:{n}: not JSON: "
                                         f"{str(e)[:100]}") from e
                    if not isinstance(rec, dict):
                        raise ValueError(f"{path}:{n}: not a record")
                    kind = rec.get("type")
                    why = _bad_record(rec)
                    if why:
                        raise ValueError(f"{path}:{n}: {why}")
                    key = (kind, str(rec.get("boot")), rec.get("load"),
                           rec.get("row"))
                    if kind in ("run", "row", "load") and key in seen:
                        raise ValueError(
                            f"{path}:{n}: boot {key[1]:.40}'s {kind} "
                            + ("record" if kind == "run" else
                               f"{key[3]} of load {key[2]}"
                               if kind == "row" else f"{key[2]}")
                            + f" again (first at {seen[key]}): the same "
                            "boot twice counts its loads twice")
                    seen[key] = f"{path}:{n}"
                    if kind == "run":
                        runs.append(rec)
                    elif kind == "row":
                        rows.append(rec)
                    elif kind == "load":
                        loads.append(rec)
        if not runs:
            raise ValueError(f"{', '.join(map(str, wheres))}: no run "
                             "record: not an mmbench archive")
        _check_whole(runs, rows, loads, seen)
        return cls(runs, rows, loads, ", ".join(map(str, wheres)))

    def with_tails(self):
        """This archive and, for each row record whose ops were timed alone
        (op_ns), a row <row>+p99: its p99 net of the clock's reads (the
        same load's baseline p50, but the baseline's own), as its median,
        so that compare takes a load's p99 as it takes its median."""
        clock = {(r["boot"], r.get("load")): r["op_ns"]["p50"]
                 for r in self.rows if r.get("row") == "baseline" and
                 (r.get("op_ns") or {}).get("p50") is not None}
        tails = []
        for rec in self.rows:
            p99 = (rec.get("op_ns") or {}).get("p99")
            if p99 is None or rec.get("status") != "pass":
                continue
            net = p99 - (0 if rec["row"] == "baseline" else
                         clock.get((rec["boot"], rec.get("load")), 0))
            tails.append({k: rec.get(k) for k in (
                "type", "boot", "load", "status", "group", "cpu", "context",
                "op_ns_hist")}
                | {"row": rec["row"] + TAIL_ROW, "median": max(net, 0.001),
                   "net": net, "sample_ns": []})
        return Archive(self.runs, self.rows + tails, self.loads, self.name)

    def fingerprint(self):
        """{key: set of values} over the runs; kaslr "on" for runs that do
        not say (guests booted with KASLR before the key was written)."""
        fp = {}
        for run in self.runs:
            for k, v in ({"kaslr": "on"} | run.get("fingerprint", {})).items():
                fp.setdefault(k, set()).add(str(v))
        return fp

    def where(self, boots=None, loads=None):
        """This archive with only the boots in @boots (all if None) and
        each boot's loads 1..@loads (all if None)."""
        def keep(rec):
            return (boots is None or rec.get("boot") in boots) and \
                (loads is None or rec.get("load", 0) <= loads)
        return Archive([r for r in self.runs
                        if boots is None or r.get("boot") in boots],
                       [r for r in self.rows if keep(r)],
                       [x for x in self.loads if keep(x)], self.name)

    def sampling(self):
        """{sampling()} over the runs, and "unknown" when rows come from a
        boot without its run record."""
        out = set()
        for run in self.runs:
            params = run.get("params")
            module = params.get("module") if isinstance(params, dict) \
                else None
            out.add(sampling(module if isinstance(module, list) else []))
        booted = {run.get("boot") for run in self.runs}
        if any(rec.get("boot") not in booted for rec in self.rows):
            out.add("unknown (rows of a boot without its run record)")
        return out

    def medians(self):
        """{(boot, load): {row: median}} of the rows that passed."""
        out = {}
        for rec in self.rows:
            if rec.get("status") == "pass" and rec.get("median"):
                out.setdefault((rec["boot"], rec["load"]), {})[
                    rec["row"]] = rec["median"]
        return out

    def samples(self, row):
        """The kept samples of @row over every load (or the medians,
        when the module published no samples)."""
        out = []
        for rec in self.rows:
            if rec.get("row") == row and rec.get("status") == "pass":
                out += rec.get("sample_ns") or [rec["median"]]
        return out


def sampling(params):
    """"samples=N sample_us=N iterations=N" of the module parameters
    @params (NAME=VALUE), the module's defaults for those not given;
    numbers as the module reads them (samples=011 and samples=0x9 are
    samples=9)."""
    given = dict(str(p).split("=", 1) for p in params if "=" in str(p))
    out = []
    for k, default in SAMPLING:
        v = str(given.get(k, default))
        n = names.kstrtouint(v)
        out.append(f"{k}={v if n is None else n}")
    return " ".join(out)


def differences(a, b):
    """(not comparable, warnings): [(key, a values, b values)] of the
    fingerprint keys in which two archives differ."""
    fa, fb = a.fingerprint(), b.fingerprint()
    fa["sampling"], fb["sampling"] = a.sampling(), b.sampling()
    bad, warn = [], []
    for keys, into in ((COST_KEYS + ("sampling",), bad), (WARN_KEYS, warn)):
        for k in keys:
            va, vb = fa.get(k), fb.get(k)
            if va is not None and vb is not None and va != vb:
                into.append((k, sorted(va), sorted(vb)))
            elif into is bad and len(va or ()) > 1:
                into.append((k, sorted(va), ["(A mixes them)"]))
            elif into is bad and len(vb or ()) > 1:
                into.append((k, ["(B mixes them)"], sorted(vb)))
    return bad, warn
