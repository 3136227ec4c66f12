"""The upstream patch series: made on a pristine git tree of linux-source-6.12.

tooling/upstream/series lists the patches in order: each names a file of
that folder (the commit message, then the hunks of the kernel's own files
the patch changes: Kconfig, Makefiles, MAINTAINERS, an index) and the files
of this repository the patch adds as they are.  export() commits them, one
commit a patch, on a branch of a git tree that holds the source tarball as
one commit (made once, kept under out/), and runs git format-patch on them.

A file named FILE@STAGE is the file as it is at that stage: lines between
"/* series: NAME */" and "/* series: end */" belong to stage NAME, and are
left out before it; the marker lines are left out always.  The stages of a
file are the order of its FILE@STAGE entries; a line outside any region is
in the first.  So one file grows over several patches, each of which
builds, and this repository keeps one copy of it.
"""
import contextlib
import fcntl
import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from .build import SOURCE_TARBALL, tarball_id, unpack_source
from .common import OUT, REPO, Failure, run, say

UPSTREAM = REPO / "tooling" / "upstream"
PRISTINE = OUT / "pristine-6.12"
TAG = "pristine"
STAMP = ".git/mmbench-pristine"
# What the pristine commit is made by: fixed, so that it is the same commit
# wherever it is made from the same tarball.
PRISTINE_ENV = {"GIT_AUTHOR_NAME": "linux-source-6.12",
                "GIT_AUTHOR_EMAIL": "linux-source@localhost",
                "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
                "GIT_COMMITTER_NAME": "linux-source-6.12",
                "GIT_COMMITTER_EMAIL": "linux-source@localhost",
                "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}
COVER = UPSTREAM / "cover-letter"


class Patch:
    """One entry of the series file: @hunks (a file of UPSTREAM) and the
    repository files (or folders) it adds, @files."""

    def __init__(self, hunks, files):
        self.hunks = hunks
        self.files = files
        text = (UPSTREAM / hunks).read_text()
        self.message, sep, self.diff = text.partition("\n---\n")
        if not sep:
            raise Failure(f"tooling/upstream/{hunks}: no '---' line between "
                          "the commit message and the hunks")
        self.subject = self.message.split("\n", 1)[0]


def parse_series(text, where="tooling/upstream/series"):
    """[(hunks file, [files])] of a series file's @text."""
    entries = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if not words[0].endswith(".patch"):
            raise Failure(f"{where}:{n}: want '<name>.patch [file ...]'")
        entries.append((words[0], words[1:]))
    if not entries:
        raise Failure(f"{where}: no patch")
    return entries


def series():
    """The Patch objects of tooling/upstream/series, in order."""
    entries = parse_series((UPSTREAM / "series").read_text())
    patches = [Patch(hunks, files) for hunks, files in entries]
    for p in patches:
        for rel in p.files:
            if not (REPO / rel.split("@")[0]).exists():
                raise Failure(f"tooling/upstream/series: {p.hunks} adds "
                              f"{rel}, which this repository lacks")
    return patches


STAGE_MARK = re.compile(r"^/\* series: (\w+) \*/$")
# What a marker written slightly wrong looks like (indented, spaced): it
# would be kept as a comment in every stage, so it is refused.
NEAR_MARK = re.compile(r"^\s*/\*\s*series\s*:")


def stages(patches):
    """{file: [its stages, in order]} of the FILE@STAGE entries."""
    order = {}
    for p in patches:
        for rel in p.files:
            if "@" in rel:
                path, stage = rel.split("@", 1)
                if stage == "end":
                    raise Failure(f"tooling/upstream/series: {rel}: 'end' "
                                  "ends a region, it names no stage")
                if stage in order.setdefault(path, []):
                    raise Failure(f"tooling/upstream/series: {rel} twice")
                order[path].append(stage)
    return order


def _in_comment(line, comment):
    """Whether a C block comment is open after @line, given @comment at
    its start (strings are not told apart: none of ours holds one)."""
    i = 0
    while True:
        if comment:
            j = line.find("*/", i)
            if j < 0:
                return True
            comment, i = False, j + 2
        else:
            j, k = line.find("/*", i), line.find("//", i)
            if j < 0 or 0 <= k < j:
                return False
            comment, i = True, j + 2


def staged_text(text, stage, order, where="file"):
    """@text at @stage of @order (its stages): the regions of later stages
    and every marker line left out."""
    if stage not in order:
        raise Failure(f"{where}: no stage {stage} in {order}")
    want = order.index(stage)
    out, region, comment = [], None, False
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        m = STAGE_MARK.match(line.rstrip("\r\n"))
        if not m and NEAR_MARK.match(line):
            raise Failure(f"{where}:{n}: not a marker as written: "
                          f"'/* series: <stage> */' alone on its line")
        if not m:
            comment = _in_comment(line, comment)
            if region is None or order.index(region) <= want:
                out.append(line)
            continue
        if comment:
            # It would end the comment it is in, in the file as it is.
            raise Failure(f"{where}:{n}: a marker inside a comment")
        name = m.group(1)
        if name == "end":
            if region is None:
                raise Failure(f"{where}:{n}: an end marker outside a region")
            region = None
        elif region is not None:
            raise Failure(f"{where}:{n}: region {name} inside {region}")
        elif name not in order[1:]:
            raise Failure(f"{where}:{n}: region {name} is not a later "
                          f"stage of {order}")
        else:
            region = name
    if region is not None:
        raise Failure(f"{where}: region {region} never ends")
    return "".join(out)


def final_text(rel):
    """What the series makes of repository file @rel in the end: its last
    stage when it has stages, else the file as it is."""
    text = (REPO / rel).read_text()
    order = stages(series()).get(rel)
    return staged_text(text, order[-1], order, rel) if order else text


def git(tree, *args, env=None, capture=True, check=True):
    full = dict(os.environ, **(env or {}))
    out = run(["git", "-C", str(tree), *args], env=full, capture=capture,
              check=check)
    return out.strip() if capture and isinstance(out, str) else out


def pristine():
    """The git tree of linux-source-6.12, its one commit tagged 'pristine';
    made once (a stamp names the tarball), then reused.  Takes the lock of
    out/ first: a second run must not unpack over a tree being used."""
    hold_out()
    stamp = PRISTINE / STAMP
    want = tarball_id() + "\n"
    if stamp.exists() and stamp.read_text() == want:
        return PRISTINE
    start = time.monotonic()
    if PRISTINE.exists():
        shutil.rmtree(PRISTINE)
    unpack_source(PRISTINE)
    (PRISTINE / ".mmbench-unpacked").unlink()
    say(f"committing {SOURCE_TARBALL} as one commit in {PRISTINE} "
        "(about a minute, once)")
    git(PRISTINE, "init", "-q", "-b", "master")
    # The tarball's own .gitignore files hide nothing it ships.
    git(PRISTINE, "add", "-f", "-A", ".")
    git(PRISTINE, "commit", "-q", "-m",
        f"linux-source-6.12 as Debian ships it\n\n{tarball_id()}",
        env=PRISTINE_ENV)
    git(PRISTINE, "tag", TAG)
    git(PRISTINE, "gc", "-q", "--auto")
    stamp.write_text(want)
    say(f"pristine tree made in {time.monotonic() - start:.0f} s")
    return PRISTINE


def identity():
    """(name, email) of this repository's git configuration."""
    try:
        name = git(REPO, "config", "user.name")
        email = git(REPO, "config", "user.email")
    except Failure as e:
        raise Failure("set git config user.name and user.email in this "
                      "repository: the series is authored with them") from e
    return name, email


def repo_files(rel):
    """The files of this repository at @rel (a file, or a folder: the files
    git tracks or would track there, build products left out)."""
    out = git(REPO, "ls-files", "--cached", "--others", "--exclude-standard",
              "--", rel)
    files = sorted({f for f in out.splitlines() if (REPO / f).is_file()})
    if not files:
        raise Failure(f"{rel}: no file to add")
    return files


def commit_message(patch, name, email):
    return (patch.message.rstrip("\n") +
            f"\n\nSigned-off-by: {name} <{email}>\n")


_HELD = set()


@contextlib.contextmanager
def series_lock(tree):
    """Hold mmbench's lock of the series work in the git tree @tree for the
    block (again in the same process is a no-op).  Two runs at once (two
    terminals, a user and a robot) write the same index, branch, patch
    folder and work tree; the second waits for the first instead."""
    key = str(tree.resolve())
    if key in _HELD:
        yield
        return
    with open(tree / ".git" / "mmbench-series.flock", "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another mmbench run's series work in {tree}")
            fcntl.flock(f, fcntl.LOCK_EX)
        _HELD.add(key)
        try:
            yield
        finally:
            _HELD.discard(key)


# The lock of out/'s series work: the pristine tree, the patch folder and
# the work tree the series is applied to.  It lies beside them, where
# pristine() deleting a tree cannot take it away.
OUT_LOCK = OUT / "series.flock"
_OUT_HELD = []


def hold_out():
    """Take the lock of out/'s series work for the rest of this process.
    Its callers go on using the trees and folders the series work made
    (the checks of the patches, the builds patch by patch, the kselftest
    built and copied into the guest) long after the call that made them,
    so the lock is held until the process ends, which drops it however
    the process ends.  A second run waits for the first, saying which
    run it waits for."""
    if _OUT_HELD:
        return
    OUT_LOCK.parent.mkdir(parents=True, exist_ok=True)
    try:
        f = open(OUT_LOCK, "a+", encoding="utf-8", errors="replace")
    except OSError as e:
        raise Failure(f"{OUT_LOCK}: {e.strerror or e}") from e
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "another mmbench run"
        say(f"waiting for {holder}: it holds {OUT_LOCK}, the lock of the "
            "kernel trees and patches under out/")
        fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    f.truncate()
    args = " ".join(sys.argv[1:]).encode(errors="backslashreplace")
    f.write(f"mmbench run pid {os.getpid()} "
            f"({args.decode() or 'no arguments'})\n")
    f.flush()
    _OUT_HELD.append(f)


def commit_series(tree, patches, name, email, date=None):
    """Commit @patches onto the 'pristine' tag of @tree without touching its
    work tree (a temporary index); return the last commit."""
    with series_lock(tree):
        return _commit_series(tree, patches, name, email, date)


def _commit_series(tree, patches, name, email, date):
    index = tree / ".git" / "mmbench-export-index"
    index.unlink(missing_ok=True)
    # A run killed in git's midst leaves git's lock of the index, which
    # would fail every later run.  The index is mmbench's alone, and every
    # run that uses it holds series_lock(): a lock there now is a dead
    # run's.
    index.with_name(index.name + ".lock").unlink(missing_ok=True)
    env = {"GIT_INDEX_FILE": str(index),
           "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
           "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    try:
        git(tree, "read-tree", TAG, env=env)
        head = git(tree, "rev-parse", f"{TAG}^{{commit}}")
        order = stages(patches)
        for p in patches:
            hunks = index.with_name("mmbench-export-hunks")
            hunks.write_text(p.diff)
            try:
                if p.diff.strip():
                    git(tree, "apply", "--cached", "--whitespace=error-all",
                        str(hunks), env=env)
            except Failure as e:
                raise Failure(f"tooling/upstream/{p.hunks}: its hunks do not "
                              "apply on linux-source-6.12") from e
            for rel in p.files:
                if "@" in rel:
                    f, stage = rel.split("@", 1)
                    text = staged_text((REPO / f).read_text(), stage,
                                       order[f], f)
                    staged = index.with_name("mmbench-export-staged")
                    staged.write_text(text)
                    blob = git(tree, "hash-object", "-w", str(staged))
                    git(tree, "update-index", "--add", "--cacheinfo",
                        f"100644,{blob},{f}", env=env)
                    continue
                for f in repo_files(rel):
                    blob = git(tree, "hash-object", "-w", str(REPO / f))
                    mode = "100755" if os.access(REPO / f, os.X_OK) \
                        else "100644"
                    git(tree, "update-index", "--add", "--cacheinfo",
                        f"{mode},{blob},{f}", env=env)
            tree_id = git(tree, "write-tree", env=env)
            msg = index.with_name("mmbench-export-msg")
            msg.write_text(commit_message(p, name, email))
            head = git(tree, "commit-tree", tree_id, "-p", head, "-F",
                       str(msg), env=env)
    finally:
        index.unlink(missing_ok=True)
    return head


def export(outdir, branch=None, results=None, cover=True):
    """Write the series to @outdir with git format-patch --cover-letter, from
    a new branch of the pristine tree; return (branch, [patch files])."""
    hold_out()
    tree = pristine()
    with series_lock(tree):
        return _export(tree, outdir, branch, results, cover)


def _export(tree, outdir, branch, results, cover):
    patches = series()
    name, email = identity()
    head = commit_series(tree, patches, name, email)
    branch = branch or "mmbench/" + time.strftime("%Y%m%d-%H%M%S")
    outdir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".mmbench-export-", dir=outdir))
    try:
        out = git(tree, "format-patch",
                  *(["--cover-letter"] if cover else []), "--thread",
                  "-o", str(staging), f"{TAG}..{head}")
        files = replace_series(outdir, [Path(line) for line in
                                        out.splitlines()
                                        if line.endswith(".patch")])
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    git(tree, "branch", "-f", branch, head)
    if cover:
        fill_cover_letter(files[0], cover_figures(results))
    return branch, files


