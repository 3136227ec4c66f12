"""./mmbench bench: how far the figures can be trusted, measured in a guest."""
import base64
import binascii
import re
import statistics
import zlib

from . import names
from .common import REPO, Failure

RUN_MS = " run_ms"      # a key no row name can take
FAILED = " insmod failed"
MODULE_FP = " module fingerprint"  # the module's own files (preempt)
# The archive's words for the module's causes of a dropped sample (a
# row's samples_dropped lists one a sample).
DROP_CAUSES = {"preempt": "preempted", "migrate": "migrated",
               "steal": "stolen"}
# A row's group is its benchmark's in the kselftest's cases; those it has
# no case of are calibration, as the module's groups were.
TEST_SOURCE = REPO / "tools/testing/selftests/mm/mmbench/mmbench_test.c"
UNCASED_GROUPS = {"baseline": "calibration", "ndelay": "calibration"}
# bench.sh sends a load's lines gzipped and in base64 between these: the
# serial port took ~10 us a byte under TCG, a third of a load's time.
GZ_BEGIN = "MMBENCH-GZ-BEGIN"
GZ_END = "MMBENCH-GZ-END"


class Unpacker:
    """Turns the guest's lines into what it meant to say: a GZ_BEGIN ..
    GZ_END block becomes its unpacked lines, any other line is itself.
    A block that cannot be unpacked becomes a "MMBENCH-GZ-ERROR <why>"
    line followed by the lines as they came, so nothing is lost."""

    def __init__(self):
        self.block = None

    def _bad(self, why):
        out = [f"MMBENCH-GZ-ERROR {why}", GZ_BEGIN] + self.block
        self.block = None
        return out

    def feed(self, line):
        """The lines @line stands for: none inside a block, the block's
        at its end."""
        if line.startswith(GZ_BEGIN):
            out = self._bad("a block began inside another") \
                if self.block is not None else []
            self.block = []
            return out
        if self.block is None:
            return [line]
        if not line.startswith(GZ_END):
            if re.fullmatch(r"[A-Za-z0-9+/=]*", line.strip()):
                self.block.append(line.strip())
                return []
            # Not base64: the block was cut short (a guest that died).
            return self._bad("the block was cut short") + [line]
        data = "".join(self.block)
        try:
            text = zlib.decompress(base64.b64decode(data, validate=True),
                                   wbits=16 + zlib.MAX_WBITS)
        except (binascii.Error, ValueError, zlib.error) as e:
            return self._bad(f"{len(data)} characters: {e}") + [line]
        self.block = None
        return text.decode(errors="replace").splitlines()

    def close(self):
        """The lines of a block still open when the guest's output
        ended: an error line and the block as it came."""
        if self.block is None:
            return []
        return self._bad("the output ended inside a block")


def unpack(lines):
    """@lines with their GZ blocks unpacked (see Unpacker)."""
    u = Unpacker()
    for line in lines:
        yield from u.feed(line)
    yield from u.close()


def groups(source=TEST_SOURCE):
    """{benchmark: group} as the kselftest's cases name them
    (FIXTURE_VARIANT_ADD(mmbench, <name>) { "<name>", "<group>" }), and
    UNCASED_GROUPS."""
    found = dict(re.findall(r'^FIXTURE_VARIANT_ADD\(mmbench, \w+\) '
                            r'\{ "(\w+)", "(\w+)" \};', source.read_text(),
                            re.M))
    if not found:
        raise Failure(f"{source}: no FIXTURE_VARIANT_ADD(mmbench, ...) "
                      "case naming its group")
    return UNCASED_GROUPS | found


def _ints(text):
    """The whole numbers of the space-separated @text; None if a word is
    not one."""
    words = (text or "").split()
    return [int(w) for w in words] if all(w.isdigit() for w in words) \
        else None


