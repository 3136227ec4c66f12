#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mmbench: build, boot and run the mmbench kselftest (see README.md).

Project tooling, not bound for upstream.  ./mmbench at the top of the
repository runs this with python3.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from mmbench_tool import cli  # noqa: E402

if __name__ == "__main__":
    sys.exit(cli.main(sys.argv[1:]))