# The names of the patches an export wrote in its folder, one a line: the
# next export there removes those, and no other *.patch.
SERIES_MARKER = ".mmbench-series"


def replace_series(outdir, new):
    """Move the patch files @new (format-patch's, in a folder of their own)
    into @outdir in place of those an earlier export wrote there: those
    its SERIES_MARKER names, or, in a folder of an export before the
    marker, those named as one of @new.  Refuses a folder that holds any
    other *.patch (a user's own work), removing nothing.  Returns the
    files in @outdir."""
    marker = outdir / SERIES_MARKER
    try:
        ours = {n for n in marker.read_text().splitlines()
                if n.endswith(".patch") and "/" not in n}
    except FileNotFoundError:
        ours = set()
    ours |= {p.name for p in new}
    others = sorted(p.name for p in outdir.glob("*.patch")
                    if p.name not in ours)
    if others:
        more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
        raise Failure(f"{outdir} holds {others[0]}{more}, which no export "
                      "wrote: export to another folder (-o DIR), or move "
                      "it away")
    for name in ours:
        (outdir / name).unlink(missing_ok=True)
    files = []
    for p in new:
        os.replace(p, outdir / p.name)
        files.append(outdir / p.name)
    marker.write_text("".join(f"{p.name}\n" for p in files))
    return files