def _per_op(text, ops):
    """The samples of @text (whole-sample figures) per op, in integer
    thousandths rounded as the kselftest rounds them; [] when there are
    none or @ops is not a count of ops."""
    values = _ints(text)
    if not values or not ops:
        return []
    return [(x * 1000 + ops // 2) // ops for x in values]


def median_of(values):
    """The median of whole numbers @values (the mean of the middle two
    for an even count, truncated as the kselftest's median_of())."""
    return (statistics.median_low(values) +
            statistics.median_high(values)) // 2


def mad_of(values):
    """The median absolute deviation of @values from their median."""
    mid = median_of(values)
    return median_of([abs(x - mid) for x in values])


# The percentiles of a row's ops timed alone (op_ns_hist), by key.
TAIL = {"p50": 500, "p90": 900, "p99": 990, "p99_9": 999}    # per mille


def bucket_low(i):
    """The least ns of op_ns_hist's bucket @i: @i under 32, then
    (16 + j) << e for bucket 16 * (e + 1) + j (lib/test_mmbench.c's
    mmbench_bucket())."""
    return i if i < 32 else (i - 16 * (i // 16 - 1)) << (i // 16 - 1)


def tail(text):
    """{"alone": N, p50 .. p99_9, "max": ns} of a row's op_ns_hist @text
    (the slowest op's ns, then each bucket's count), or None with no op:
    as mmbench_test.c's read_tail() computes them, in ps (a percentile
    within its bucket, where its rank falls among the bucket's ops; the
    1 ns buckets under 32 not interpolated; never past the slowest), and
    a percentile only with an op past it (p99: 100 ops)."""
    try:
        slowest, *counts = [int(w) for w in (text or "").split()]
    except ValueError:
        return None
    ops = sum(counts)
    if not ops or min(counts) < 0 or slowest < 0:
        return None
    top = min(slowest, 1 << 40)
    out = {"alone": ops}
    seen = 0
    for i, n in enumerate(counts):
        lo = bucket_low(i)
        hi = lo if i < 32 else min(bucket_low(i + 1), top)
        for key, per_mille in TAIL.items():
            if key not in out and n and (seen + n) * 1000 >= per_mille * ops:
                at = max(per_mille * ops - seen * 1000 - 500, 0)
                out[key] = (lo * 1000 + (hi - lo) * at // n) / 1000
        seen += n
    out = {k: v for k, v in out.items()
           if k not in TAIL or ops * (1000 - TAIL[k]) >= 1000}
    out["max"] = float(top)
    return out


def hist(text):
    """[[least ns, ops], ...] of the buckets of a row's op_ns_hist @text
    that hold ops, in order; None with no op (as tail())."""
    try:
        counts = [int(w) for w in (text or "").split()][1:]
    except ValueError:
        return None
    if not sum(counts) or min(counts) < 0:
        return None
    return [[bucket_low(i), n] for i, n in enumerate(counts) if n]


def row_figures(name, files, base=None, table=None, benches=None):
    """Row @name's figures from its lean sysfs @files {file: text} and those
    of the load's baseline row @base: the per-op samples (ns), min,
    median, MAD (ns/op), noise (%, with 3 samples or more, else None),
    net ns/op and net cycles/op over the baseline's (None without it),
    the counts kept and dropped and the drops by cause, its group (the
    kselftest's table, @table: groups()) and CPUs.  The statistics
    mmbench_test.c computes for its KTAP (Documentation/dev-tools/
    mmbench.rst), as it does: in integer thousandths of ns (ps), then in
    ns."""
    def ops(f):
        return int(f.get("ops_per_sample", "")) \
            if f.get("ops_per_sample", "").isdigit() else 0

    ns = _per_op(files.get("sample_ns"), ops(files))
    base = base or {}
    base_ns = _per_op(base.get("sample_ns"), ops(base))
    cycles = _per_op(files.get("sample_cycles"), ops(files))
    base_cycles = _per_op(base.get("sample_cycles"), ops(base))
    why = files.get("samples_dropped", "").split()
    out = {"status": files.get("status"), "reason": files.get("reason", ""),
           "context": files.get("context"), "cpu": files.get("cpus"),
           "ops_per_sample": ops(files) if "ops_per_sample" in files
           else None, "samples": len(ns) if "sample_ns" in files else None,
           "dropped": len(why) if "samples_dropped" in files else None,
           "dropped_why": {}, "sample_ns": [v / 1000 for v in ns],
           "min": None, "median": None, "mad": None, "noise": None,
           "net": None, "net_cycles": None, "slow_ops": files.get("slow_ops"),
           "op_ns": tail(files.get("op_ns_hist")),
           "op_ns_hist": hist(files.get("op_ns_hist"))}
    if "samples_dropped" in files:
        out["dropped_why"] = {c: 0 for c in DROP_CAUSES.values()}
        for word in why:
            cause = DROP_CAUSES.get(word, word)
            out["dropped_why"][cause] = out["dropped_why"].get(cause, 0) + 1
    out["group"] = (groups() if table is None else table).get(
        names.bench_of(name, names.benchmarks() if benches is None
                       else benches))
    if not ns:
        # The kselftest's verdict: a row that passed with no sample kept.
        if out["status"] == "pass":
            d = out["dropped_why"]
            out["status"] = "noisy"
            out["reason"] = "; ".join(filter(None, (
                f"no sample kept: {len(why)} dropped ({d['preempted']} "
                f"preempted, {d['migrated']} migrated, {d['stolen']} with "
                "steal time)" if why else
                "budget_ms ran out before a sample was kept",
                out["reason"])))
        return out
    median, mad = median_of(ns), mad_of(ns)
    out.update(min=min(ns) / 1000, median=median / 1000, mad=mad / 1000)
    if len(ns) >= 3 and median > 0:
        out["noise"] = (mad * 100000 // median) / 1000
    if base_ns:
        out["net"] = (median - median_of(base_ns)) / 1000
    if base_ns and len(cycles) == len(ns) and len(base_cycles) == len(base_ns):
        out["net_cycles"] = (median_of(cycles) - median_of(base_cycles)) / 1000
    return out


def parse(lines):
    """Collect the guest's MMBENCH-BENCH lines.

    Returns (suite, fingerprint, loads): suite {suite_cs, suite_ok},
    fingerprint {key: value} (the kselftest's), loads [{row: figures}]
    (row_figures() of each row's sysfs files), each load's RUN_MS entry
    its "load" and "run_ms", MODULE_FP the module's top-level files and
    FAILED why insmod failed.
    """
    suite, fingerprint, loads = {}, {}, {}
    for line in unpack(lines):
        if not line.startswith("MMBENCH-BENCH "):
            continue
        rest = line[len("MMBENCH-BENCH "):]
        if rest.startswith("fingerprint "):
            key, _, value = rest[len("fingerprint "):].partition("=")
            fingerprint[key] = value
            continue
        # A row's file (<row>/<file>), or the module's own (<file>).
        m = re.match(r"load=(\d+) sysfs=(?:([^/\s]+)/)?(\w+)=(.*)$", rest)
        if m:
            load = loads.setdefault(int(m.group(1)), {})
            row, key, value = m.group(2), m.group(3), m.group(4).strip()
            if row is None:
                load.setdefault(MODULE_FP, {})[key] = value
            else:
                load.setdefault(row, {})[key] = value
            continue
        # First: a reason is free text, which may hold "load=".
        failed = re.match(r"load=(\d+) insmod failed(?:: (.*))?$", rest)
        if failed:
            loads.setdefault(int(failed.group(1)), {})[FAILED] = {
                "load": failed.group(1), "why": failed.group(2) or ""}
            continue
        fields = dict(re.findall(r"(\w+)=(\S+)", rest))
        if "suite_cs" in fields:
            suite = fields
        elif "run_ms" in fields and "load" in fields:
            loads.setdefault(int(fields["load"]), {})[RUN_MS] = fields
    table = benches = None
    out = []
    for k in sorted(loads):
        raw = loads[k]
        if table is None and any(not r.startswith(" ") for r in raw):
            table, benches = groups(), names.benchmarks()
        base = raw.get("baseline")
        out.append({r: row_figures(r, raw[r], base, table, benches)
                    if not r.startswith(" ") else raw[r] for r in raw})
    return suite, fingerprint, out


def parse_prefixed(lines, prefix):
    """{key: value} of the "MMBENCH-BENCH <prefix>key=value" lines."""
    out = {}
    for line in unpack(lines):
        if line.startswith("MMBENCH-BENCH " + prefix):
            key, _, value = line[len("MMBENCH-BENCH " + prefix):] \
                .partition("=")
            out[key] = value.strip()
    return out


def _cv(values):
    if len(values) < 2 or not statistics.mean(values):
        return float("nan")
    return 100 * statistics.stdev(values) / statistics.mean(values)


def report(suite, fingerprint, loads):
    """Print the figures; return them as text lines for the results file."""
    out = []

    def line(text=""):
        out.append(text)
        print(text, flush=True)

    line(f"kernel {fingerprint.get('release', '?')}, preempt "
         f"{fingerprint.get('preempt', '?')}, hypervisor "
         f"{fingerprint.get('hypervisor', '?')}, emulated "
         f"{fingerprint.get('emulated', '?')}, debug "
         f"{fingerprint.get('debug', '?')}")
    if suite:
        line(f"default suite wall time in the guest: "
             f"{int(suite['suite_cs']) / 100:.2f} s "
             f"({'passed' if suite.get('suite_ok') == '1' else 'FAILED'})")
    if not loads:
        line("no module load produced figures")
        return out
    runs = [float(ld[RUN_MS]["run_ms"]) for ld in loads if RUN_MS in ld]
    if runs:
        line(f"module run with the benchmarks selected: "
             f"{statistics.mean(runs):.0f} ms mean over {len(runs)} loads")

    def med(ld, row, key="median"):
        r = ld.get(row)
        return r.get(key) if r and r.get("status") == "pass" else None

    base = [m for m in (med(ld, "baseline") for ld in loads) if m is not None]
    if base:
        line(f"baseline (empty loop): {statistics.mean(base):.3f} ns/op, "
             f"CV {_cv(base):.1f} % over {len(base)} loads")

    delays = sorted({int(r[len("ndelay_"):]) for ld in loads for r in ld
                     if re.fullmatch(r"ndelay_\d+", r)})
    if len(delays) > 1:
        line("ndelay slope error (measured rise / nominal rise - 1), per "
             "load:")
    for lo, hi in zip(delays, delays[1:]):
        errs = []
        for ld in loads:
            a, b = med(ld, f"ndelay_{lo}", "net"), med(ld, f"ndelay_{hi}",
                                                         "net")
            if a is not None and b is not None:
                errs.append(100 * ((b - a) / (hi - lo) - 1))
        judged = "" if lo else " (not judged: ndelay(0) costs mostly its call)"
        if errs:
            line(f"  {lo:>5} -> {hi:<5} ns: mean {statistics.mean(errs):+6.1f} %"
                 f", min {min(errs):+6.1f} %, max {max(errs):+6.1f} %{judged}")
    line("median ns/op per benchmark over the loads (CV of the medians):")
    rows = sorted(r for r in loads[0] if not r.startswith(" "))
    width = max(len(r) for r in rows)
    for row in rows:
        vals = [m for m in (med(ld, row) for ld in loads) if m is not None]
        if vals:
            line(f"  {row:<{width}}  {statistics.mean(vals):10.3f}  CV "
                 f"{_cv(vals):5.1f} %  ({len(vals)} loads)")
        else:
            line(f"  {row:<{width}}  no passing load")
    return out
