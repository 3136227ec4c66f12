"""./mmbench lava: the suite as a LAVA job, run here by lava-run.

The job (tooling/lava/mmbench-job.yaml, its test definition inline) and
the device (tooling/lava/qemu-device.yaml) are plain files a lab can use
as they are, but for the kernel and ramdisk urls; this writes a copy of
the job with file:// urls of this host's kernel and of a ramdisk with the
same contents as ./mmbench run's guest (guest.make_initramfs, with the
/init of tooling/lava/init), runs it with lava-run and reads the results
back from lava-run's log.
"""
import json
import lzma
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from . import arch as archmod, deps, guest, ktap
from .common import OUT, REPO, Failure, Phase, say
from .setup import Setup, report

LAVA_FILES = REPO / "tooling" / "lava"
JOB = LAVA_FILES / "mmbench-job.yaml"
DEVICE = LAVA_FILES / "qemu-device.yaml"
INIT = LAVA_FILES / "init"
# The test definition's name, and so its test suite's in LAVA's results
# (which prefixes it with the definition's index: 0_mmbench).
DEFINITION = "mmbench"
# libguestfs builds its appliance once (about 50 s) and keeps it here.
GUESTFS_CACHE = OUT / "lava" / "guestfs-cache"
# Modules the ramdisk loads before LAVA mounts its overlay disk.
RAMDISK_MODULES = ["kernel/drivers/block/virtio_blk.ko"]

PACKAGES = {
    "lava-dispatcher": "lava-run, which runs a LAVA job here without a "
                       "lava-server (./mmbench lava)",
    "lava-common": "the job and device schemas lava-run checks",
    "python3-guestfs": "lava-run packs its test overlay into a disk image "
                       "with libguestfs",
}

AWK_BEGIN = "cat >/tmp/mmbench-lava.awk <<'MMBENCH_AWK'"
AWK_END = "MMBENCH_AWK"


def case_name(name):
    """A LAVA test case name for a row or case name: the characters
    LAVA's names take ([-_.a-zA-Z0-9]) kept, any other ('+') made '.'."""
    return re.sub(r"[^-_.a-zA-Z0-9]", ".", name)


def row_case(row):
    """The test case of a row's functional verdict: mmbench.<row>."""
    return case_name("mmbench." + row)


def measurement_case(row):
    """The test case of a row's median ns/op: mmbench.<row>.ns_per_op."""
    return row_case(row) + ".ns_per_op"


def awk_program(job_text=None):
    """The awk program of the job's test definition, as the guest writes
    it to /tmp/mmbench-lava.awk (the heredoc of its step)."""
    lines = (job_text if job_text is not None else JOB.read_text()
             ).splitlines()
    for i, line in enumerate(lines):
        if line.strip() == AWK_BEGIN:
            indent = line[:len(line) - len(line.lstrip())]
            body = []
            for inner in lines[i + 1:]:
                if inner.strip() == AWK_END:
                    return "\n".join(body) + "\n"
                body.append(inner[len(indent):] if inner.startswith(indent)
                            else inner.strip())
    raise Failure(f"{JOB}: no awk program between {AWK_BEGIN!r} and "
                  f"{AWK_END!r}")


def device_text(cpus, memory, text=None):
    """The device file with a guest of @cpus CPUs and @memory MiB (the
    job's context says 2 and 1024 to a lab's server)."""
    text = text if text is not None else DEVICE.read_text()
    for opt, value in (("smp", cpus), ("m", memory)):
        text, n = re.subn(rf"(\n\s+- -{opt} )\d+\n",
                          lambda m: f"{m.group(1)}{value}\n", text)
        if n != 1:
            raise Failure(f"{DEVICE}: no QEMU option -{opt}")
    return text


def _set_params(block, params):
    """The definition @block with MMBENCH_PARAMS @params."""
    if re.search(r"[\\'\n]", params):
        raise Failure(f"module parameters {params!r}: no quote, backslash "
                      "or newline in a job's parameter")
    old = "          MMBENCH_PARAMS: ''\n"
    if old not in block:
        raise Failure(f"{JOB}: no MMBENCH_PARAMS in the definition's params")
    return block.replace(old, f"          MMBENCH_PARAMS: '{params}'\n", 1)


