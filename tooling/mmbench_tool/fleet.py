"""The figures of an archive in the fleets' formats (tooling/doc/ci.md,
"Metric names"): LAVA test cases (name, result, measurement, units), KCIDB-like
JSON, LKP-like "key: value" stats."""
import json
import statistics

from .archive import TAIL_ROW

FORMATS = ("lava", "kcidb", "lkp")
# As the LAVA job: noisy is the machine's, not the kernel's.
RESULTS = {"pass": "pass", "unsupported": "skip", "noisy": "skip"}  # else: fail
KCIDB_STATUS = {"pass": "PASS", "skip": "SKIP", "fail": "FAIL"}


def metric_row(row):
    """A row's name in a metric: '+' (of the injected-delay rows, in an
    archive of an older module) written '.', as the LAVA job writes it
    (lava.case_name())."""
    return row.replace("+", ".")


def summary(arch):
    """Per row: (result, median ns/op, median net ns/op, median noise %)
    over the archive's loads; the result is the worst over the loads
    (fail over skip over pass), the figures the median over the loads
    that passed."""
    rows = {}
    for rec in arch.rows:
        rows.setdefault(rec["row"], []).append(rec)
    out = {}
    for row, recs in sorted(rows.items()):
        results = {RESULTS.get(r.get("status"), "fail") for r in recs}
        result = "fail" if "fail" in results else \
            "skip" if "skip" in results and "pass" not in results else "pass"
        passed = [r for r in recs if r.get("status") == "pass"]

        def med(key):
            vals = [r[key] for r in passed if r.get(key) is not None]
            return statistics.median(vals) if vals else None
        out[row] = (result, med("median"), med("net"), med("noise"))
    return out


def cases(arch):
    """[(name, result, measurement, units)], the LAVA test cases: one
    per row, and one per figure of a row that passed; op_ns_p99: the
    median of its loads' p99 of ops timed alone, net of the clock's
    reads (compare's <row>+p99 row)."""
    out = []
    tails = summary(arch.with_tails())
    for row, (result, median, net, noise) in summary(arch).items():
        if row.endswith(TAIL_ROW):
            continue
        name = f"mmbench.{metric_row(row)}"
        out.append((name, result, None, None))
        p99 = tails.get(row + TAIL_ROW, (None, None))[1]
        for suffix, value, units in (("ns_per_op", median, "ns"),
                                     ("net_ns_per_op", net, "ns"),
                                     ("noise_pct", noise, "%"),
                                     ("op_ns_p99", p99, "ns")):
            if value is not None and result == "pass":
                out.append((f"{name}.{suffix}", "pass", round(value, 3),
                            units))
    return out


def lava(arch):
    """lava-test-case commands, one a line, as a LAVA test definition's
    run steps would call them."""
    lines = []
    for name, result, measurement, units in cases(arch):
        line = f"lava-test-case {name} --result {result}"
        if measurement is not None:
            line += f" --measurement {measurement} --units {units}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def evidence(arch):
    """Per row, what its figures rest on: the loads that passed, their
    kept samples in all, and slow_ops where slow_into slowed the row
    (the module's test-only known regression)."""
    out = {}
    for rec in arch.rows:
        if rec.get("status") != "pass":
            continue
        e = out.setdefault(metric_row(rec["row"]), {"loads": 0,
                                                    "samples": 0})
        e["loads"] += 1
        e["samples"] += rec.get("samples") or 0
        if rec.get("slow_ops"):
            e["slow_ops"] = rec["slow_ops"]
    return out


def kcidb(arch):
    """KCIDB JSON, schema v4.3: a test per case, the measurement in
    misc.measurement and misc.units (v4.3 has no numeric field of its
    own: "number" came in a later version) beside what it rests on
    (evidence()); the CPU in environment.comment, the fingerprint and
    the module's parameters in environment.misc (v4.3's environment has
    only those two)."""
    run = arch.runs[0]
    fp = run.get("fingerprint", {})
    env = {k: fp[k] for k in sorted(fp)}
    module = (run.get("params") or {}).get("module")
    if module:
        env["module_params"] = " ".join(module)
    rests = evidence(arch)
    origin = "mmbench"
    build = f"{origin}:{fp.get('release', 'unknown')}"
    tests = []
    for name, result, measurement, units in cases(arch):
        t = {"id": f"{origin}:{run.get('boot', 'unknown')}:{name}",
             "origin": origin, "build_id": build, "path": name,
             "status": KCIDB_STATUS[result], "environment": {"misc": env}}
        if fp.get("cpu_model"):
            t["environment"]["comment"] = fp["cpu_model"]
        if measurement is not None:
            row = name[len("mmbench."):].rsplit(".", 1)[0]
            t["misc"] = {"measurement": measurement, "units": units,
                         **rests.get(row, {})}
        tests.append(t)
    return json.dumps({"version": {"major": 4, "minor": 3},
                       "tests": tests}, indent=1) + "\n"


def lkp(arch):
    """LKP-like stats: "mmbench.<row>.<figure>: value", one a line."""
    lines = []
    for name, result, measurement, _units in cases(arch):
        if measurement is not None:
            lines.append(f"{name}: {measurement}")
        else:
            lines.append(f"{name}.{result}: 1")
    return "\n".join(lines) + "\n"


def render(arch, fmt):
    return {"lava": lava, "kcidb": kcidb, "lkp": lkp}[fmt](arch)