# The rows the cover letter quotes: one or two of each kind.
COVER_ROWS = ("baseline", "inc_dec_zone_page_state", "count_vm_event",
              "alloc_pages_order0", "alloc_pages_order3",
              "alloc_pages_batch_order0", "alloc_pages_bulk_64",
              "kmalloc_64", "kmalloc_4096", "kmem_cache_64",
              "kmem_cache_bulk_64", "kfree_bulk_64", "page_frag_64",
              "alloc_pages_concurrent_cpus2", "kmalloc_concurrent_cpus2",
              "page_frag_concurrent_cpus2", "ptr_ring_remote",
              "kmalloc_remote_free", "page_frag_remote_free", "ndelay_200")


def figures_text(table):
    """The cover letter's figures from a run's {row: {key: value}}."""
    fp = table.get("fingerprint", {})
    rows = [(name, table[name]) for name in COVER_ROWS
            if table.get(name, {}).get("status") == "pass"]
    if not rows:
        return None
    head = (f"Kernel {fp.get('release', '?')}, preempt "
            f"{fp.get('preempt', '?')}, debug options: "
            f"{fp.get('debug', '?')}; CPU {fp.get('cpu_model', '?')}, "
            f"hypervisor {fp.get('hypervisor', '?')}.  The median of each "
            "row's samples, and the same net of the empty loop (baseline); "
            f"{len(rows)} of "
            f"{sum(1 for f in table.values() if 'status' in f)} rows:")
    lines = textwrap.wrap(head, width=72) + [""]
    width = max(len(name) for name, _ in rows)
    lines.append(f"  {'row':<{width}}  {'ns/op':>10}  {'net ns/op':>10}")
    for name, f in rows:
        lines.append(f"  {name:<{width}}  "
                     f"{float(f['ns_per_op_median']):>10.1f}  "
                     f"{float(f['net_ns_per_op']):>10.1f}")
    return "\n".join(lines) + "\n"