def job_text(kernel_url, ramdisk_url, params="", text=None):
    """The job with @kernel_url and @ramdisk_url, and @params as the
    definition's MMBENCH_PARAMS."""
    text = text if text is not None else JOB.read_text()
    start = text.index("    - from: inline\n")
    template = text[start:]
    if params:
        text = text[:start] + _set_params(template, params)
    for image, url in (("kernel", kernel_url), ("ramdisk", ramdisk_url)):
        text, n = re.subn(rf"(\n(\s+){image}:\n(?:\2\s+.*\n)*?\2\s+url: )"
                          r"\S+", lambda m: m.group(1) + url, text, count=1)
        if n != 1:
            raise Failure(f"{JOB}: no url of the {image}")
    return text


# YAML's non-specific tag, which lava-run's log puts before a quoted
# scalar that is not a string (a line number, a measurement): ! "1.005"
NON_SPECIFIC_TAG = re.compile(r'(?<=[:,\[] )! (?=")')


def log_messages(text, level):
    """The "msg" of each line of lava-run's log at @level.  A line is a
    YAML flow mapping with every scalar double-quoted, which JSON reads
    once the non-specific tags ("! ") are dropped; "- " before it in a
    job's log file, not on lava-run's stdout."""
    found = []
    for line in text.splitlines():
        line = line[2:] if line.startswith("- {") else line
        if not line.startswith("{") or f'"lvl": "{level}"' not in line:
            continue
        try:
            found.append(json.loads(NON_SPECIFIC_TAG.sub("", line))["msg"])
        except (ValueError, KeyError, TypeError):
            continue
    return found


def parse_log(text):
    """The results of lava-run's log: [{definition, case, result,
    measurement?, units?, ...}], in order."""
    return [msg for msg in log_messages(text, "results")
            if isinstance(msg, dict) and "case" in msg]


def target_lines(text):
    """What the guest printed, from lava-run's log ("target" lines)."""
    return [msg for msg in log_messages(text, "target")
            if isinstance(msg, str)]


def suite(results, definition):
    """{case: result dict} of one definition's test suite; LAVA names the
    suite <index>_<definition name>."""
    return {r["case"]: r for r in results
            if re.fullmatch(rf"\d+_{re.escape(definition)}",
                            str(r.get("definition", "")))}


def expected_rows(runner_lines):
    """{row: result} that the rows of the suite's output must arrive
    with, from the host's own reading of the KTAP (ktap.figures): a row
    the module failed fails, one unsupported or noisy here skips, one it
    passed passes when its case passed.  Rows whose case failed or
    skipped are left out (the test definition decides those)."""
    inner = ktap.inner_ktap(runner_lines)
    cases = {}
    owner, n = {}, 1
    for line in inner:
        m = ktap.RESULT.match(line)
        if m:
            cases[n] = "skip" if m.group(4) == "SKIP" else \
                "pass" if m.group(1) == "ok" else "fail"
            n += 1
            continue
        m = ktap.FIGURE.match(line)
        if m and m.group(2) == "status":
            owner.setdefault(m.group(1), n)
    want = {}
    for row, f in ktap.figures(inner).items():
        if "status" not in f:
            continue
        status, case = f["status"], cases.get(owner.get(row))
        if status in ("fail", "error"):
            want[row] = "fail"
        elif status in ("unsupported", "noisy"):
            want[row] = "skip"
        elif case is None:
            want[row] = "fail"
        elif status == "pass" and case == "pass":
            want[row] = "pass"
    return want


