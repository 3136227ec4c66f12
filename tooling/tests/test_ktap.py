"""The KTAP helpers the verdicts are taken from."""
import contextlib
import io
import unittest

import support
from mmbench_tool import ktap

RUNNER = support.suite_lines([
    "TAP version 13", "1..2",
    "# kmalloc_64.status=pass", "# kmalloc_64.ns_per_op_median=171.763",
    "ok 1 mmbench.kmalloc.run",
    "ok 2 ndelay.slope # SKIP ndelay is not in the benchmarks= of "
    "MMBENCH_PARAMS"], verdict="not ok")


class Ktap(unittest.TestCase):
    def test_inner_ktap_and_results(self):
        suite = ktap.between(RUNNER, "MMBENCH-GUEST-BEGIN",
                             "MMBENCH-SUITE-END")
        inner = ktap.inner_ktap(suite)
        self.assertEqual(inner[:2], ["TAP version 13", "1..2"])
        self.assertEqual(ktap.results(inner), [
            (True, 1, "mmbench.kmalloc.run", "", ""),
            (True, 2, "ndelay.slope", "SKIP",
             "ndelay is not in the benchmarks= of MMBENCH_PARAMS")])
        self.assertEqual(ktap.figures(inner)["kmalloc_64"],
                         {"status": "pass", "ns_per_op_median": "171.763"})
        self.assertTrue(ktap.runner_verdict(suite).startswith("not ok 1"))

    def test_scaling_table(self):
        table = {"kmalloc_64": {"status": "pass", "net_ns_per_op": "9.0"},
                 "kmalloc_concurrent_cpus16": {"status": "pass",
                                               "net_ns_per_op": "80.5"},
                 "kmalloc_concurrent_cpus2": {"status": "pass",
                                              "net_ns_per_op": "31.25"},
                 "page_frag_concurrent_cpus2": {"status": "unsupported"},
                 "page_frag_concurrent_cpus1": {"status": "fail",
                                                "net_ns_per_op": "12.0"}}
        # The *_contended rows are points of a curve as well.
        self.assertEqual(ktap.curves({"kmalloc_contended_cpus4": {},
                                      "alloc_pages_order0": {}}),
                         {"kmalloc_contended": [(4, "kmalloc_contended_cpus4")]})
        self.assertEqual(ktap.curves(table), {
            "kmalloc_concurrent": [(2, "kmalloc_concurrent_cpus2"),
                                   (16, "kmalloc_concurrent_cpus16")],
            "page_frag_concurrent": [(1, "page_frag_concurrent_cpus1"),
                                     (2, "page_frag_concurrent_cpus2")]})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ktap.print_scaling(table)
        lines = out.getvalue().splitlines()
        self.assertIn("team_cpus=", lines[0])
        self.assertEqual(lines[1].split(), ["ns/op,", "CPUs", "at", "once",
                                            "1", "CPU", "2", "CPUs", "16",
                                            "CPUs"])
        self.assertEqual(lines[2].split(), ["kmalloc_concurrent", "-",
                                            "31.25", "80.5"])
        self.assertEqual(lines[3].split(), ["page_frag_concurrent", "12.0",
                                            "-", "-"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ktap.print_scaling({"kmalloc_64": table["kmalloc_64"]})
        self.assertEqual(out.getvalue(), "")

    def test_a_failed_case_says_why(self):
        # results.json's reason of a case over its ceiling was "": the
        # harness's words were in the KTAP only.
        inner = [
            "# mmbench_test.c:805:run:Expected r->median (192826) <= "
            "ceiling (1000)",
            "# mmbench_test.c:806:run:kmalloc_64: median 192.826 ns/op is "
            "over the ceiling of 1.000 ns/op",
            "# kmalloc_64.status=pass", "not ok 1 mmbench.kmalloc.run",
            "# mmbench_test.c:700:run:Expected 0 (0) == ret (1)",
            "not ok 2 mmbench.kmem_cache.run", "ok 3 mmbench.page_frag.run"]
        self.assertEqual(ktap.results(inner), [
            (False, 1, "mmbench.kmalloc.run", "", "kmalloc_64: median "
             "192.826 ns/op is over the ceiling of 1.000 ns/op"),
            (False, 2, "mmbench.kmem_cache.run", "",
             "Expected 0 (0) == ret (1)"),
            (True, 3, "mmbench.page_frag.run", "", "")])

    def test_injected_failures_only_in_their_window(self):
        trace = ["mmbench/0: page allocation failure: order:0, mode:0xcc0",
                 "Call Trace:", " <TASK>", " dump_stack_lvl+0x5d/0x80",
                 " </TASK>"]
        log = (["boot"] + trace + ["mmbench-faults: begin"] + trace +
               ["Mem-Info:", "mmbench-faults: end"] + trace)
        reports, left = ktap.injected_failure_reports(log)
        self.assertEqual(reports, 1)
        # Outside the window a report is the kernel's: it counts.
        self.assertEqual(ktap.bad_kernel_lines(log),
                         ["Call Trace:", "Call Trace:"])
        # A report of another kind in the window counts too.
        self.assertEqual(ktap.bad_kernel_lines(
            ["mmbench-faults: begin", "BUG: KASAN: use-after-free"]),
            ["BUG: KASAN: use-after-free"])

    def test_a_row_keeps_the_figures_of_its_first_case(self):
        inner = ["# ptr_ring_remote.ns_per_op_median=79.187",
                 "# ptr_ring_remote.ceiling=enforced (default)",
                 "# ptr_ring_remote.ceiling=not judged (drift)",
                 "ok 1 mmbench.ptr_ring_remote.run",
                 "# ptr_ring_remote.ns_per_op_median=142.306",
                 "# ptr_ring_remote.ceiling=enforced (default)",
                 "# page_frag_remote_free.ns_per_op_median=150.000",
                 "ok 2 mmbench.page_frag_remote_free.run"]
        table = ktap.figures(inner)
        self.assertEqual(table["ptr_ring_remote"],
                         {"ns_per_op_median": "79.187",
                          "ceiling": "not judged (drift)"})
        self.assertEqual(table["page_frag_remote_free"]["ns_per_op_median"],
                         "150.000")
        # The case each row's kept figures came from (results.json's
        # "case"): an index into results().
        self.assertEqual(ktap.figure_cases(inner),
                         {"ptr_ring_remote": 0, "page_frag_remote_free": 1})

    def test_the_case_running_when_the_output_stopped(self):
        inner = ["#  RUN           mmbench.kmalloc.run ...",
                 "#            OK  mmbench.kmalloc.run",
                 "ok 1 mmbench.kmalloc.run"]
        self.assertIsNone(ktap.unfinished(inner))
        inner += ["#  RUN           mmbench.kmem_cache.run ...",
                  "# kmem_cache_8.status=pass"]
        self.assertEqual(ktap.unfinished(inner), "mmbench.kmem_cache.run")
        self.assertEqual(ktap.figure_cases(inner), {"kmem_cache_8": 1})

    def test_merge_logs_keeps_order_and_each_line_once(self):
        dmesg = ["[    5.000000] b", "[    9.000000] d"]
        console = ["SeaBIOS", "[    1.000000] a", "[    5.000000] b",
                   "[    7.000000] c"]
        self.assertEqual(ktap.merge_logs(dmesg, console),
                         ["SeaBIOS", "[    1.000000] a", "[    5.000000] b",
                          "[    7.000000] c", "[    9.000000] d"])

    def test_between_without_end(self):
        self.assertEqual(ktap.between(["a", "B", "c"], "B", "E"), ["c"])
        self.assertIsNone(ktap.between(["a"], "B", "E"))


if __name__ == "__main__":
    unittest.main()


class Table(unittest.TestCase):
    def test_rows_that_did_not_pass_show_no_figures(self):
        import contextlib
        import io
        table = {
            "kmalloc_64": {"status": "pass", "context": "preempt",
                           "ns_per_op_median": "171.763"},
            "alloc_pages_remote_free": {"status": "noisy",
                                        "context": "preempt",
                                        "ns_per_op_median": "0.000"},
        }
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ktap.print_table(table)
        lines = out.getvalue().splitlines()
        self.assertIn("171.763", lines[1])
        self.assertNotIn("0.000", lines[2])
        self.assertIn("noisy", lines[2])

    def test_rows_of_a_list_in_number_order(self):
        import contextlib
        import io
        names = ["baseline", "kmalloc_1000", "kmalloc_192", "kmalloc_64",
                 "kmalloc_8", "count_vm_event", "alloc_pages_bulk_16",
                 "alloc_pages_bulk_256", "alloc_pages_bulk_64"]
        table = {n: {"status": "pass", "context": "preempt"} for n in names}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ktap.print_table(table)
        shown = [line.split()[0] for line in out.getvalue().splitlines()[1:]
                 if line.split()[0] in table]
        self.assertEqual(shown, ["baseline", "kmalloc_8", "kmalloc_64",
                                 "kmalloc_192", "kmalloc_1000",
                                 "count_vm_event", "alloc_pages_bulk_16",
                                 "alloc_pages_bulk_64",
                                 "alloc_pages_bulk_256"])
