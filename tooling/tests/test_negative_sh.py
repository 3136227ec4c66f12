"""The helpers of tooling/guest/negative.sh that judge a slow_into case:
a row short of its margin by less than the host moved alu_chain between
two loads alike is the host's (SKIP); short by more, the kernel's."""
import re
import subprocess
import unittest

import support

NEGATIVE_SH = support.TOOLING / "guest" / "negative.sh"
NAMES = ("least", "over", "spread", "within", "rows_within")


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
