"""Benchmark and ceiling names are checked against the module's table
before anything is built or booted: a typo used to skip every case, or
be ignored, and still end in "suite PASSED"."""
import unittest

import support
from mmbench_tool import names


class Table(unittest.TestCase):
    def test_read_from_the_module(self):
        benches = names.benchmarks()
        self.assertEqual(list(benches)[:2], ["baseline", "ndelay"])
        self.assertIsNone(benches["count_vm_event"])
        self.assertEqual(benches["alloc_pages"], "order")
        self.assertEqual(benches["kmalloc"], "")
        self.assertIn("ptr_ring_remote", benches)

    def test_ranged_parameters_read_from_the_module(self):
        # Every ranged unsigned parameter, with the range the module
        # gives it: one missed escapes the host's check before booting.
        self.assertEqual(names.uint_ranges(), {
            "iterations": (0, 100000000), "samples": (1, 250),
            "sample_us": (100, 100000), "budget_ms": (100, 600000),
            "batch": (1, 65536), "inject_stall_ms": (0, 10000),
            "tail_ops": (0, 65536)})

    def test_ceilings_file_names_module_rows(self):
        benches = names.benchmarks()
        for name in names.ceiling_names():
            self.assertIsNotNone(names.bench_of(name, benches), name)

    def test_rows(self):
        benches = names.benchmarks()
        for row, bench in (("kmalloc_64", "kmalloc"),
                           ("alloc_pages_order3", "alloc_pages"),
                           ("alloc_pages_batch_order0", "alloc_pages_batch"),
                           ("ndelay_200", "ndelay"),
                           ("kmalloc_concurrent", "kmalloc_concurrent"),
                           ("kmaloc", None), ("alloc_pages_3", None),
                           ("kmalloc_", None)):
            self.assertEqual(names.bench_of(row, benches), bench, row)


