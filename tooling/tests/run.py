#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the front end's host-side unit tests and print KTAP, a result a test.

./mmbench test runs this and counts each result into its checks.  Alone:
python3 tooling/tests/run.py [-k PATTERN], or python3 -m unittest discover
-s tooling/tests.  Standard library only; nothing here boots a guest.
"""
import argparse
import contextlib
import io
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _flatten(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _flatten(test)
        else:
            yield test


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-k", dest="pattern", default="",
                        help="only the tests whose id contains this")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    suite = unittest.defaultTestLoader.discover(str(HERE),
                                                top_level_dir=str(HERE))
    tests = [t for t in _flatten(suite) if args.pattern in t.id()]
    print("KTAP version 1")
    print(f"1..{len(tests)}", flush=True)
    failed = 0
    for n, test in enumerate(tests, 1):
        result = unittest.TestResult()
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            test.run(result)
        problems = result.failures + result.errors
        if problems:
            failed += 1
            for line in (out.getvalue().splitlines()[-15:] +
                         problems[0][1].rstrip().splitlines()[-12:]):
                print(f"# {line}")
            print(f"not ok {n} {test.id()}", flush=True)
        elif result.skipped:
            print(f"ok {n} {test.id()} # SKIP {result.skipped[0][1]}")
        else:
            print(f"ok {n} {test.id()}", flush=True)
    print(f"# {len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
