"""./mmbench test's checks of measure --tree on two real kernel builds.

The project's git tree of linux-source-6.12 (series.pristine()) is
cloned, and two commits are made on its one commit from
tooling/kernel/patches/: slab-alloc-nops.patch puts four NOPs in
slab_alloc_node(), the slab allocation fast path, and slab-layout-64.patch
puts 64 bytes of code that never runs before the slab code (the same
code, shifted).  Named before anything is measured:

- the rows whose ops call slab_alloc_node() once an object
  (NOPS_ROWS: kmalloc_*, kmem_cache_* but the bulk API's rows, kfree_bulk_*
  whose objects come from kmalloc()) come out four instructions longer in
  icount mode, and no other row moves (kmem_cache_bulk_* allocate through
  kmem_cache_alloc_bulk(), another path; the vmstat and page allocator
  rows never reach the slab);
- the layout-only control gives no verdict, in icount mode nor in time
  mode.
"""
import os
import re
import subprocess
from pathlib import Path

from . import archive, compare
from .common import OUT, REPO, Failure, say

PATCHES = REPO / "tooling" / "kernel" / "patches"
NOPS = "slab-alloc-nops.patch"
LAYOUT = "slab-layout-64.patch"
NOPS_INSN = 4
# How far outside its interval a kfree_bulk row's change may be found,
# in instructions: compare's minimum effect under icount (an interval of
# +4.00 [+4.00, +4.00] is a few 1e-7 off 4).
SLACK = 0.5
# The rows measured: every slab row of one CPU, and rows that never reach
# the slab.
BENCHMARKS = ("kmalloc,kmem_cache,kmem_cache_bulk,kfree_bulk,"
              "inc_dec_zone_page_state,count_vm_event,alloc_pages")
# The rows that reach slab_alloc_node() once an op.
NOPS_ROWS = re.compile(r"kmalloc_\d+|kmem_cache_\d+|kfree_bulk_\d+")
# What the commits are made with: fixed, so that their hashes, and so the
# keys of their builds, are the same wherever they are made.
IDENTITY = {"GIT_AUTHOR_NAME": "mmbench", "GIT_COMMITTER_NAME": "mmbench",
            "GIT_AUTHOR_EMAIL": "mmbench@localhost",
            "GIT_COMMITTER_EMAIL": "mmbench@localhost",
            "GIT_AUTHOR_DATE": "2000-01-02T00:00:00Z",
            "GIT_COMMITTER_DATE": "2000-01-02T00:00:00Z"}


