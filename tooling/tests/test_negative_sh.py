"""tooling/guest/negative.sh and isolated.sh against the lean module: the
plan counts the cases, the sysfs files and parameters they read are the
module's (with the knobs patch), the messages they expect are its words;
and the helpers of negative.sh that judge a slow_into case: a row short of
its margin by less than the host moved alu_chain between two loads alike
is the host's (SKIP); short by more, the kernel's."""
import re
import shutil
import subprocess
import unittest

import support

NEGATIVE_SH = support.TOOLING / "guest" / "negative.sh"
ISOLATED_SH = support.TOOLING / "guest" / "isolated.sh"
MODULE = support.REPO / "lib" / "test_mmbench.c"
KNOBS = support.TOOLING / "kernel" / "patches" / "test_mmbench-knobs.patch"
NAMES = ("least", "over", "spread", "within", "rows_within")


def module_source():
    """lib/test_mmbench.c and the lines the knobs patch adds."""
    added = [line[1:] for line in KNOBS.read_text().splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    return MODULE.read_text() + "\n" + "\n".join(added)


def row_files():
    """The files of a row's directory, and those at the top."""
    src = module_source()
    listed = re.search(r"mmbench_row_attrs\[\] = \{(.*?)\};", src, re.S)
    rows = set(re.findall(r"&(\w+)_attr\.attr", listed.group(1)))
    top = set(re.findall(r"^static struct kobj_attribute (\w+)_attr = "
                         r"__ATTR_RO\(\1\);", src, re.M)) - rows
    return rows, top


def parameters():
    """Every parameter of the module with the knobs patch."""
    src = module_source()
    return (set(re.findall(r"module_param(?:_array)?_named\((\w+),", src)) |
            set(re.findall(r"^MMBENCH_PARAM_UINT\((\w+),", src, re.M)))


def cases(text):
    """The cases a script's plan must count: each line that makes one
    (refused, result, skip_case) outside the helpers' bodies (a helper's
    own call is its caller's case), but the second branch of an if marked
    "same case"."""
    text = re.sub(r"^[a-z_]+\(\) \{\n.*?^\}$", "", text, flags=re.M | re.S)
    return sum(1 for line in text.splitlines()
               if re.match(r"\s*(refused|result|skip_case) ", line)
               and not line.rstrip().endswith("# same case"))


def starts(fmt, want):
    """Is @want what the printf format @fmt prints, or the start of it?"""
    for end in range(len(fmt), 0, -1):
        for head in {fmt[:end], re.sub(r"%[*a-z]*$", "", fmt[:end])}:
            parts = re.split(r"%\*pbl|%l*[a-z]", head)
            # A value printed has no space (names, numbers, lists).
            if re.fullmatch(r"\S*".join(map(re.escape, parts)), want):
                return True
    return False


def plan(text):
    return int(re.search(r'^echo "1\.\.(\d+)"$', text, re.M).group(1))


class Scripts(unittest.TestCase):
    def test_negative_plan_counts_its_cases(self):
        text = NEGATIVE_SH.read_text()
        self.assertEqual(plan(text), cases(text))
        # Loops print one result per pass: only the one-CPU branch has
        # them, each marked as the cases of the other branch.
        for m in re.finditer(r"^\s*for [^\n]*\n(?:[^\n]*\n){0,2}?\s*"
                             r"(refused|result|skip_case) ([^\n]*)$",
                             text, re.M):
            self.assertTrue(m.group(2).rstrip().endswith("# same case"),
                            m.group(0))

    def test_isolated_plan_counts_its_cases(self):
        text = ISOLATED_SH.read_text()
        text = re.sub(r"^[a-z_]+\(\) \{\n.*?^\}$", "", text,
                      flags=re.M | re.S)
        results = sum(1 for line in text.splitlines()
                      if re.match(r'\s*(result |echo "ok \$\(\(n = n)', line)
                      and not line.rstrip().endswith("# same case"))
        self.assertEqual(plan(text), results)

    def test_row_files_read_are_the_modules(self):
        rows, top = row_files()
        self.assertEqual(rows, {"status", "reason", "cpus", "context",
                                "ops_per_sample", "sample_ns",
                                "sample_cycles", "samples_dropped",
                                "op_ns_hist"})
        self.assertEqual(top, {"preempt"})
        for script in (NEGATIVE_SH, ISOLATED_SH):
            text = script.read_text()
            read = set(re.findall(
                r"(?:\$mb|\$rows|/sys/kernel/mmbench)/(?:[\w$]+|\*)/"
                r"([a-z_]+)\b", text))
            read |= set(re.findall(r'"\$mb/\$1/([a-z_]+)"', text))
            self.assertTrue(read, script.name)
            self.assertEqual(read - rows, set(), script.name)
            # Files of the old module, gone from the lean one.
            for old in ("counter_delta", "free_pages_delta", "/team_cpus",
                        "clock_read_ns", "run_ms", "baseline_drift_pct",
                        "fingerprint/", "slow_ops", "ns_per_op_median",
                        "/samples "):
                self.assertNotIn(old, text, script.name)

    def test_parameters_set_are_the_modules(self):
        known = parameters()
        self.assertLessEqual({"slow_into", "break_check", "make_it_fail",
                              "inject_stall_ms", "cpu", "cpus"}, known)
        for script in (NEGATIVE_SH, ISOLATED_SH):
            given = []
            for line in script.read_text().splitlines():
                line = line.strip()
                m = re.search(r'insmod "\$ko" (.*?)(?:[>&]|$)', line)
                given += [m.group(1)] if m else []
                given += re.findall(r'^refused "?([^" ]*(?: [^" ]+)*)', line)
                given += re.findall(r'(?:MMBENCH_PARAMS|slowed)="([^"]*)"',
                                    line)
                given += re.findall(r'^(?:load|mid_row) "([^"]*)"', line)
            self.assertGreater(len(given), 5, script.name)
            names = {m for g in given
                     for m in re.findall(r"(?:^|\s)([a-z_]+)=", g)}
            self.assertEqual(names - known, set(),
                             f"{script.name} sets what the module lacks")

    def test_messages_are_the_modules(self):
        """Each refusal's text negative.sh waits for is the start of one
        of the module's formats (or the kernel's own words)."""
        formats = re.findall(r'pr_err\("([^"]*)\\n"', module_source())
        kernel = ("invalid for parameter", "can only take 8 arguments")
        text = NEGATIVE_SH.read_text().replace(
            "$into", "is not ROW:STEPS, STEPS 1..10000, ROW a row of this "
            "load but the baseline, once").replace(
            "$((max_order + 1))", "11").replace("$max_order", "10")
        wants = re.findall(r'^\s*refused .*? "([^"]*)"(?: # same case)?$',
                           text, re.M)
        self.assertGreater(len(wants), 40)

        for want in wants:
            self.assertTrue(any(k in want for k in kernel) or
                            any(starts(f, want) for f in formats), want)

    def test_reasons_are_the_modules(self):
        """The reasons negative.sh and isolated.sh wait for in a row's
        reason file are what mmbench_set() writes there."""
        formats = re.findall(r'mmbench_set\([^,]+, MMBENCH_\w+,\s*"([^"]*)"',
                             module_source())
        self.assertIn("%llu blocks lost their tag or alignment", formats)
        # A reason picked among literals and set by "%s" (account_setup()).
        formats += re.findall(r'^\s*(?:\S.*[?:] )?"([^"%]{20,})"(?: :|;)?$',
                              module_source(), re.M)
        text = NEGATIVE_SH.read_text() + ISOLATED_SH.read_text()
        wants = re.findall(r'"(?:fail|error|unsupported): ([^"$]+)"', text)
        wants += re.findall(r'rows_say \w+ "([^"]+)"', text)
        wants += re.findall(r'grep -lx "([^"]+)" "\$\{f%status\}reason"',
                            text)
        self.assertGreater(len(wants), 8)
        for want in wants:
            self.assertTrue(any(starts(f, want.strip()) for f in formats),
                            want)

    @unittest.skipUnless(shutil.which("dash"), "no dash")
    def test_scripts_parse(self):
        for script in (NEGATIVE_SH, ISOLATED_SH):
            proc = subprocess.run(["dash", "-n", str(script)],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)


def helpers():
    """negative.sh's helpers, as it defines them."""
    text = NEGATIVE_SH.read_text()
    # A one-line function, or one whose "}" has a line of its own.
    found = [re.search(rf"^{name}\(\) \{{(?:[^\n]*\}}$|.*?^\}}$)", text,
                       re.M | re.S)
             for name in NAMES]
    return "\n".join(m.group(0) for m in found if m), sum(map(bool, found))


class Helpers(unittest.TestCase):
    def sh(self, line):
        text, _ = helpers()
        return subprocess.run(["sh", "-c", f"{text}\n{line}"],
                              capture_output=True, text=True)

    def test_defined(self):
        text, n = helpers()
        self.assertEqual(n, len(NAMES), text)

    def test_spread(self):
        for args, factor in ((("100", "121"), "1.210"),
                             (("121", "100"), "1.210"),
                             (("100", "119"), "1.190"),
                             (("100",), "1.000"),
                             (("100", ""), "1.000"),
                             (("", ""), "1.000"),
                             (("1204.431", "1500.2", "1210"), "1.246"),
                             (("none", "1000"), "1.000")):
            quoted = " ".join(f"'{a}'" for a in args)
            self.assertEqual(self.sh(f"spread {quoted}").stdout,
                             factor + "\n", args)

    def test_within(self):
        # alu_chain 1000 ns: 1.2 x is 1200.
        for rise, host, skip in (("1100", "1.2", True),   # 1320 > 1200
                                 ("1100", "1.05", False),  # 1155
                                 ("1100", "1.000", False),
                                 ("1250", "1.5", False),   # over: a pass
                                 ("20", "1.3", False),     # slow_into broken
                                 ("0", "9", False),
                                 ("", "1.5", False)):
            self.assertEqual(
                self.sh(f"within '{rise}' 1000 {host}").returncode == 0,
                skip, (rise, host))

    def test_rows_within(self):
        # plain1/plain2/slowed1/slowed2 against alu_chain's 1000 ns.
        for rows, host, skip in (
                ("100/50/1200/1100", "1.2", True),   # 1100, 1050 within
                ("100/50/1400/1100", "1.2", True),   # one over, one within
                ("100/50/1400/1300", "1.2", False),  # both over: a pass
                ("100/50/1200/1100", "1.0", False),  # no spread
                ("100/50/100/50", "1.3", False),     # nothing rose
                ("100/50/1200/60", "1.3", False),    # one did not rise
                ("100//1200/", "1.2", True),         # one row judged
                ("//1200/", "1.2", False)):          # none judged
            self.assertEqual(
                self.sh(f"rows_within '{rows}' 1000 {host}").returncode
                == 0, skip, (rows, host))

    def test_least_and_over(self):
        self.assertEqual(self.sh("least 3 1.5 none 2").stdout, "1.5\n")
        self.assertEqual(self.sh("over 2443.87 1214.35").returncode, 0)
        self.assertNotEqual(self.sh("over 1400 1214.35").returncode, 0)
        self.assertNotEqual(self.sh("over 1400 ''").returncode, 0)


if __name__ == "__main__":
    unittest.main()
