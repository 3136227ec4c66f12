"""Paths, logging, phases and command execution shared by the subcommands."""
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("MMBENCH_OUT", REPO / "out")).resolve()
GUEST_FILES = REPO / "tooling" / "guest"


class Failure(Exception):
    """A step failed; the message says what and what to do."""


def say(msg):
    print(f"mmbench: {msg}", flush=True)


class Phase:
    """Times a named step and prints how long it took."""

    timings = []

    def __init__(self, name):
        self.name = name
        self.start = 0.0

    def __enter__(self):
        say(f"[{self.name}] ...")
        self.start = time.monotonic()
        return self

    def __exit__(self, exc_type, exc, tb):
        took = time.monotonic() - self.start
        Phase.timings.append((self.name, took))
        state = "done" if exc_type is None else "failed"
        say(f"[{self.name}] {state} in {took:.1f} s")
        return False

    @classmethod
    def report(cls):
        if cls.timings:
            say("phase times: " + ", ".join(
                f"{name} {took:.1f} s" for name, took in cls.timings))


def run(cmd, cwd=None, env=None, capture=False, check=True, timeout=None):
    """Run @cmd; with @capture, return its combined output as text."""
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, env=env, timeout=timeout, text=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture else None,
            stderr=subprocess.STDOUT if capture else None)
    except FileNotFoundError as e:
        raise Failure(f"{cmd[0]}: not found ({e})") from e
    except subprocess.TimeoutExpired as e:
        raise Failure(f"{' '.join(map(str, cmd))}: no answer in "
                      f"{timeout} s") from e
    if check and proc.returncode:
        if capture and proc.stdout:
            sys.stdout.write(proc.stdout[-6000:])
        raise Failure(f"{' '.join(map(str, cmd))} exited with "
                      f"{proc.returncode}")
    return proc.stdout if capture else proc.returncode