def tree():
    """A clone of the pristine tree (shared objects, no checkout) with
    branches base, nops and layout: each patch committed on the pristine
    commit without a work tree (git apply --cached on an index of its
    own), by the fixed IDENTITY, so that the commits are the same ones
    every run."""
    from .series import PRISTINE, TAG, git, pristine
    pristine()
    where = OUT / "revision-tree"
    if not (where / ".git").exists():
        proc = subprocess.run(["git", "clone", "-q", "--shared",
                               "--no-checkout", str(PRISTINE), str(where)],
                              text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
        if proc.returncode:
            raise Failure(f"git clone {PRISTINE} {where}: "
                          f"{proc.stdout[-300:]}")
    env = dict(os.environ, **IDENTITY)
    git(where, "branch", "-f", "base", f"refs/tags/{TAG}")
    for branch, patch in (("nops", NOPS), ("layout", LAYOUT)):
        index = where / ".git" / f"mmbench-{branch}.index"
        env["GIT_INDEX_FILE"] = str(index)
        git(where, "read-tree", f"refs/tags/{TAG}", env=env)
        proc = subprocess.run(["git", "-C", str(where), "apply", "--cached",
                               str(PATCHES / patch)], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if proc.returncode:
            raise Failure(f"git apply {patch} on {where}: "
                          f"{proc.stdout[-300:]}")
        subject = re.search(r"^Subject: (?:\[PATCH\] )?(.*)$",
                            (PATCHES / patch).read_text(), re.M)
        if not subject:
            raise Failure(f"{PATCHES / patch}: no Subject: line")
        subject = subject.group(1)
        top = git(where, "write-tree", env=env).strip()
        commit = git(where, "commit-tree", top, "-p", f"refs/tags/{TAG}",
                     "-m", subject, env=env).strip()
        git(where, "update-ref", f"refs/heads/{branch}", commit)
        index.unlink(missing_ok=True)
    return where


def measure_args(where, b, accel, boots, loads, layouts):
    from .cli import parse
    return parse(["measure", "--tree", str(where), "base", b,
                  "--accel", accel, "--boots", str(boots), "--loads",
                  str(loads), "--layouts", str(layouts),
                  "--param", f"benchmarks={BENCHMARKS}"])


def _flagged(rows):
    return [r for r in rows
            if r.verdict in (compare.REGRESSION, compare.IMPROVEMENT)]


def _said(rows):
    return "; ".join(f"{r.row} {r.verdict} " + (
        f"{r.change_insn:+.2f} insn" if r.change_insn is not None else
        f"{r.change:+.1f} %" if r.change is not None else "")
        for r in rows) or "none"


# Benjamini-Hochberg holds the false discovery rate at 5 %: when no row
# moved, one control in twenty flags a row by chance (1 of 20 A/A
# comparisons here, tooling/doc/measured.md).  A check of "nothing
# moved" therefore allows one flagged row; the failure these controls
# exist to catch flagged 19 rows at once.
CHANCE = 1


def nops_checks(c, where):
    """The icount comparison @c of base against nops.  The kmalloc and
    kmem_cache rows (one allocation an op) come out REGRESSION, within
    an instruction of NOPS_INSN, but for one that may be INCONCLUSIVE by
    chance if its interval holds NOPS_INSN; kfree_bulk's, whose op is
    one allocation and a share of a bulk free, are noisier (+4.00
    [+4.00, +4.00] for 16 objects; for 256, INCONCLUSIVE or +5.3 to
    +7.0, [+4.80, +9.16] once: more than the four added, the batch's
    slab refills not explained): never called unchanged or faster, and
    a REGRESSION not below NOPS_INSN; of the rows that do not reach
    slab_alloc_node(), at most CHANCE is flagged."""
    moved = [r for r in c.rows if NOPS_ROWS.fullmatch(r.row)]
    core = [r for r in moved if not r.row.startswith("kfree_bulk_")]
    bulk = [r for r in moved if r.row.startswith("kfree_bulk_")]
    # A p99 of a row that reaches it (kmalloc_64+p99) may move too.
    still = [r for r in c.judged() if not NOPS_ROWS.fullmatch(
        r.row.removesuffix(archive.TAIL_ROW))]

    def holds(r):
        return (r.lo_insn is not None and
                r.lo_insn - SLACK <= NOPS_INSN <= r.hi_insn + SLACK)

    undecided = [r for r in core if r.verdict == compare.INCONCLUSIVE
                 and holds(r)]
    off = [r for r in core if (r.verdict != compare.REGRESSION or
                               r.change_insn is None or
                               not NOPS_INSN - 1 <= r.change_insn <=
                               NOPS_INSN + 1)
           and (r not in undecided or len(undecided) > CHANCE)]
    off += [r for r in bulk if r.verdict in (compare.NO_CHANGE,
                                             compare.IMPROVEMENT) or
            r.verdict == compare.REGRESSION and
            (r.hi_insn is None or r.hi_insn + SLACK < NOPS_INSN)]
    flagged = _flagged(still)
    return [
        (bool(core) and not off,
         f"measure --tree, icount: each row reaching slab_alloc_node() "
         f"{NOPS_INSN} instructions longer ({len(core) - len(undecided)} "
         f"of {len(core)} kmalloc and kmem_cache rows REGRESSION, "
         f"{len(undecided)} undecided holding it, {len(bulk)} kfree_bulk "
         "rows not contradicting it)",
         f"off: {_said(off)}; see {where}/compare.txt"),
        (len(flagged) <= CHANCE,
         f"measure --tree, icount: no row that does not reach it moved "
         f"({len(flagged)} of {len(still)} flagged, {CHANCE} allowed "
         "by chance)",
         f"flagged: {_said(flagged)}; see {where}/compare.txt"),
    ]


def layout_checks(c, where, mode):
    judged = c.judged()
    flagged = _flagged(judged)
    return [(len(flagged) <= CHANCE,
             f"measure --tree, {mode}: the layout-only control (the same "
             f"code shifted by 64 bytes) gives no verdict ({len(flagged)} "
             f"of {len(judged)} rows flagged, {CHANCE} allowed by chance)",
             f"flagged: {_said(flagged)}; see {where}/compare.txt")]


def checks(results):
    """The checks, [(ok, what, why)]."""
    from .measure import measure
    where = tree()
    out = []
    # (B, accelerator, boots, loads, layouts, judge): three layouts a
    # kernel for the change to be found (two units a side, Welch's t has
    # two degrees of freedom: a +3 instruction change was found in 32 of
    # 40 simulated runs, in 40 of 40 with three); two for the control in
    # time mode, whose builds of base are the first two of the three:
    # eight builds in all, the first from scratch.
    runs = (("nops", "icount", 3, 3, 3, nops_checks),
            # Instructions do not move with layout: one layout a side,
            # the boot the unit (base's first build, layout's first).
            ("layout", "icount", 3, 3, 1,
             lambda c, d: layout_checks(c, d, "icount")),
            ("layout", "tcg", 4, 4, 2,
             lambda c, d: layout_checks(c, d, "time")))
    for b, accel, boots, loads, layouts, judge in runs:
        d = Path(results) / f"{b}-{accel}"
        d.mkdir(parents=True, exist_ok=True)
        say(f"measure --tree: base against {b}, --accel {accel}")
        try:
            c = measure(measure_args(where, b, accel, boots, loads,
                                     layouts), results=d, plot=False)
        except Failure as e:
            out.append((False, f"measure --tree, base against {b}, "
                        f"{accel}", str(e)))
            continue
        out += judge(c, d)
    return out