class Refused(support.Options, unittest.TestCase):
    """Exit 2 and a message naming the mistake, before any package step."""

    def test_benchmarks_typo(self):
        self.refused("--param", "benchmarks=kmaloc",
                     says="no benchmark 'kmaloc'; did you mean kmalloc?")
        self.refused("--param", "benchmarks=kmalloc,count_vm_evnt",
                     says="no benchmark 'count_vm_evnt'")

    def test_benchmarks_as_the_module_checks_them(self):
        self.refused("--param", "benchmarks=baseline",
                     says="the baseline always runs")
        self.refused("--param", "benchmarks=kmalloc,kmalloc",
                     says="kmalloc given twice")
        self.refused("--param", "benchmarks=kmalloc,", says="empty name")
        self.refused("--param", "benchmarks=all,kmalloc",
                     says="\"all\" stands alone, not with names")

    def test_unknown_parameter(self):
        self.refused("--param", "bogus=1",
                     says="the module has no parameter 'bogus'")
        self.refused("--param", "sampels=3",
                     says="did you mean samples?")
        self.refused("--param", "SAMPLES=5",
                     says="parameter names are lower case, e.g. samples=")

    def test_slow_into_as_the_module_checks_it(self):
        self.refused_measure("--param", "slow_into=kmalloc:40",
                     says="kmalloc has a row per value of its list: name "
                          "one, e.g. kmalloc_<N> (N a value of the list)")
        self.refused_measure("--kernel-arg=--",
                             says="--kernel-arg '--': want one parameter")
        self.refused_measure("--param", "slow_into=kmalloc_64:abc",
                     says="'abc' is not a number from 1 to 10000")
        self.refused_measure("--param", "slow_into=kmalloc_64:10001",
                     says="is not a number from 1 to 10000")
        self.refused_measure("--param", "slow_into=kmalloc_64",
                     says="is not ROW:STEPS")
        self.refused_measure("--param", "slow_into=baseline:5",
                     says="baseline is what the others are judged against")
        self.accepted_measure("--param", "slow_into=kmalloc_concurrent_cpus2:5,"
                              "ptr_ring_remote:5")
        self.refused_measure("--param", "slow_into=kmalloc_concurrent:5",
                             says="kmalloc_concurrent has a row per value of "
                                  "its list: name one, e.g. "
                                  "kmalloc_concurrent_cpus<N>")
        self.refused_measure("--param", "slow_into=kmaloc_64:5", says="no row")
        self.accepted_measure("--param", "slow_into=kmalloc_64:40,"
                      "inc_dec_zone_page_state:3")
        self.accepted("--param", "samples=3", "--param", "inject_stall_ms=0")
        self.refused_measure("--param", "slow_into=kmalloc_64:5", "--param",
                           "benchmarks=kmem_cache",
                           says="its benchmark kmalloc is not in "
                                "benchmarks=kmem_cache")
        self.accepted_measure("--param", "slow_into=kmalloc_64:5", "--param",
                            "benchmarks=kmem_cache,kmalloc")
        # A side's own parameter is named as the side's.
        self.refused_measure("--b-param", "slow_into=kmalloc_concurrent_cpus1:0",
                             says="B's parameters: --b-param "
                                  "slow_into=kmalloc_concurrent_cpus1:0: '0' is "
                                  "not a number")
        self.refused_measure("--a-param", "nosuch=1",
                             says="A's parameters: --a-param nosuch=1")
        self.refused_measure("--b-param", "slow_into=",
                             says="B's parameters: --b-param "
                                  "'slow_into=': the value is empty")
        # A row on several CPUs where the guest gives it one: it would
        # not run, so nothing would be slowed.
        self.refused_measure("--cpus", "1", "--b-param",
                             "slow_into=kmalloc_concurrent_cpus2:5",
                             says="kmalloc_concurrent_cpus2 runs on 2 CPUs, "
                                  "and the guest has 1 for it")
        self.accepted_measure("--cpus", "1", "--b-param",
                              "slow_into=kmalloc_concurrent_cpus1:5")
        # team_cpus= above the CPUs the rows have: the module would leave
        # those rows unsupported, so the front end refuses it.
        self.refused_measure("--param", "cpus=0", "--param", "team_cpus=1,2",
                             says="--param team_cpus=1,2: 2 is more than the "
                                  "1 CPU the guest has for the rows on "
                                  "several CPUs (--cpus 2, cpus=0)")
        self.accepted_measure("--cpus", "4", "--param", "team_cpus=1,3,4")
        # Its upper bound is the kernel's NR_CPUS (it said "to None").
        self.refused_measure("--param", "team_cpus=0",
                             says="'0' is not a number from 1 to NR_CPUS")
        # Pairs alone, on 1 CPU: nothing would run (a new user's run
        # booted, skipped every case and blamed the selection).
        self.refused("--cpus", "1", "--param",
                     "benchmarks=kmalloc_remote_free,ptr_ring_remote",
                     says="kmalloc_remote_free, ptr_ring_remote run on 2 "
                          "CPUs, and the guest has 1 for them (--cpus 1)")
        self.accepted("--cpus", "1", "--param",
                      "benchmarks=kmalloc_remote_free,kmalloc_concurrent")
        self.refused_measure("--b-param", "cpus=1", "--b-param",
                             "slow_into=ptr_ring_remote:5",
                             says="(--cpus 2, cpus=1)")
        self.accepted_measure("--cpus", "1", "--b-param",
                              "slow_into=kmalloc_64:5")
        self.accepted_measure("--b-param", "cpus=0-1", "--b-param",
                              "slow_into=ptr_ring_remote:5")
        # --env MMBENCH_PARAMS is both sides': named as itself.
        self.refused_measure("--env", "MMBENCH_PARAMS=samples=0",
                             says="error: --env MMBENCH_PARAMS samples=0: "
                                  "want a number from 1 to 250")
        self.refused("--env", "MMBENCH_PARAMS=nosuch=1",
                     says="error: --env MMBENCH_PARAMS nosuch=1: the module "
                          "has no parameter")
        self.refused_measure("--env", "MMBENCH_PARAMS=samples=3",
                             "--b-param", "samples=4",
                             says="B's parameters: module parameter samples "
                                  "given twice (--env MMBENCH_PARAMS "
                                  "samples=3 and --b-param samples=4)")
        # Each named by the option it came with, one a prefix of the
        # other or not.
        self.refused_measure("--b-param", "samples=3", "--b-param",
                             "samples=30",
                             says="(--b-param samples=3 and --b-param "
                                  "samples=30)")
        self.refused_measure("--param", "samples=3", "--b-param",
                             "samples=3",
                             says="(--param samples=3 and --b-param "
                                  "samples=3)")

    def test_slow_into_not_with_the_kselftest(self):
        # Each case loads its own benchmark: the others would refuse it.
        for command in ("run", "verdicts", "lava", "bench"):
            rc, out = support.options_only(
                command, *(("--accel", "tcg") if command != "lava" else ()),
                "--param", "slow_into=kmalloc_64:5")
            self.assertEqual(rc, 2, out)
            self.assertIn("the kselftest loads the module once a case", out)

    def test_slow_into_on_a_side_of_test_compare_check(self):
        # ./mmbench test's compare check boots sides that only load the
        # module (bench.sh): slow_into is theirs to have.
        import unittest.mock

        from mmbench_tool import cli, measure, options, selftest
        got = {}

        def keep(a):
            got["args"] = a
            raise support.Reached
        with unittest.mock.patch.object(selftest, "cmd_test",
                                        side_effect=keep):
            try:
                cli.main(["test", "--accel", "tcg"])
            except support.Reached:
                pass
        side = measure.Side("B", got["args"],
                            params=["slow_into=inc_dec_zone_page_state:1"])
        options.check_options(side.args)

    def test_every_benchmark_named_is_taken(self):
        # benchmarks= is an array parameter of one entry per benchmark:
        # no length limit of its own (there was one of 255 characters).
        names_ = ",".join(b for b in names.benchmarks() if b != "baseline")
        self.assertGreater(len(names_), 255)
        self.accepted_measure("--param", f"benchmarks={names_}")
        # run: but ndelay, which no case of the kselftest runs.
        self.accepted("--param", "benchmarks=" + names_.replace("ndelay,", ""))

    # --aa: one kernel on both sides, as these options alone give.
    def refused_measure(self, *argv, says):
        rc, out = support.options_only("measure", "--aa", "--accel", "tcg",
                                       *argv)
        self.assertEqual(rc, 2, f"{argv} was accepted:\n{out}")
        self.assertIn(says, out)

    def accepted_measure(self, *argv):
        rc, out = support.options_only("measure", "--aa", "--accel", "tcg",
                                       *argv)
        self.assertIsNone(rc, f"{argv} was refused:\n{out}")


    def test_values_out_of_the_module_range(self):
        for value in ("-1", "10001", "abc", "0x2711", "08", "1e3"):
            self.refused("--param", f"inject_stall_ms={value}",
                         says=f"inject_stall_ms={value}: want a number "
                              "from 0 to 10000")
        self.refused("--param", "samples=0",
                     says="want a number from 1 to 250")
        self.refused("--env", "MMBENCH_PARAMS=iterations=100000001",
                     says="from 0 to 100000000")
        self.refused("--param", "samples=09", says="want a number from 1 "
                     "to 250 (a leading 0 makes it octal to the kernel)")
        # The knobs patch knows two: a value it does not know fails every
        # case's load in the guest.
        for value in ("foo", "1", "DUP"):
            self.refused("--param", f"break_check={value}",
                         says=f"break_check={value}: want charge or counter or dup or leak")
        self.accepted("--debug-kernel", "--param", "break_check=dup")
        # No case of the kselftest runs ndelay: run would skip them all.
        self.refused("--param", "benchmarks=ndelay", says="ndelay has no "
                     "case in the kselftest")
        self.refused("--param", "benchmarks=kmalloc,ndelay",
                     says="ndelay has no case")
        self.accepted_measure("--param", "benchmarks=ndelay")
        # As the module reads them: kstrtouint() in base 0.
        self.accepted("--param", "inject_stall_ms=10000", "--param",
                      "sample_us=100", "--param", "samples=0x10",
                      "--param", "iterations=010", "--param", "batch=+7")

    def test_lists_as_the_module_checks_them(self):
        for param, says in (("sizes=64,,96", "'' is not a number from 1 to "
                             "8192"),
                            ("sizes=8193", "'8193' is not a number"),
                            ("orders=11", "'11' is not a number from 0 to 10"),
                            ("delays=1,2,3,4,5,6,7,8,9", "more than 8 values"),
                            ("bulk=16,16", "16 given twice"),
                            ("frag_sizes=4097", "'4097' is not a number from 1 to 4096")):
            self.refused("--param", param, says=f"--param {param}: {says}")
        self.accepted("--param", "sizes=64,0x60", "--param", "orders=0,10",
                      "--param", "delays=0,1,2,3,4,5,6,7")

    def test_what_a_new_user_tried(self):
        # make_it_fail is faults.sh's, in the debug kernel's guest; the
        # stock kernels refuse it true, any kernel a non-boolean.
        for value in ("1", "Y", "on", "true"):
            self.refused("--param", f"make_it_fail={value}",
                         says=f"make_it_fail={value}: test only, for fault "
                              "injection")
        for value in ("2", "banana", "-1", "o"):
            self.refused("--param", f"make_it_fail={value}",
                         says="want a boolean as the kernel reads it")
        self.accepted("--param", "make_it_fail=0")
        self.accepted("--debug-kernel", "--param", "make_it_fail=1")
        # An entry longer than a row name and its steps (its sysfs value
        # must fit a page).
        self.refused_measure("--param",
                             "slow_into=kmalloc_64:" + "0" * 60 + "1",
                             says="longer than ROW:STEPS can be")
        # The module's array holds 8 entries.
        nine = ",".join(f"kmalloc_{s}:1" for s in
                        (8, 64, 96, 192, 1000, 4096, 8192)) + \
            ",count_vm_event:1,count_vm_events:1"
        self.refused_measure("--param", f"slow_into={nine}",
                             says="more than 8 entries")
        # Digits the kernel reads: ASCII only.
        self.refused("--param", "cpu=\u0661", says="want -1 or an online CPU")
        self.refused("--param", "cpus=\u0661",
                     says="not a CPU list as cpulist_parse() reads it")
        # A range is not expanded to be checked.
        self.refused("--param", "cpus=0-4294967295",
                     says="want a list of the guest's online CPUs")
        # The kselftest's parameters hold 1023 characters, 900 of them the
        # user's (but benchmarks=); bench.sh's
        # loads (measure) take more.
        cpus = ",".join(["0"] * 450)
        self.refused("--param", f"cpus={cpus}",
                     says="the kselftest takes at most 900 besides its own")
        self.accepted_measure("--param", f"cpus={cpus}")
        # Its own benchmarks= is not counted: the kselftest replaces it.
        cpus = ",".join(["0"] * 440)
        every = ",".join(b for b in names.benchmarks()
                         if b not in ("baseline", "ndelay"))
        self.accepted("--param", f"cpus={cpus}", "--param",
                      f"benchmarks={every}")

    def test_cpus_of_the_guest(self):
        for param in ("cpu=2", "cpu=-2", "cpu=x"):
            self.refused("--param", param, says="want -1 or an online CPU "
                         "of the guest's 2 (--cpus 2), 0 to 1")
        for value in ("0-7", "3", "2-N"):
            self.refused("--param", f"cpus={value}",
                         says="want a list of the guest's online CPUs "
                              "(--cpus 2), 0 to 1, such as 0-3,6")
        # What cpulist_parse() refuses on any machine is no list at all:
        # a range backwards, a group of 0, more used than a group has.
        for value in ("abc", "1-0", "0-1:1/0", "0-1:2/1", "1:1/2",
                      "0-4294967296", "alle", "0,-1", "0-3:N/1"):
            self.refused("--param", f"cpus={value}",
                         says=f"--param cpus={value}: not a CPU list as cpulist_parse() reads it: N, N-M, "
                              "N-M:U/G (M not below N, U not over G, G "
                              "over 0), all")
        self.refused("--param", "cpus=,", says="cpus=,: no CPU in it")
        # N is the last possible CPU: N-0 is a list where that is CPU 0
        # (nosmp on x86), not with two of them.
        self.refused("--param", "cpus=N-0",
                     says="want a list of the guest's online CPUs")
        self.accepted_measure("--kernel-arg", "nosmp", "--param", "cpus=N-0")
        for value in ("N-1", "0-1:N/2"):
            self.accepted("--param", f"cpus={value}")
        # bitmap_parse_region() looks no further than a group's number:
        # a region glued onto it is the next region.
        self.assertEqual(names.cpu_list("0-1:1/2N", 2), {0, 1})
        self.assertEqual(names.cpu_list("0-3:1/2all", 4), {0, 1, 2, 3})
        self.assertEqual(names.cpu_list("0-3:1/25", 4), {0})
        for value in ("0-1:1/2N", "0-1:1/1all"):
            self.accepted("--param", f"cpus={value}")
        for value in ("0-1:1/2-1", "N5", "1:1/2", "all-1", "0-1x"):
            self.assertIsNone(names.cpu_list(value, 4), value)
        # The lists cpulist_parse() takes, as it reads them.
        for value in ("all", "ALL", "N", "0-N", "0,N", "0-1:1/1", "all:1/1",
                      "1,0,", ",0-1"):
            self.accepted("--param", f"cpus={value}")
        self.accepted_measure("--param", "cpus=all", "--b-param",
                              "slow_into=ptr_ring_remote:5")
        self.refused_measure("--cpus", "4", "--param", "cpus=0-3:1/4",
                             "--b-param", "slow_into=ptr_ring_remote:5",
                             says="the guest has 1 for it (--cpus 4, "
                                  "cpus=0-3:1/4)")
        # A kernel argument that keeps CPUs offline keeps them from the
        # rows too.
        for arg in ("maxcpus=1", "nr_cpus=1", "nosmp", "maxcpus=0"):
            self.refused_measure("--kernel-arg", arg, "--b-param",
                                 "slow_into=kmalloc_concurrent_cpus2:5",
                                 says="the guest has 1 for it (--cpus 2, "
                                      f"--kernel-arg {arg})")
            self.refused_measure("--kernel-arg", arg, "--param", "cpu=1",
                                 says="an online CPU of the guest's 1 "
                                      f"(--cpus 2, --kernel-arg {arg})")
        self.accepted_measure("--kernel-arg", "maxcpus=2", "--b-param",
                              "slow_into=kmalloc_concurrent_cpus2:5")
        # As the kernel reads them: nr_cpus=0 or -1 is ignored, the last
        # maxcpus= or nosmp wins, get_option() reads 0x and 0 octal and
        # stops at what is no digit, a negative maxcpus= is no limit, and
        # "-" is "_" in a name.
        for args in (["nr_cpus=0"], ["nr_cpus=-1"], ["maxcpus=1", "maxcpus=4"],
                     ["nosmp", "maxcpus=2"], ["maxcpus=0x2"], ["maxcpus=02"],
                     ["maxcpus=-1"], ["maxcpus="], ["maxcpus"],
                     ["nr_cpus=x"], ["nr_cpus=4"]):
            self.accepted_measure(*(w for a in args for w in ("--kernel-arg", a)),
                                  "--b-param", "slow_into=ptr_ring_remote:5")
        for args, said in ((["maxcpus=4", "maxcpus=1"], "maxcpus=1"),
                           (["maxcpus=0x1"], "maxcpus=0x1"),
                           (["maxcpus=1abc"], "maxcpus=1abc"),
                           (["nr-cpus=1"], "nr-cpus=1"),
                           (["nr_cpus=1", "nr_cpus=4"], "nr_cpus=1"),
                           (["maxcpus=2", "nosmp"], "nosmp"),
                           # get_option() stores 0 where it reads no
                           # digit, and nosmp takes no value.
                           (["maxcpus=abc"], "maxcpus=abc"),
                           (["maxcpus=+2"], "maxcpus=+2"),
                           (["maxcpus=-x"], "maxcpus=-x"),
                           (["nosmp=x"], "nosmp=x")):
            self.refused_measure(*(w for a in args for w in ("--kernel-arg", a)),
                                 "--b-param", "slow_into=ptr_ring_remote:5",
                                 says="the guest has 1 for it (--cpus 2, "
                                      f"--kernel-arg {said})")
        # get_option() keeps 32 bits of a number: 4294967297 is 1.
        self.refused_measure("--cpus", "4", "--kernel-arg",
                             "maxcpus=4294967297", "--param", "cpus=0-3",
                             says="want a list of the guest's online CPUs "
                                  "(--cpus 4, --kernel-arg "
                                  "maxcpus=4294967297), 0 to 0")
        # arm64 keeps every CPU possible with nosmp: all is 0-3 there,
        # three of them offline.
        self.refused_measure("--arch", "arm64", "--cpus", "4",
                             "--kernel-arg", "nosmp", "--param", "cpus=all",
                             says="want a list of the guest's online CPUs "
                                  "(--cpus 4, --kernel-arg nosmp), 0 to 0")
        # With nosmp or maxcpus=0, x86's one possible CPU is what N and
        # all name.
        for arg in ("nosmp", "maxcpus=0"):
            for value in ("all", "N", "0-N"):
                self.accepted_measure("--kernel-arg", arg, "--param",
                                      f"cpus={value}", "--param",
                                      "benchmarks=kmalloc,kmalloc_concurrent")
        self.accepted_measure("--kernel-arg", "nosmp=x", "--b-param",
                              "slow_into=kmalloc_64:5")
        # A longer number wraps at 2^64 before its 32 bits are kept (as
        # a 6.12 guest showed: 2 of 4 CPUs online).
        self.assertEqual(names.online_cpus(
            4, ["maxcpus=110680464442257309698"])[:2], (2, 4))
        self.assertEqual(names.online_cpus(
            4, ["maxcpus=" + "9" * 5000])[:2], (4, 4))
        self.refused("--param", "context=irqoff",
                     says="the module has no parameter 'context'")
        self.accepted("--param", "cpu=1", "--param", "cpus=0-1")
        self.accepted("--cpus", "4", "--param", "cpus=0,3")
        # No more CPUs than QEMU's machine takes (pc 255, arm64's virt
        # 8), nor a set of a million of them.
        self.refused("--cpus", "100000", says="--cpus must be from 1 to 255")
        self.refused("--cpus", "9", "--arch", "arm64",
                     says="--cpus must be from 1 to 8")
        self.refused("--memory", "100000000",
                     says="--memory must be from 256 to 1048576 (MiB)")
        self.accepted("--cpus", "255", "--memory", "1048576")
        # Past about 9.2e9 s Python's timer cannot hold it: a traceback,
        # and the guest ran without a limit.
        self.refused("--timeout", "99999999999999999999",
                     says="--timeout must be from 10 to 604800 (seconds, "
                          "a week)")
        self.refused("--timeout", "9", says="--timeout must be from 10")
        self.accepted("--timeout", "604800")
        # The rows on several CPUs run in both kernels, or in neither.
        self.refused_measure("--a-param", "cpus=1",
                             says="the rows on several CPUs would run in "
                                  "one kernel only (A: cpus=1, one CPU; B: "
                                  "--cpus 2, two CPUs or more)")
        self.accepted_measure("--a-param", "cpus=1", "--param",
                              "benchmarks=kmalloc,alu_chain")
        self.accepted_measure("--a-param", "cpu=1", "--b-param", "cpu=0")
        self.accepted_measure("--param", "cpus=1")

    def test_ceiling_over_the_largest(self):
        self.refused("--ceiling", "kmalloc_64=99999999999999999999",
                     says="over the test's largest ceiling")
        # Digits past what Python converts: refused, not a traceback.
        self.refused("--ceiling", "kmalloc_" + "9" * 5000 + "=1",
                     says="is no row the module can run: sizes= takes 1 "
                          "to 8192")
        self.refused_measure("--param", "cpus=" + "9" * 5000,
                             says="not a CPU list as cpulist_parse() reads it")
        self.refused_measure("--param", "iterations=" + "9" * 5000,
                             says="want a number from 0 to 100000000")
        self.refused_measure("--param", "cpu=" + "9" * 5000,
                             says="want -1 or an online CPU")

    def test_an_option_of_another_command(self):
        # --loads is run's: lava's usage says so, not the top level's.
        rc, out = support.options_only("lava", "--loads", "3")
        self.assertEqual(rc, 2, out)
        self.assertIn("usage: mmbench lava", out)
        self.assertIn("mmbench lava: error: unrecognized arguments: "
                      "--loads 3", out)
        rc, out = support.options_only("run", "--accel", "tcg", "--bogus")
        self.assertEqual(rc, 2, out)
        self.assertIn("mmbench run: error: unrecognized arguments: --bogus",
                      out)

    def test_removed_parameters(self):
        # The module no longer has them (issue 10): refused as unknown.
        for param in ("inject_into=count_vm_event", "inject_ndelay=200",
                      "inject_extra_ns=0"):
            self.refused("--param", param, says="the module has no "
                         f"parameter '{param.split('=')[0]}'")

    def test_ceiling_names(self):
        # One ceiling a row: the last one given no longer wins silently.
        self.refused("--ceiling", "kmalloc_64=5", "--ceiling", "KMALLOC_64=6",
                     says="--ceiling kmalloc_64 given twice: give it once")
        self.refused("--ceiling", "kmaloc=100",
                     says="--ceiling kmaloc: no benchmark or row 'kmaloc'")
        self.refused("--ceiling", "kmalloc_sixty=100", says="kmalloc_sixty")
        self.refused("--ceiling", "baseline=1",
                     says="baseline is a calibration benchmark")
        self.refused("--ceiling", "ndelay_200=1",
                     says="ndelay is a calibration benchmark")
        # A row of a value its list parameter refuses never runs.
        self.refused("--ceiling", "alloc_pages_order99=100",
                     says="--ceiling alloc_pages_order99: "
                          "alloc_pages_order99 is no row the module can "
                          "run: orders= takes 0 to 10")
        self.refused("--ceiling", "kmalloc_0=100", says="sizes= takes 1 to")
        self.refused("--ceiling", "kmalloc_064=100",
                     says="it names its rows kmalloc_64")
        self.accepted("--ceiling", "alloc_pages_order10=100000",
                      "--ceiling", "kmalloc_8192=1000",
                      "--param", "orders=0,10")
        # A row the module can run but this load does not: refused before
        # the guest boots, not found missing after it.
        self.refused("--ceiling", "alloc_pages_order10=100000",
                     says="--ceiling alloc_pages_order10: no such row in "
                          "this load: orders=0,1,2,3,9 (the default); add "
                          "10 with --param orders=")
        self.refused("--ceiling", "kmalloc_100=10", "--param", "sizes=64",
                     says="no such row in this load: sizes=64;")
        self.refused("--ceiling", "kmalloc_64=10", "--param",
                     "benchmarks=alloc_pages", says="--ceiling kmalloc_64: "
                     "not in this load: benchmarks=alloc_pages leaves out "
                     "kmalloc")

    def test_good_names_accepted(self):
        self.accepted("--param", "benchmarks=kmalloc,count_vm_event")
        self.accepted("--param", "benchmarks=all")
        self.accepted("--param", "benchmarks=inc_dec_zone_page_state")
        self.accepted("--ceiling", "kmalloc=100", "--ceiling",
                      "kmalloc_64=100", "--ceiling", "alloc_pages_order3=1",
                      "--ceiling", "COUNT_VM_EVENT=20", "--ceiling",
                      "alloc_pages_batch_order0=1")


if __name__ == "__main__":
    unittest.main()