def check_suite(results, definition, runner_lines):
    """Checks that every row of the suite's output arrived in LAVA's
    results as a test case with its result, and with its median as a
    measurement in ns when the module passed it."""
    cases = suite(results, definition)
    table = ktap.figures(ktap.inner_ktap(runner_lines))
    rows = [row for row, f in table.items() if "status" in f]
    want = expected_rows(runner_lines)
    missing = [row for row in rows if row_case(row) not in cases]
    wrong = [f"{row_case(row)} {cases[row_case(row)]['result']} (want "
             f"{want[row]})" for row in rows
             if row in want and row_case(row) in cases and
             cases[row_case(row)]["result"] != want[row]]
    passed = [row for row in rows if table[row]["status"] == "pass"]

    def unmeasured(rows, suffix, key):
        """The cases <row><suffix> of @rows that did not arrive with the
        KTAP's figure @key as a measurement in ns."""
        out = []
        for row in rows:
            case = cases.get(row_case(row) + suffix, {})
            try:
                ok = (case.get("units") == "ns" and
                      abs(float(case["measurement"]) -
                          float(table[row][key])) < 0.0015)
            except (KeyError, ValueError):
                ok = False
            if not ok:
                out.append(row_case(row) + suffix)
        return out
    tails = [row for row in passed
             if re.fullmatch(r"[0-9]+(\.[0-9]+)?",
                             table[row].get("op_ns_p99", ""))]
    unmedianed = unmeasured(passed, ".ns_per_op", "ns_per_op_median")
    untailed = unmeasured(tails, ".op_ns_p99", "op_ns_p99")
    ktap_cases = {case_name(r[2]): "skip" if r[3] == "SKIP" else
                  "pass" if r[0] else "fail"
                  for r in ktap.results(ktap.inner_ktap(runner_lines))}
    verdict = ktap.runner_verdict(runner_lines) or ""
    ktap_cases["mmbench_test"] = (
        "fail" if not verdict.startswith("ok ") else
        "skip" if "# SKIP" in verdict else "pass")
    differ = [f"{case} {cases.get(case, {}).get('result', 'missing')} "
              f"(KTAP: {want})" for case, want in ktap_cases.items()
              if cases.get(case, {}).get("result") != want]
    return [
        (bool(rows) and not missing,
         f"LAVA {definition}: every row ({len(rows)}) arrives as a test "
         "case", "missing: " + ", ".join(missing[:5]) if rows else
         "no row in the suite's output"),
        (bool(rows) and not wrong,
         f"LAVA {definition}: each row's test case has its result",
         "; ".join(wrong[:5])),
        (bool(passed) and not unmedianed,
         f"LAVA {definition}: each measured row ({len(passed)}) arrives "
         "with its median as a measurement in ns",
         "wrong or missing: " + ", ".join(unmedianed[:5])),
        (not untailed,
         f"LAVA {definition}: each row with a p99 ({len(tails)}) arrives "
         "with it as a measurement in ns",
         "wrong or missing: " + ", ".join(untailed[:5])),
        (not differ,
         f"LAVA {definition}: each kselftest case ({len(ktap_cases) - 1}) "
         "and the program arrive with their KTAP result (mmbench_test "
         f"{ktap_cases['mmbench_test']})", "; ".join(differ[:5])),
    ]


def runner_output(target, definition_index):
    """The @definition_index'th (from 0) run_kselftest.sh output of the
    guest's lines."""
    runs, current = [], None
    for line in target:
        if line.startswith("# selftests: mm/mmbench: mmbench_test"):
            current = [line]
            runs.append(current)
        elif current is not None:
            current.append(line)
            if re.match(r"^(not )?ok \d+ selftests: mm/mmbench: ", line):
                current = None
    return runs[definition_index] if definition_index < len(runs) else []


def ramdisk_modules(release, dest):
    """The modules of RAMDISK_MODULES of the kernel @release, unpacked
    into @dest (busybox's insmod reads no .xz): {guest path: host path}.
    One built in is left out."""
    moddir = Path("/lib/modules") / release
    builtin = (moddir / "modules.builtin").read_text() \
        if (moddir / "modules.builtin").exists() else ""
    files = {}
    for rel in RAMDISK_MODULES:
        if rel in builtin.split():
            continue
        for suffix, opener in (("", open), (".xz", lzma.open)):
            src = moddir / (rel + suffix)
            if src.exists():
                out = dest / Path(rel).name
                with opener(src, "rb") as f:
                    out.write_bytes(f.read())
                files[f"/mmbench/lava-modules/{out.name}"] = out
                break
        else:
            raise Failure(f"{moddir / rel}[.xz]: not there; the ramdisk "
                          "needs it to mount LAVA's overlay disk")
    return files


def make_ramdisk(setup, work):
    """The ramdisk: ./mmbench run's guest, with LAVA's /init."""
    files = {"/init": INIT}
    files.update(ramdisk_modules(setup.release, work))
    # The module parameters go in the job (MMBENCH_PARAMS of the test
    # definition); the rest of the test program's environment in the
    # ramdisk's /mmbench/guest.conf, which /init reads.
    _, env, more = setup.guest_env()
    files.update(more)
    image = guest.make_initramfs(setup.release, setup.ko, setup.kselftest,
                                 "lava", "", env, work, files)
    return image


