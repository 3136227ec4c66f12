"""./mmbench bench: how far the figures can be trusted, measured in a guest."""
import base64
import binascii
import re
import statistics
import zlib

RUN_MS = " run_ms"      # a key no row name can take
KLOG = " klog"          # the module's kernel log lines of a load
FAILED = " insmod failed"
# Keys whose value is the rest of the line (it may hold spaces).
REST_KEYS = ("reason", "sample_ns", "klog")
# A row's sysfs files under the short names the figures go by.
SYSFS_KEYS = {"ns_per_op_median": "median", "net_ns_per_op": "net",
              "ns_per_op_mad": "mad", "noise_pct": "noise",
              "samples_dropped": "dropped"}
MODULE_FP = " module fingerprint"
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


def parse(lines):
    """Collect the guest's MMBENCH-BENCH lines.

    Returns (suite, fingerprint, loads): suite {suite_cs, suite_ok},
    fingerprint {key: value}, loads [{row: {status, median, net, mad,
    ...}}], each load's RUN_MS entry its "load" and "run_ms" and KLOG
    its kernel log lines.
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
        m = re.match(r"load=(\d+) sysfs=([^/\s]+)/(\w+)=(.*)$", rest)
        if m:
            load = loads.setdefault(int(m.group(1)), {})
            row, key, value = m.group(2), m.group(3), m.group(4).strip()
            if row == "fingerprint":
                load.setdefault(MODULE_FP, {})[key] = value
            else:
                load.setdefault(row, {})[SYSFS_KEYS.get(key, key)] = value
            continue
        m = re.match(r"load=(\d+) (?:row=(\S+) )?(%s)=(.*)$" %
                     "|".join(REST_KEYS), rest)
        if m:
            load = loads.setdefault(int(m.group(1)), {})
            if m.group(3) == "klog":
                load.setdefault(KLOG, []).append(m.group(4))
            elif m.group(2):
                load.setdefault(m.group(2), {})[m.group(3)] = \
                    m.group(4).strip()
            continue
        # First: a reason is free text, which may hold "row=" or "load=".
        failed = re.match(r"load=(\d+) insmod failed(?:: (.*))?$", rest)
        if failed:
            loads.setdefault(int(failed.group(1)), {})[FAILED] = {
                "load": failed.group(1), "why": failed.group(2) or ""}
            continue
        fields = dict(re.findall(r"(\w+)=(\S+)", rest))
        if "suite_cs" in fields:
            suite = fields
        elif "row" in fields:
            loads.setdefault(int(fields["load"]), {}).setdefault(
                fields["row"], {}).update(fields)
        elif "run_ms" in fields:
            loads.setdefault(int(fields["load"]), {})[RUN_MS] = fields
    return suite, fingerprint, [loads[k] for k in sorted(loads)]


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
        return float(r[key]) if r and r.get("status") == "pass" else None

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
