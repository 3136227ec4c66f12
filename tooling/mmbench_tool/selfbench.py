"""./mmbench bench: how far the figures can be trusted, the spread of each
benchmark's median over module loads (a benchmark, not a test)."""
from . import bench, guest, ktap
from .common import Phase, say
from .setup import Setup, save_archive


def cmd_bench(args):
    setup = Setup(args)
    setup.prepare()
    results = guest.results_dir()
    setup.extra_env = {"MMBENCH_LOADS": str(args.loads)}
    out = setup.boot("bench", results)
    lines = ktap.between(out.lines, "MMBENCH-BENCH-BEGIN",
                         "MMBENCH-BENCH-END") or []
    suite, fingerprint, loads = bench.parse(lines)
    save_archive(setup, out, results, "bench")
    Phase.report()
    say("benchmark of the benchmark (a measurement, not a test):")
    text = bench.report(suite, fingerprint, loads)
    (results / "bench.txt").write_text("\n".join(text) + "\n")
    say(f"results in {results}")
    return 0 if loads and suite and not out.timed_out else 1