def run_figures(results):
    """The cover letter's table of the suite's figures in the results
    folder @results, or None where it has none (no suite, or one that
    stopped before any row)."""
    from . import ktap
    path = results / "mmbench_test.ktap"
    if not path.is_file():
        return None
    return figures_text(ktap.figures(path.read_text(
        errors="replace").splitlines())) or None


def _failed(results):
    """Whether the run in @results says (results.json) it did not pass."""
    try:
        return json.loads((results / "results.json").read_text()).get(
            "outcome", "passed") != "passed"
    except (OSError, ValueError, AttributeError):
        return False


def not_default(results):
    """The options of the run in @results that the cover letter's
    command ("./mmbench run") does not give (--param, --env, --ceiling),
    as a string; "" for none, or no results.json to say."""
    try:
        got = json.loads((results / "results.json").read_text()).get(
            "options") or {}
        return " ".join(f"--{opt} {v}" for key, opt in (
            ("params", "param"), ("env", "env"), ("ceilings", "ceiling"))
            for v in got.get(key) or [])
    except (OSError, ValueError, AttributeError):
        return ""


def check_cover_run(results):
    """Refuse @results for the cover letter's figures: a run that did not
    pass, or that gave options the letter's command does not."""
    if _failed(results):
        raise Failure(f"--results {results}: that run did not pass: its "
                      "figures are not the module's")
    given = not_default(results)
    if given:
        raise Failure(f"--results {results}: a run with {given}: the "
                      "cover letter quotes a plain ./mmbench run")


