"""./mmbench compare: the archives of two kernels compared row by row,
the table printed and written (compare.txt, compare.json, the plots) in a
folder; the statistics are compare.py's."""
import json
import tempfile
from pathlib import Path

from . import archive, deps, guest
from .common import Failure, say
from .measure import (COMPARE_PACKAGES, _is, compare_archives, exit_status,
                      say_no_answer)


def _pair(paths):
    """The A and B archives of compare's arguments: two archives or
    results folders, or one folder of ./mmbench measure (A.jsonl,
    B.jsonl)."""
    if len(paths) == 1:
        d = paths[0]
        if not _is(d, Path.exists, "compare"):
            raise Failure(f"{d}: does not exist")
        if _is(d, Path.is_file, "compare"):
            raise Failure(f"{d}: one archive: give A and B, or one folder "
                          "of ./mmbench measure")
        if not _is(d, Path.is_dir, "compare"):     # /dev/null, a pipe
            raise Failure(f"{d}: neither a folder nor an archive: give A "
                          "and B, or one folder of ./mmbench measure")
        if not _is(d / "A.jsonl", Path.exists, "compare") or \
                not _is(d / "B.jsonl", Path.exists, "compare"):
            raise Failure(f"{d}: no A.jsonl and B.jsonl in it: give two "
                          "archives or results folders")
        return [d / "A.jsonl"], [d / "B.jsonl"], d
    for p in paths:
        if not _is(p, Path.exists, "compare"):
            raise Failure(f"{p}: does not exist")
    return [paths[0]], [paths[1]], None


def _output_folder(d, what):
    """Make folder @d and see that a file can be written in it, before a
    verdict is printed: a verdict followed by an error would be read as
    the error's exit status.  @what names where @d came from.  Return the
    folders made, the deepest first."""
    parts = [d, *d.parents]
    # The folder, or the first of its parents that exists, is a folder.
    there = next((f for f in parts if _is(f, Path.exists, what)), None)
    if there is not None and not there.is_dir():
        raise Failure(f"{what} {d}: {there} is a file; want a folder "
                      "for compare.txt, compare.json and the plots")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise Failure(f"{what} {d}: {e.strerror or e}") from e
    made = parts[:parts.index(there)] if there is not None else parts
    try:
        with tempfile.NamedTemporaryFile(dir=d, prefix=".mmbench-probe-"):
            pass
    except OSError as e:
        _remove_folders(made)
        raise Failure(f"{what} {d}: cannot write a file there: "
                      f"{e.strerror or e}") from e
    return made


def _remove_folders(made):
    """Remove the folders of @made, the deepest first, that are empty."""
    for f in made:
        try:
            f.rmdir()
        except OSError:
            return


def _saved_labels(d):
    """The kernels' labels measure (or a compare) saved in @d's
    compare.json: the revisions of --tree, or --label-a and -b, which a
    compare of the folder again keeps; (None, None) where it has none."""
    try:
        saved = json.loads((d / "compare.json").read_text()).get("labels")
        return tuple(saved[s] if isinstance(saved.get(s), str) and
                     saved[s] else None for s in "AB")
    except (OSError, ValueError, AttributeError, TypeError):
        return None, None


def cmd_compare(args):
    from .options import check_labels
    check_labels(args)
    a, b, where = _pair([args.a] + ([args.b] if args.b else []))
    made = _output_folder(args.output, "-o") if args.output else []
    try:
        a, b = archive.Archive.read(*a), archive.Archive.read(*b)
    except (ValueError, KeyError, TypeError, AttributeError, OSError) as e:
        # Refused archives leave no empty -o folder behind.
        _remove_folders(made)
        raise Failure(f"compare: {e}") from e
    labels = (args.label_a, args.label_b)
    if where and not any(labels):
        labels = _saved_labels(where)
    outdir = args.output or where or guest.results_dir("-compare")
    if not args.output:
        # A new results folder a refusal below leaves empty goes again.
        _output_folder(outdir, "results folder")
        made = [] if where else [outdir]
    deps.ensure(COMPARE_PACKAGES)
    try:
        c = compare_archives(a, b, args.norm, outdir,
                             plot=not args.no_plots, labels=labels)
    except (ValueError, KeyError, TypeError, AttributeError, OSError,
            ArithmeticError) as e:
        _remove_folders(made)
        raise Failure(f"compare: {e}") from e
    say(f"results in {outdir}")
    say_no_answer(c)
    return exit_status(c)
