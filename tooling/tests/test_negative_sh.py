"""The helpers of tooling/guest/negative.sh that judge a slow_into case:
a busy host, not the kernel, is what moves alu_chain by more than the
case's margin between two loads alike."""
import re
import subprocess
import unittest

import support

NEGATIVE_SH = support.TOOLING / "guest" / "negative.sh"


def helpers():
    """negative.sh's least(), over() and spread(), as it defines them."""
    text = NEGATIVE_SH.read_text()
    found = [re.search(rf"^{name}\(\) \{{.*?\}}$", text, re.M | re.S)
             for name in ("least", "over", "spread")]
    return "\n".join(m.group(0) for m in found if m), sum(map(bool, found))


class Helpers(unittest.TestCase):
    def sh(self, line):
        text, _ = helpers()
        return subprocess.run(["sh", "-c", f"{text}\n{line}"],
                              capture_output=True, text=True)

    def test_defined(self):
        text, n = helpers()
        self.assertEqual(n, 3, text)

    def test_spread(self):
        for args, spread in ((("100", "121"), True),
                             (("121", "100"), True),
                             (("100", "119"), False),
                             (("100",), False),
                             (("100", ""), False),
                             (("", ""), False),
                             (("1204.431", "1500.2", "1210"), True),
                             (("none", "1000"), False)):
            quoted = " ".join(f"'{a}'" for a in args)
            self.assertEqual(self.sh(f"spread {quoted}").returncode == 0,
                             spread, args)

    def test_least_and_over(self):
        self.assertEqual(self.sh("least 3 1.5 none 2").stdout, "1.5\n")
        self.assertEqual(self.sh("over 2443.87 1214.35").returncode, 0)
        self.assertNotEqual(self.sh("over 1400 1214.35").returncode, 0)
        self.assertNotEqual(self.sh("over 1400 ''").returncode, 0)


if __name__ == "__main__":
    unittest.main()