def newest_run():
    """The newest results folder of ./mmbench run or test with figures,
    of a run that did not fail and gave no options: "latest" moves on to
    an attempt that stopped early too, a failed run's figures are not
    the module's, and another selection or sampling is not the letter's
    command's."""
    top = OUT / "results"
    stamps = sorted((d for d in top.iterdir() if d.is_dir() and
                     re.fullmatch(r"[0-9]{8}-[0-9]{6}", d.name)),
                    reverse=True) if top.is_dir() else []
    return next((d for d in stamps if run_figures(d) and not _failed(d)
                 and not not_default(d)), None)


def cover_figures(results=None):
    """The figures of @results (a results folder; default the newest run
    with figures)."""
    results = results or newest_run()
    text = run_figures(results) if results else None
    if text:
        say(f"the cover letter's figures: {results}")
        return text
    say("no run with figures in " + str(results or OUT / "results") +
        ": the cover letter says so; run ./mmbench run first")
    return ("\n  (no run found: run ./mmbench run and export again)\n")


def fill_cover_letter(path, figures):
    """Put tooling/upstream/cover-letter, @figures in it, into the cover
    letter git format-patch wrote at @path."""
    subject, _, blurb = COVER.read_text().partition("\n\n")
    lines = len(final_text("lib/test_mmbench.c").splitlines())
    blurb = blurb.replace("@FIGURES@\n", "\n" + figures + "\n")
    blurb = blurb.replace("@MODULE_LINES@", str(lines))
    text = path.read_text()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        raise Failure(f"{path}: not a cover letter of git format-patch")
    text = text.replace("*** SUBJECT HERE ***", subject.strip(), 1)
    text = text.replace("*** BLURB HERE ***", blurb.rstrip("\n"), 1)
    path.write_text(text)


TREE = OUT / "linux-6.12-series"
BUILD_SERIES = OUT / "series-build"
TREE_STAMP = ".mmbench-series"