def stop(proc):
    """Stop @proc and its session, if still running: SIGTERM (lava-run
    then cleans up after the job), SIGKILL 20 s later."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            pass


def run_job(setup, results):
    """Write the device and job files into @results and run the job with
    lava-run, stopped after --timeout seconds; returns (lava-run's exit
    status, None when it was stopped, and its log text)."""
    with Phase("packages (LAVA)"):
        deps.ensure(PACKAGES)
    work = results / "lava"
    work.mkdir(parents=True, exist_ok=True)
    with Phase("ramdisk"):
        ramdisk = make_ramdisk(setup, work)
    device = work / "device.yaml"
    device.write_text(device_text(setup.args.cpus, setup.args.memory))
    job = work / "job.yaml"
    params, _, _ = setup.guest_env()
    job.write_text(job_text(f"file://{setup.kernel}", f"file://{ramdisk}",
                            " ".join(params)))
    GUESTFS_CACHE.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, LIBGUESTFS_CACHEDIR=str(GUESTFS_CACHE),
               LIBGUESTFS_BACKEND="direct")
    # libguestfs boots its appliance with KVM whenever /dev/kvm is there:
    # where KVM does not work (nested, as here), it would hang.
    if setup.args.accel == "tcg" or (setup.args.accel == "auto" and
                                     not guest.kvm_works(setup.kernel)):
        env["LIBGUESTFS_BACKEND_SETTINGS"] = "force_tcg"
    timeout = setup.args.timeout
    job_id = f"mmbench-{os.getpid()}-{int(time.time())}"
    cmd = ["lava-run", "--job-id", job_id, "--output-dir",
           str(work / "output"), "--device", str(device), str(job)]
    say("lava-run: " + " ".join(cmd))
    log = work / "lava-run.log"
    with Phase("lava-run"), open(log, "w") as f:
        try:
            # A session of its own: what it starts (QEMU, libguestfs's
            # appliance) is stopped with it.
            proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                    stdout=f, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        except FileNotFoundError as e:
            raise Failure(f"lava-run: not found ({e})") from e
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            rc = None
            say(f"lava-run ran for more than {timeout} s and was stopped")
        finally:
            stop(proc)
    text = log.read_text(errors="replace")
    say(f"lava-run's log: {log}")
    return rc, text


def job_checks(rc, text):
    """The checks of a job's log: it completed and the suite's rows
    arrived."""
    results = parse_log(text)
    target = target_lines(text)
    job = [r for r in results if r.get("definition") == "lava" and
           r.get("case") == "job"]
    checks = [(rc == 0 and bool(job) and job[-1].get("result") == "pass",
               "LAVA: lava-run completed the job",
               f"exit {rc}; job result "
               f"{job[-1].get('result') if job else 'missing'}: "
               f"{job[-1].get('error_msg', '') if job else ''}")]
    checks += check_suite(results, DEFINITION, runner_output(target, 0))
    return checks


def sample(results, definition=DEFINITION, limit=None):
    """Lines of a suite's results, as lavacli results prints them."""
    lines = []
    for r in list(suite(results, definition).values())[:limit]:
        line = f"  {r['case']}: {r['result']}"
        if "measurement" in r:
            line += f" ({r['measurement']} {r.get('units', '')})".rstrip()
        lines.append(line)
    return lines


def lava_guest(setup):
    """The suite as a LAVA job run by lava-run, on the kernel and with
    the module and kselftest of @setup.  Returns the checks and the
    results folder."""
    results = guest.results_dir("-lava")
    rc, text = run_job(setup, results)
    with Phase("results"):
        checks = job_checks(rc, text)
    return checks, results, parse_log(text)


def cmd_lava(args):
    setup = Setup(args)
    if args.kernel or args.debug_kernel or setup.arch is not archmod.X86_64:
        raise Failure("./mmbench lava runs the job on Debian's stock 6.12 "
                      "cloud kernel for x86_64: not with --kernel, "
                      "--debug-kernel or --arch")
    if args.accel in ("kvm", "icount"):
        raise Failure("./mmbench lava's device runs QEMU under TCG (its "
                      "qemu command has neither KVM's nor -icount's "
                      f"options): not with --accel {args.accel}")
    setup.prepare()
    checks, results, found = lava_guest(setup)
    Phase.report()
    say(f"LAVA's results of test suite 0_{DEFINITION} (case: result "
        "(measurement units)):")
    for line in sample(found):
        print(line, flush=True)
    good = report(checks)
    say(f"results in {results / 'lava'} (job.yaml, device.yaml, "
        "lava-run.log)")
    return 0 if good else 1