def applied_tree():
    """A work tree of the pristine tree with the series applied by git am
    (made once, ~20 s; then only what the series changes is rewritten, so
    builds in it stay valid); return it."""
    hold_out()
    tree = pristine()
    with series_lock(tree):
        return _applied_tree(tree)


def _applied_tree(tree):
    branch, files = export(BUILD_SERIES, branch="mmbench/build", cover=False)
    want = git(tree, "rev-parse", f"{branch}^{{tree}}") + "\n"
    stamp = TREE / TREE_STAMP
    if stamp.exists() and stamp.read_text() == want:
        return TREE
    if not (TREE / ".git").exists():
        if TREE.exists():
            shutil.rmtree(TREE)
        say(f"checking out the pristine tree into {TREE} (once)")
        git(tree, "worktree", "prune")
        git(tree, "worktree", "add", "-q", "--detach", str(TREE), TAG)
    name, email = identity()
    env = {"GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    git(TREE, "am", "--abort", check=False)
    git(TREE, "checkout", "-q", "-f", "--detach", TAG)
    stamp.unlink(missing_ok=True)
    try:
        git(TREE, "am", "-q", *[str(f) for f in files], env=env)
    except Failure as e:
        git(TREE, "am", "--abort", check=False)
        raise Failure(f"the series in {BUILD_SERIES} does not apply with "
                      f"git am on linux-source-6.12: {e}") from e
    got = git(TREE, "rev-parse", "HEAD^{tree}") + "\n"
    if got != want:
        raise Failure(f"{TREE}: git am made tree {got.strip()}, the series "
                      f"branch has {want.strip()}")
    stamp.write_text(want)
    say(f"applied the series ({len(files)} patches) with git am in {TREE}")
    return TREE


def checkpatch(tree, patch):
    """checkpatch.pl --strict of @tree on the patch file @patch: [issue]."""
    out = run(["perl", "scripts/checkpatch.pl", "--strict", "--terse",
               "--show-types", str(patch)], cwd=tree, capture=True,
              check=False)
    return [line for line in out.splitlines()
            if re.search(r"(ERROR|WARNING|CHECK):", line)]


def kernel_doc(tree, rel="lib/test_mmbench.c"):
    """scripts/kernel-doc -none of @tree on @rel: [line it printed]."""
    out = run(["perl", "scripts/kernel-doc", "-none", rel], cwd=tree,
              capture=True, check=False)
    return [line for line in out.splitlines() if line.strip()]


def abi_validate(tree):
    """scripts/get_abi.pl validate of @tree's Documentation/ABI (6.12's
    name for it; mainline has get_abi.py): [line it printed]."""
    out = run(["perl", "scripts/get_abi.pl", "validate"], cwd=tree,
              capture=True, check=False)
    return [line for line in out.splitlines() if line.strip()]


def bisect_builds(tree, build_module, build_kselftest):
    """Check out each patch of the series applied in @tree but the last
    and build what is there by then (@build_module, @build_kselftest:
    functions of the tree that return their warnings); return
    [(patch number, subject, what, warnings)] and leave the tree at the
    whole series."""
    head = git(tree, "rev-parse", "HEAD")
    commits = git(tree, "rev-list", "--reverse", f"{TAG}..HEAD").split()
    done = []
    try:
        for n, commit in enumerate(commits[:-1], 1):
            git(tree, "checkout", "-q", "--detach", commit)
            subject = git(tree, "log", "-1", "--format=%s")
            if (tree / "lib/test_mmbench.c").exists():
                done.append((n, subject, "module", build_module(tree)))
            if (tree / "tools/testing/selftests/mm/mmbench/Makefile").exists():
                done.append((n, subject, "kselftest", build_kselftest(tree)))
    finally:
        git(tree, "checkout", "-q", "--detach", head)
    return done, len(commits)


def assemble_tree():
    """The kernel tree the kselftest is built in: a git work tree of
    linux-source-6.12 with the upstream series applied by git am, redone
    only when the series changed; return the tree."""
    return applied_tree()
