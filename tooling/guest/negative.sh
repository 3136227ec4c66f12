#!/bin/sh
# Bad input and environment cases for test_mmbench and mmbench_test, run as
# root inside the mmbench guest.  Prints KTAP; the host counts the results.
rel=$(uname -r)
ko=/lib/modules/$rel/extra/test_mmbench.ko
testdir=/kselftest/mm/mmbench
ncpu=$(nproc)
# The debug kernel (KASAN, kmemleak, lockdep, ...) runs everything several
# times slower: a time limit there is 4 times as long, and it publishes
# ceilings as informational.
debug=""
[ -e /sys/kernel/debug/kmemleak ] && debug=1
slow=1
[ -n "$debug" ] && slow=4
# Its DEBUG_KOBJECT_RELEASE holds each kobject's release 1 to 4 s: an
# unload waits for the rows' and then for the module's own, up to 8 s.
release=0
[ -n "$debug" ] && release=8
# n, failed and result(); at this path in the guest.
# shellcheck source=tooling/guest/ktap.sh
. /mmbench/ktap.sh

loaded() { [ -d /sys/module/test_mmbench ]; }

# The kernel log is never cleared (the host reads it whole at the end, for
# reports): a case marks it, then reads what came after its mark.
mark=0
log_mark() {
	mark=$((mark + 1))
	echo "mmbench-negative: mark $mark" >/dev/kmsg
}
log_since_mark() {
	dmesg | sed -n "/mmbench-negative: mark $mark\$/,\$p"
}

# older_module <string> <replacement of the same length>: a copy of the
# module in /tmp/older.ko with every NUL-bounded <string> replaced, as a
# module older than the test program would lack that name.
older_module() {
	cp "$ko" /tmp/older.ko
	offs=$(strings -t d /tmp/older.ko |
		awk -v s="$1" '{ o = $1; sub(/^ *[0-9]+ /, "") } $0 == s { print o }')
	[ -n "$offs" ] || return 1
	for off in $offs; do
		printf '%s' "$2" | dd of=/tmp/older.ko bs=1 seek="$off" conv=notrunc 2>/dev/null
	done
}

# not_ktap <output>: the lines of a test program's output that are not KTAP
# (a version, a plan, a result or a "#" line).
not_ktap() {
	echo "$1" | grep -vE '^(TAP version [0-9]+|KTAP version [0-9]+|1\.\.[0-9]+|(not )?ok [0-9]+ .*|#.*)$'
}

# refused <parameter> <text dmesg must show>: insmod fails with EINVAL and
# the kernel log names the parameter.
refused() {
	log_mark
	# shellcheck disable=SC2086 # $1 may hold several parameters
	out=$(insmod "$ko" $1 2>&1)
	rc=$?
	log=$(log_since_mark)
	if loaded; then
		rmmod test_mmbench
		result 1 "bad parameter $1 is refused" "module loaded with '$1'"
	elif [ $rc -eq 0 ] || ! echo "$out" | grep -q "Invalid argument"; then
		result 1 "bad parameter $1 is refused" "insmod: rc=$rc: $out"
	elif ! echo "$log" | grep -qF "$2"; then
		result 1 "bad parameter $1 is refused" "dmesg lacks '$2': $log"
	else
		result 0 "bad parameter $1 is refused with EINVAL and '$2'"
	fi
}

echo "KTAP version 1"
echo "1..109"
refused iterations=100000001 "iterations: '100000001' is not a number from"
refused iterations=-5 "iterations: '-5' is not a number from"
refused iterations=1e3 "iterations: '1e3' is not a number from"
refused iterations=lots "iterations: 'lots' is not a number from"
refused samples=0 "samples: '0' is not a number from"
refused samples=251 "samples: '251' is not a number from"
refused sample_us=99 "sample_us: '99' is not a number from"
refused inject_stall_ms=10001 "inject_stall_ms: '10001' is not a number from"
refused sample_us=100001 "sample_us: '100001' is not a number from"
refused budget_ms=99 "budget_ms: '99' is not a number from"
refused cpu=-2 "cpu=-2 is not an online CPU"
refused cpu=$ncpu "cpu=$ncpu is not an online CPU"
refused cpu=100000 "cpu=100000 is not an online CPU"
refused cpu=0x1 "cpu: '0x1' is not a decimal integer"
refused benchmarks=no_such_bench "benchmarks: unknown benchmark 'no_such_bench'"
refused benchmarks=count_vm_event, "benchmarks: empty name"
refused benchmarks=, "benchmarks: empty name"
refused benchmarks=count_vm_event,count_vm_event "benchmarks: 'count_vm_event' given twice"
refused benchmarks=baseline "benchmarks: the baseline always runs"
refused delays=50,50 "delays: 50 given twice"
refused delays=100001 "delays: '100001' is not a number from"
refused delays=1,2,3,4,5,6,7,8,9 "delays: can only take 8 arguments"
refused delays=5, "invalid for parameter \`delays'"
refused slow_into=count_vm_event "slow_into: 'count_vm_event' is not ROW:STEPS"
refused slow_into=:5 "slow_into: ':5' is not ROW:STEPS"
refused slow_into=count_vm_event:5, "slow_into: '' is not ROW:STEPS"
refused slow_into=count_vm_event:0 "slow_into: '0' is not a number from 1 to 10000"
refused slow_into=count_vm_event:10001 "slow_into: '10001' is not a number from 1 to 10000"
# Padded with zeros, 8 such entries would overflow the page of its value.
refused slow_into=count_vm_event:$(printf '%0100d' 5) "is longer than ROW:STEPS can be"
refused "benchmarks=count_vm_event slow_into=inc_zone_page_state:5" "slow_into: inc_zone_page_state: no such row in this load"
refused "benchmarks=count_vm_event slow_into=baseline:5" "slow_into: baseline: the baseline is what others are judged against"
refused "benchmarks=count_vm_event slow_into=count_vm_event:5,count_vm_event:6" "slow_into: count_vm_event: given twice"
refused make_it_fail=maybe "invalid for parameter \`make_it_fail'"
# make_it_fail=1 needs fault injection in the kernel (it has it where
# /proc/self/make-it-fail exists); with no injector set up its rows pass.
if [ -e /proc/self/make-it-fail ]; then
	insmod "$ko" make_it_fail=1 benchmarks=kmalloc sizes=64 samples=3
	rc=$?
	st=$(cat /sys/kernel/mmbench/kmalloc_64/status 2>&1)
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && { [ "$st" = pass ] || [ "$st" = noisy ]; }
	result $? "make_it_fail=1 with no injector set up: kmalloc_64 is $st" "rc=$rc status=$st"
else
	refused make_it_fail=1 "make_it_fail: needs CONFIG_FAULT_INJECTION"
fi
refused orders=11 "orders: '11' is not a number from"
refused orders=0,0 "orders: 0 given twice"
refused orders= "\`' invalid for parameter \`orders'"
refused sizes=0 "sizes: '0' is not a number from"
refused sizes=8193 "sizes: '8193' is not a number from"
refused bulk=0 "bulk: '0' is not a number from"
refused bulk=1025 "bulk: '1025' is not a number from"
refused frag_sizes=0 "frag_sizes: '0' is not a number from"
refused frag_sizes=4097 "frag_sizes: '4097' is not a number from"
refused batch=0 "batch: '0' is not a number from"
refused batch=65537 "batch: '65537' is not a number from"
refused cpus=x "cpus: 'x' is not a CPU list"
refused cpus=0-4095 "cpus: '0-4095' names a CPU above"
refused cpus=-1 "cpus: '-1' is not a CPU list"
refused cpus= "cpus: no CPU in ''"
refused "cpus=0,$ncpu" "cpus: '0,$ncpu' names a CPU above"

# A load runs every benchmark once, then publishes the results: every
# row passes, or is noisy (its samples all dropped: no verdict).  The
# files are read-only.
insmod "$ko" iterations=1000 samples=3
rc=$?
bad=$(for f in $(grep -lvE '^(pass|noisy)$' /sys/kernel/mmbench/*/status); do
	d=${f%/status}; echo "${d##*/}: $(cat "$d/status"): $(cat "$d/reason")"; done 2>&1)
[ $rc -eq 0 ] && [ -z "$bad" ]
result $? "a load runs every benchmark once" "rc=$rc not passing: $bad"

mode=$(stat -c %a /sys/kernel/mmbench/run_ms /sys/kernel/mmbench/fingerprint/debug /sys/kernel/mmbench/count_vm_event/status | tr '\n' ' ')
[ "$mode" = "444 444 444 " ]
result $? "sysfs files are 0444" "modes: $mode"

# A directory for each row the load selected, and the baseline; in each,
# the files that apply to it (net_cycles_per_op only where get_cycles()
# reads the TSC: checked apart).
rmmod test_mmbench
insmod "$ko" benchmarks=count_vm_event,alloc_pages,kmalloc_concurrent orders=0 iterations=1000 samples=3
top="baseline_drift_pct clock_read_ns clock_step_ns fingerprint run_ms"
rows=$(ls /sys/kernel/mmbench | sort | tr '\n' ' ')
common="context cpu group net_ns_per_op noise_pct ns_per_op_mad ns_per_op_median ns_per_op_min ops_per_sample reason sample_ns samples samples_dropped status"
files() { ls "/sys/kernel/mmbench/$1" | grep -vx net_cycles_per_op | sort | tr '\n' ' '; }
want() { echo $common "$@" | tr ' ' '\n' | sort | tr '\n' ' '; }
base=$(files baseline); vm=$(files count_vm_event)
pa=$(files alloc_pages_order0); team=$(files kmalloc_concurrent)
st=$(cat /sys/kernel/mmbench/count_vm_event/status 2>&1)
tsc=no; [ -e /sys/kernel/mmbench/baseline/net_cycles_per_op ] && tsc=yes
case $(uname -m) in x86_64|i?86) want_tsc=yes ;; *) want_tsc=no ;; esac
want_rows=$(echo alloc_pages_order0 baseline count_vm_event kmalloc_concurrent $top | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$rows" = "$want_rows" ] && [ "$base" = "$(want)" ] &&
	[ "$vm" = "$(want counter_delta)" ] &&
	[ "$pa" = "$(want counter_delta free_pages_delta order)" ] &&
	[ "$team" = "$(want counter_delta team_cpus)" ] &&
	{ [ "$st" = pass ] || [ "$st" = noisy ]; } &&
	[ "$tsc" = "$want_tsc" ]
result $? "rows exist for what the load selected, each with the files that apply to it" "rows: $rows; baseline: $base; count_vm_event: $vm; alloc_pages_order0: $pa; kmalloc_concurrent: $team; status: $st; net_cycles_per_op: $tsc on $(uname -m)"
loaded && rmmod test_mmbench

# Another task moving a row's vmstat counter is the machine, not the path:
# with mlock_writer locking and unlocking pages meanwhile (NR_MLOCK, the
# zone rows' counter), those rows are noisy and say why (the counter moved
# without ops, or the row did not leave it off again), never failed (they
# failed before the module rechecked the counter).
if [ -x /mmbench/mlock_writer ]; then
	# On another CPU than the run's (the first) where there is one.
	if [ "$ncpu" -gt 1 ]; then
		taskset -c 1 /mmbench/mlock_writer &
	else
		/mmbench/mlock_writer &
	fi
	writer=$!
	sleep 1
	insmod "$ko" benchmarks=inc_zone_page_state,dec_zone_page_state,mod_node_page_state samples=3
	rc=$?
	kill $writer
	wait $writer 2>/dev/null
	# Its exit queues munlocks on its CPU, drained by the next task that
	# exits there: one now, not a later case's vmstat row.
	if [ "$ncpu" -gt 1 ]; then taskset -c 1 sh -c :; else sh -c :; fi
	got=""
	for r in inc_zone_page_state dec_zone_page_state mod_node_page_state; do
		got="$got $r: $(cat /sys/kernel/mmbench/$r/status 2>&1): $(cat /sys/kernel/mmbench/$r/reason 2>&1);"
	done
	noisy() {
		[ "$(cat /sys/kernel/mmbench/$1/status)" = noisy ] &&
			grep -qE "^counter off by .*: (another task writes it|not reproduced)$" \
				/sys/kernel/mmbench/$1/reason
	}
	# A row may find its counter where it was by chance: none fails, and
	# one at least is judged noisy for the counter.
	[ $rc -eq 0 ] && ! grep -qx fail /sys/kernel/mmbench/*/status &&
		{ noisy inc_zone_page_state || noisy dec_zone_page_state; }
	result $? "another task moving a vmstat counter makes its rows noisy, not failed" "rc=$rc;$got"
	loaded && rmmod test_mmbench
else
	result 1 "another task moving a vmstat counter makes its rows noisy, not failed" "no /mmbench/mlock_writer in the guest"
fi

# benchmarks=all given (not only the default) selects every benchmark.
insmod "$ko" benchmarks=all iterations=1000 samples=1 budget_ms=100
all=$(cat /sys/module/test_mmbench/parameters/benchmarks 2>&1)
dirs=$(ls -d /sys/kernel/mmbench/*/ 2>/dev/null | grep -vc /fingerprint/)
[ "$all" = all ] && [ -d /sys/kernel/mmbench/ptr_ring_remote ] &&
	[ -d /sys/kernel/mmbench/count_vm_event ] && [ "$dirs" -gt 50 ]
result $? "benchmarks=all loads every benchmark's rows" "benchmarks=$all, $dirs row directories"
loaded && rmmod test_mmbench
insmod "$ko" benchmarks=count_vm_event iterations=1000 samples=3

# The selftest never reuses a copy loaded with other parameters (the one
# loaded above, with iterations=1000, is still there).
out=$(cd $testdir && ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "removed a test_mmbench that was already loaded"
result $? "mmbench_test removes a copy already loaded and passes" "rc=$rc: $out"
loaded && rmmod test_mmbench

# Not root: every test skips, the program exits 4.
out=$(su nobody -s /bin/sh -c "cd $testdir && ./mmbench_test" 2>&1)
rc=$?
[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*must be run as root" && ! echo "$out" | grep -q "^not ok"
result $? "mmbench_test as non-root skips with exit 4" "rc=$rc: $out"

# Module file absent: skip with the reason.
out=$(cd $testdir && MMBENCH_MODULE=/nonexistent/test_mmbench.ko ./mmbench_test 2>&1)
rc=$?
[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*cannot open MMBENCH_MODULE"
result $? "mmbench_test skips with exit 4 when MMBENCH_MODULE is absent" "rc=$rc: $out"

# Module not installed for modprobe: skip with the reason.
dep=/lib/modules/$rel/modules.dep
mv $dep $dep.saved && : >$dep
out=$(cd $testdir && ./mmbench_test 2>&1)
rc=$?
mv $dep.saved $dep
[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*not installed"
result $? "mmbench_test skips with exit 4 when the module is not installed" "rc=$rc: $out"

# A parameter the module refuses fails the test, with the module's words.
out=$(cd $testdir && MMBENCH_PARAMS="samples=0" ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "refused.*samples: '0' is not a number from" && ! loaded
result $? "mmbench_test fails, naming the reason, when MMBENCH_PARAMS is refused" "rc=$rc: $out"

# What modprobe says on failure reaches the KTAP as "# " lines, never bare.
bare=$(not_ktap "$out")
[ -z "$bare" ] && echo "$out" | grep -q "^# modprobe: "
result $? "modprobe's output is printed as KTAP diagnostics" "not KTAP: $bare"

# The log of a refused load shows every parameter, not the first alone.
out=$(cd $testdir && MMBENCH_PARAMS="sample_us=5000 samples=0" ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "parameters 'budget_ms=15000 sample_us=5000 samples=0 benchmarks=count_vm_event' refused" && ! loaded
result $? "a refused load logs all of its parameters" "rc=$rc: $out"

# A combination the module refuses fails the test too: slow_into names a
# row that the case's own benchmarks=count_vm_event does not load (the
# module refuses it at init, the test sees a failed load).
out=$(cd $testdir && MMBENCH_PARAMS="slow_into=inc_zone_page_state:5" ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "slow_into: inc_zone_page_state: no such row in this load" && ! loaded
result $? "mmbench_test fails when MMBENCH_PARAMS combine badly" "rc=$rc: $out"

# benchmarks= in MMBENCH_PARAMS picks benchmarks.
out=$(cd $testdir && MMBENCH_PARAMS="benchmarks=count_vm_event,count_vm_events samples=3" ./mmbench_test 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:23" && ! loaded
result $? "MMBENCH_PARAMS benchmarks= runs those and skips the rest" "rc=$rc: $out"

# With under 3 samples a row's noise is unknown: ndelay.slope skips,
# saying so in words, with no unit after them.  Delays far apart: the
# pair is judged on noise, not left out for the delay loop's
# granularity.  A busy host may make it skip for dropped samples
# instead: a skip is what matters, and never a unit after the words.
out=$(cd $testdir && MMBENCH_PARAMS="samples=1 delays=0,1000,100000" ./mmbench_test -f ndelay 2>&1)
rc=$?
[ $rc -ne 1 ] && echo "$out" | grep -q "ok 1 ndelay.slope # SKIP" &&
	! echo "$out" | grep -q "under 3 samples) %" && ! loaded
result $? "an unknown noise is said in words, without a unit after them" "rc=$rc: $out"

# A multi-CPU row on one CPU of cpus= says which list it took the CPUs of.
insmod "$ko" cpus=0 benchmarks=kmalloc_concurrent samples=3
why=$(cat /sys/kernel/mmbench/kmalloc_concurrent/reason 2>&1)
st=$(cat /sys/kernel/mmbench/kmalloc_concurrent/status 2>&1)
[ "$st" = unsupported ] && [ "$why" = "needs two online CPUs in cpus=, has 1: 0" ]
result $? "a multi-CPU row with one CPU of cpus= says cpus=" "status $st: $why"
loaded && rmmod test_mmbench

# An explicit module path loads through finit_module().
out=$(cd $testdir && MMBENCH_MODULE=$ko ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "^ok 1 mmbench.count_vm_event.run" && ! loaded
result $? "mmbench_test loads the module from MMBENCH_MODULE" "rc=$rc: $out"

# A load that fails for any other reason than the kernel's refusal of the
# module fails the test: here a module file cut short (ENOEXEC), given by
# MMBENCH_MODULE, then installed for modprobe.
head -c 8192 "$ko" >/tmp/cut.ko
out=$(cd $testdir && MMBENCH_MODULE=/tmp/cut.ko ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "^not ok 1 mmbench.count_vm_event.run" &&
	echo "$out" | grep -q "loading /tmp/cut.ko failed: Exec format error" && ! loaded
result $? "mmbench_test fails, not skips, when MMBENCH_MODULE is not a module" "rc=$rc: $out"
cp "$ko" /tmp/whole.ko && cp /tmp/cut.ko "$ko"
out=$(cd $testdir && ./mmbench_test -v count_vm_event 2>&1)
rc=$?
cp /tmp/whole.ko "$ko"
bare=$(not_ktap "$out")
[ $rc -eq 1 ] && echo "$out" | grep -q "^not ok 1 mmbench.count_vm_event.run" &&
	echo "$out" | grep -qi "modprobe test_mmbench .*failed.*invalid module format" &&
	[ -z "$bare" ] && ! loaded
result $? "mmbench_test fails, not skips, when modprobe fails on a broken module" "rc=$rc not KTAP: $bare: $out"

# A module older than the test program: a benchmark, a parameter or a row
# that the test asks for and the module does not have skips that case,
# saying so; the others still run.
if older_module count_vm_events Xount_vm_events; then
	out=$(cd $testdir && MMBENCH_MODULE=/tmp/older.ko ./mmbench_test -v count_vm_event -v count_vm_events 2>&1)
	rc=$?
	[ $rc -eq 0 ] && echo "$out" | grep -q "^ok 1 mmbench.count_vm_event.run$" &&
		echo "$out" | grep -q "^ok 2 mmbench.count_vm_events.run # SKIP test_mmbench has no benchmark 'count_vm_events': the module is older than this test" && ! loaded
	result $? "a benchmark the module does not have skips its case" "rc=$rc: $out"
else
	result 1 "a benchmark the module does not have skips its case" "no string count_vm_events in $ko"
fi
# budget_ms is a parameter every case sets; "%s_%s%u" names the rows of a
# benchmark with a list (ndelay_0 ... ndelay_5000): renamed, the module
# publishes ndelay-0 and no ndelay_0.
if older_module budget_ms Xudget_ms; then
	out=$(cd $testdir && MMBENCH_MODULE=/tmp/older.ko ./mmbench_test -v count_vm_event 2>&1)
	rc=$?
	[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP test_mmbench has no parameter 'budget_ms': the module is older than this test" && ! loaded
	result $? "a parameter the module does not have (budget_ms, set for every case) skips the cases" "rc=$rc: $out"
else
	result 1 "a parameter the module does not have (budget_ms, set for every case) skips the cases" "no string budget_ms in $ko"
fi
if older_module %s_%s%u %s-%s%u; then
	out=$(cd $testdir && MMBENCH_MODULE=/tmp/older.ko ./mmbench_test -f ndelay 2>&1)
	rc=$?
	[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP test_mmbench published no row ndelay_0: the module is older than this test" && ! loaded
	result $? "a row the module does not publish skips the clock case" "rc=$rc: $out"
else
	result 1 "a row the module does not publish skips the clock case" "no string %s_%s%u in $ko"
fi

# The largest request is cut by budget_ms, not left to run.
insmod "$ko" benchmarks=inc_dec_zone_page_state iterations=100000000 samples=250 budget_ms=3000
rc=$?
dir=/sys/kernel/mmbench/inc_dec_zone_page_state
st=$(cat $dir/status 2>&1); got=$(cat $dir/samples 2>&1); why=$(cat $dir/reason 2>&1)
ms=$(cat /sys/kernel/mmbench/run_ms 2>&1)
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ "$st" = pass ] && [ "$ms" -lt 6000 ] && echo "$why" | grep -q "budget_ms"
result $? "iterations=100000000 samples=250 budget_ms=3000 stops in time (${ms} ms, $got samples: $why)" "rc=$rc status=$st samples=$got reason=$why run_ms=$ms"

# A batch or bulk is timed whole: iterations below it are rounded up, and
# say so; sized samples take whole batches too.
insmod "$ko" benchmarks=kfree_bulk bulk=1024 iterations=1000 samples=3
rc=$?
bulk=$(cat /sys/kernel/mmbench/kfree_bulk_1024/ops_per_sample 2>&1)
why=$(cat /sys/kernel/mmbench/kfree_bulk_1024/reason 2>&1)
st=$(cat /sys/kernel/mmbench/kfree_bulk_1024/status 2>&1)
loaded && rmmod test_mmbench
insmod "$ko" benchmarks=alloc_pages_batch orders=9 samples=3
batch=$(cat /sys/kernel/mmbench/alloc_pages_batch_order9/ops_per_sample 2>&1)
loaded && rmmod test_mmbench
# A noisy row (the debug kernel's) keeps the remark after its reason.
[ $rc -eq 0 ] && { [ "$st" = pass ] || [ "$st" = noisy ]; } && [ "$bulk" = 1024 ] &&
	echo "$why" | grep -q "iterations rounded up to 1024" &&
	[ -n "$batch" ] && [ $((batch % 8)) -eq 0 ] && [ "$batch" -gt 0 ]
result $? "iterations=1000 times whole bulks of 1024 and says so; sized order-9 batches are whole ($batch ops)" "rc=$rc status=$st ops=$bulk reason=$why batch_ops=$batch"

# slow_into slows the row it names, and says so; sample_ns lists the
# samples, whose median is the row's.
d=/sys/kernel/mmbench
slowed="benchmarks=count_vm_event,alu_chain samples=5 slow_into=count_vm_event:2000"
# shellcheck disable=SC2086 # the parameters
insmod "$ko" $slowed
rc=$?
st="$(cat $d/count_vm_event/status $d/alu_chain/status 2>&1 | tr '\n' ' ')"
steps=$(cat $d/count_vm_event/slow_ops 2>&1)
other=$(ls $d/alu_chain $d/baseline | grep -c slow_ops)
list=$(cat $d/count_vm_event/sample_ns 2>&1)
med=$(cat $d/count_vm_event/ns_per_op_median 2>&1)
chain=$(cat $d/alu_chain/sample_ns 2>&1)
loaded && rmmod test_mmbench
mid=$(echo "$list" | tr ' ' '\n' | sort -n | sed -n 3p)
what="rc=$rc status=$st slow_ops=$steps others=$other sample_ns=$list median=$med alu_chain sample_ns=$chain"
# 2000 steps cost twice the alu_chain row's 1000 (without slow_into the
# row costs a hundredth of that): its fastest sample, the one least
# inflated by the host, over 1.2 x alu_chain's is asked.  A host busy
# through every sample of alu_chain inflates even its fastest: short of
# 1.2 x, the load is made once more and each row's fastest sample of
# both loads taken (the host only ever adds time).
least() { printf '%s\n' "$@" | grep -E '^[0-9]+(\.[0-9]+)?$' | sort -n | head -1; }
over() { awk -v n="$1" -v c="$2" 'BEGIN { exit !(c + 0 > 0 && n + 0 > 1.2 * c) }'; }
# The factor by which the figures given (alu_chain's fastest sample in
# each load: the same ALU work, whatever the kernel) spread, the highest
# over the lowest: how far the host alone moved a row between two loads
# alike; 1 with fewer than two.
spread() {
	printf '%s\n' "$@" | grep -E '^[0-9]+(\.[0-9]+)?$' | sort -n |
		awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f\n", (lo > 0 ? hi / lo : 1) }'
}
# Is a rise of $1 ns, short of 1.2 x alu_chain's $2 ns, over it once
# multiplied by $3, the host's spread?  Then the host may have kept it
# short; a rise short by more (slow_into broken) is the kernel's.
within() { awk -v n="$1" -v c="$2" -v s="$3" 'BEGIN { exit !(c + 0 > 0 && n + 0 <= 1.2 * c && n * s > 1.2 * c) }'; }
# Is every row judged in $1 (plain1/plain2/slowed1/slowed2, the fastest
# samples without and with slow_into) over the margin or within() it, and
# one at least only within it?
rows_within() {
	echo "$1" | awk -F/ -v c="$2" -v s="$3" '{
		for (i = 1; i <= 2; i++)
			if ($i != "" && $(i + 2) != "" && c + 0 > 0) {
				n++
				up += $(i + 2) - $i > 1.2 * c
				near += ($(i + 2) - $i) * s > 1.2 * c
			}
		exit !(n > 0 && up < n && near == n) }'
}
# shellcheck disable=SC2086 # the samples, a word each
fast=$(least $list) cfast=$(least $chain) loads=1 list2="" chain2=""
if ! over "$fast" "$cfast"; then
	# shellcheck disable=SC2086 # the parameters
	insmod "$ko" $slowed
	rc=$((rc + $?))
	list2=$(cat $d/count_vm_event/sample_ns 2>&1)
	chain2=$(cat $d/alu_chain/sample_ns 2>&1)
	loaded && rmmod test_mmbench
	# shellcheck disable=SC2086 # the samples, a word each
	fast=$(least $list $list2) cfast=$(least $chain $chain2) loads=2
	what="$what; load 2: rc=$rc sample_ns=$list2 alu_chain sample_ns=$chain2"
fi
ratio=$(awk -v n="$fast" -v c="$cfast" 'BEGIN { printf "%.2f", (c + 0 > 0 ? n / c : 0) }')
# A debug kernel's rows may be noisy: their samples are published all
# the same.
echo "$st" | grep -Eq '^(pass|noisy) (pass|noisy) $'
sound=$?
[ $sound -eq 0 ] && [ $rc -eq 0 ] && [ "$steps" = 2000 ] && [ "$other" = 0 ] &&
	[ "$(echo "$list" | wc -w)" = 5 ] && [ "$mid" = "$med" ]
sound=$?
# shellcheck disable=SC2086 # the samples, a word each
host=$(spread "$(least $chain)" "$(least $chain2)")
# shellcheck disable=SC2086 # the samples, a word each
if [ $sound -eq 0 ] && within "$fast" "$cfast" "$host"; then
	echo "ok $((n = n + 1)) # SKIP slow_into=count_vm_event:2000: a busy host: $ratio x alu_chain's fastest sample ($fast ns against $cfast ns), short of the 1.2 x asked by less than alu_chain itself moved between two loads alike ($host x: $(least $chain), $(least $chain2) ns) ($what)"
else
	[ $sound -eq 0 ] && over "$fast" "$cfast"
	result $? "slow_into=count_vm_event:2000 slows that row only, its fastest sample over 1.2 x alu_chain's ($fast ns against $cfast ns: $ratio x, $loads loads), and sample_ns holds its 5 samples" "$what"
fi

# kill -9 during a long load ends it at once, module not left loaded.
insmod "$ko" benchmarks=inc_dec_zone_page_state iterations=100000000 samples=250 budget_ms=600000 &
pid=$!
sleep 2
kill -9 $pid
t0=$(date +%s)
wait $pid
took=$(($(date +%s) - t0))
sleep 1
! loaded && [ "$took" -le $((3 * slow + release)) ]
result $? "kill -9 of insmod during a long run ends the load (${took} s, limit $((3 * slow + release)) s)" "loaded=$(loaded && echo yes) took=$took"

# kill -9 of insmod once the module is coming (its parameters taken, its
# init about to run or running), at once or a moment later: the run's
# thread may not have run yet (kthread_stop() then skips its function) or
# be mid-run.  Either way the load ends within 10 s and leaves nothing.
stuck=0 killed=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	insmod "$ko" benchmarks=count_vm_event samples=3 2>/dev/null &
	pid=$!
	j=0
	while [ ! -d /sys/module/test_mmbench ] && [ $j -lt 500 ]; do
		sleep 0.01
		j=$((j + 1))
	done
	[ $((i % 2)) -eq 0 ] && sleep "0.$i"
	kill -9 $pid 2>/dev/null
	j=0
	while kill -0 $pid 2>/dev/null && [ $j -lt 100 ]; do
		sleep 0.1
		j=$((j + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		stuck=$((stuck + 1))
	else
		wait $pid
		[ $? -eq 137 ] && killed=$((killed + 1))
	fi
	# A load that won the race is removed.  Module exit waits for each
	# row's kobject release, which a debug kernel (DEBUG_KOBJECT_RELEASE)
	# delays by up to 4 s.
	if loaded; then
		timeout $((10 + 10 * (slow > 1))) rmmod test_mmbench || stuck=$((stuck + 1))
	fi
done
[ "$stuck" -eq 0 ] && [ "$killed" -ge 1 ] && ! loaded
result $? "kill -9 of insmod during its load ends it and leaves no module ($killed of 20 killed, the others done first)" "stuck=$stuck killed=$killed"

# A CPU taken offline mid-run: later benchmarks say so, none passes elsewhere.
if [ "$ncpu" -ge 2 ]; then
	insmod "$ko" cpu=1 samples=100 sample_us=10000 budget_ms=8000 &
	# Once its run's thread (mmbench/1) is there, and a second more.
	i=0
	while ! grep -qx "mmbench/1" /proc/[0-9]*/comm 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 1
	echo 0 >/sys/devices/system/cpu/cpu1/online
	wait
	echo 1 >/sys/devices/system/cpu/cpu1/online
	wrong=""
	for d in /sys/kernel/mmbench/*/; do
		[ -f "$d/status" ] || continue
		[ "$(cat "$d/status")" = pass ] && [ "$(cat "$d/cpu")" != 1 ] && wrong="$wrong $(basename "$d")"
	done
	offline=$(grep -l "offline" /sys/kernel/mmbench/*/reason | wc -l)
	loaded && rmmod test_mmbench
	[ -z "$wrong" ] && [ "$offline" -ge 1 ]
	result $? "CPU offlined mid-run: $offline benchmarks say so, none passes on another CPU" "passed elsewhere:$wrong offline=$offline"
else
	echo "ok $((n = n + 1)) # SKIP one CPU: no hotplug case"
fi

# A team that stalls stops with the reason, and frees every block it
# allocated, those push_cpu could not put in the ring too: the test-only
# inject_stall_ms puts each team's last worker (pop_cpu's in a pair) to
# sleep 5 s mid-row, past the 2 s a worker waits and the 4 s team_sample() does
# (in the first sample of more ops than the ring's 1024).
teams="alloc_pages_concurrent kmalloc_concurrent page_frag_concurrent alloc_pages_remote_free kmalloc_remote_free page_frag_remote_free ptr_ring_remote"
if [ "$ncpu" -ge 2 ]; then
	insmod "$ko" benchmarks="$(echo $teams | tr ' ' ,)" inject_stall_ms=5000 iterations=2048 samples=3
	for b in $teams; do
		d=/sys/kernel/mmbench/$b
		st=$(cat $d/status 2>&1); why=$(cat $d/reason 2>&1)
		left=$(cat $d/counter_delta 2>/dev/null || echo none)
		# push_cpu gives up on the ring if the pair's samples overflow it
		# (1024 ops; fewer where a sample's 100 ms hold fewer, as on the
		# debug kernel); else team_sample() does.
		ops=$(cat $d/ops_per_sample 2>&1)
		case $b in
		*_concurrent) want="^a team sample did not end within 4 s" ;;
		*) if [ "$ops" -gt 1024 ] 2>/dev/null; then
			want="^CPU 0 waited 2 s for pop_cpu to empty the ring"
		   else
			want="^a team sample did not end within 4 s"
		   fi ;;
		esac
		[ "$st" = error ] && echo "$why" | grep -q "$want" &&
			{ [ "$left" = 0 ] || [ "$left" = none ]; }
		result $? "a stalled $b team says why and frees every block ($why)" "status=$st reason=$why counter_delta=$left ops_per_sample=$ops"
	done
	loaded && rmmod test_mmbench

	# A worker's CPU taken offline mid-row: the row says so, frees every
	# block and does not pass.  CPU 1's worker sleeps 3 s in a sample
	# (inject_stall_ms, short of a stall: 1000 ops fit the ring, and
	# team_sample() waits 4 s), the CPU goes offline meanwhile and the worker
	# wakes up on CPU 0.
	for b in $teams; do
		insmod "$ko" benchmarks=$b cpus=0,1 inject_stall_ms=3000 iterations=1000 samples=5 &
		run=$!
		# Its thread, then the thread asleep (D) at two polls in a row.
		i=0 pid="" asleep=0
		while [ $i -lt 600 ]; do
			if [ -z "$pid" ]; then
				for p in /proc/[0-9]*; do
					c=""
					read -r c 2>/dev/null <$p/comm
					[ "$c" = mmbench_w/1 ] && pid=${p#/proc/} && break
				done
			elif [ ! -d "/proc/$pid" ]; then
				break
			elif read -r stat 2>/dev/null <"/proc/$pid/stat"; then
				# shellcheck disable=SC2086 # its fields
				set -- $stat
				if [ "$3" = D ]; then
					asleep=$((asleep + 1))
					[ $asleep -ge 2 ] && break
				else
					asleep=0
				fi
			fi
			sleep 0.05
			i=$((i + 1))
		done
		echo 0 >/sys/devices/system/cpu/cpu1/online
		wait $run
		echo 1 >/sys/devices/system/cpu/cpu1/online
		back=$(cat /sys/devices/system/cpu/cpu1/online)
		d=/sys/kernel/mmbench/$b
		st=$(cat $d/status 2>&1); why=$(cat $d/reason 2>&1)
		left=$(cat $d/counter_delta 2>/dev/null || echo none)
		loaded && rmmod test_mmbench
		[ "$st" = error ] && echo "$why" | grep -q "^CPU 1 went offline: its worker ran on CPU 0" &&
			{ [ "$left" = 0 ] || [ "$left" = none ]; } && [ "$back" = 1 ]
		result $? "$b with CPU 1 taken offline mid-row says so and frees every block ($why)" "status=$st reason=$why counter_delta=$left polls=$i/600 cpu1_online=$back"
	done

	# slow_into on rows of several CPUs: their samples hold the steps.
	# Loaded without, then with 2000 steps (alu_chain times 1000), the
	# fastest sample of each row rises by over 1.2 x alu_chain's.  A row
	# that kept no sample in a load (noisy: the debug kernel's
	# kmalloc_concurrent) has no rise to show; when no row has one: SKIP,
	# once the load and slow_ops are right.  A row short of the rise (a
	# host busy through every sample of one of them): both loads once
	# more, and the fastest of each row's samples in both taken.
	fastest() { tr ' ' '\n' <"/sys/kernel/mmbench/$1/sample_ns" 2>/dev/null | sort -n | head -1; }
	d=/sys/kernel/mmbench rc0=0 rc=0 loads=0 pk="" pp="" sk="" sp="" ch=""
	team_loads() {
		insmod "$ko" benchmarks=kmalloc_concurrent,ptr_ring_remote cpus=0,1 samples=5
		rc0=$((rc0 + $?))
		pk="$pk $(fastest kmalloc_concurrent)" pp="$pp $(fastest ptr_ring_remote)"
		loaded && rmmod test_mmbench
		insmod "$ko" benchmarks=kmalloc_concurrent,ptr_ring_remote,alu_chain cpus=0,1 samples=5 slow_into=kmalloc_concurrent:2000,ptr_ring_remote:2000
		rc=$((rc + $?))
		st="$(cat $d/kmalloc_concurrent/status $d/ptr_ring_remote/status $d/alu_chain/status 2>&1 | tr '\n' ' ')"
		steps="$(cat $d/kmalloc_concurrent/slow_ops $d/ptr_ring_remote/slow_ops 2>&1 | tr '\n' ' ')"
		sk="$sk $(fastest kmalloc_concurrent)" sp="$sp $(fastest ptr_ring_remote)" ch="$ch $(fastest alu_chain)"
		loaded && rmmod test_mmbench
		loads=$((loads + 1))
		# shellcheck disable=SC2086 # the samples, a word each
		plain="$(least $pk)/$(least $pp)" slowed="$(least $sk)/$(least $sp)" chain=$(least $ch)
		# Rows judged, and of those the ones that rose enough.
		rise=$(echo "$plain/$slowed" | awk -F/ -v c="$chain" '{
			for (i = 1; i <= 2; i++)
				if ($i != "" && $(i + 2) != "" && c + 0 > 0) {
					n++
					up += $(i + 2) - $i > 1.2 * c
				}
			print n + 0, up + 0 }')
	}
	team_loads
	echo "$rise" | awk '{ exit !($2 < $1) }' && team_loads
	what="rc=$rc0/$rc status=$st slow_ops=$steps fastest (kmalloc_concurrent/ptr_ring_remote) without: $plain, with: $slowed, alu_chain: $chain, in $loads loads of each"
	# shellcheck disable=SC2086 # the fastest samples, a word each
	if [ $rc0 -eq 0 ] && [ $rc -eq 0 ] && [ "$steps" = "2000 2000 " ] &&
	   [ "$rise" = "0 0" ] && echo "$st" | grep -q noisy; then
		echo "ok $((n = n + 1)) # SKIP slow_into on rows of several CPUs: no row kept samples in both loads ($what)"
	elif [ $rc0 -eq 0 ] && [ $rc -eq 0 ] && [ "$steps" = "2000 2000 " ] &&
	     echo "$st" | grep -Eq '^((pass|noisy) ){3}$' &&
	     rows_within "$plain/$slowed" "$chain" "$(spread $ch)"; then
		echo "ok $((n = n + 1)) # SKIP slow_into on rows of several CPUs: a busy host: a row's rise short of 1.2 x alu_chain's by less than alu_chain itself moved between two loads alike ($(spread $ch) x:$ch ns) ($what)"
	else
		echo "$st" | grep -Eq '^((pass|noisy) ){3}$'
		[ $? -eq 0 ] && [ $rc0 -eq 0 ] && [ $rc -eq 0 ] &&
			[ "$steps" = "2000 2000 " ] &&
			{ [ "$rise" = "1 1" ] || [ "$rise" = "2 2" ]; }
		result $? "slow_into=...:2000 raises the fastest sample of each row on several CPUs that kept samples by over 1.2 x alu_chain's (judged, risen: $rise; $plain ns to $slowed ns, alu_chain $chain ns, $loads loads of each)" "$what"
	fi

	# cpus= whose CPUs all went offline after the parameters were taken,
	# while the ndelay rows ran (5 rows of 12 samples of 100 ms, on CPU 0):
	# the team rows that run next are unsupported.
	insmod "$ko" cpus=1 benchmarks=ndelay,kmalloc_concurrent,kmalloc_remote_free samples=10 sample_us=100000 &
	# /sys/module/test_mmbench: the parameters were taken.
	i=0
	while [ ! -d /sys/module/test_mmbench ] && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	echo 0 >/sys/devices/system/cpu/cpu1/online
	wait
	echo 1 >/sys/devices/system/cpu/cpu1/online
	a=$(cat /sys/kernel/mmbench/kmalloc_concurrent/reason 2>&1)
	b=$(cat /sys/kernel/mmbench/kmalloc_remote_free/reason 2>&1)
	sa=$(cat /sys/kernel/mmbench/kmalloc_concurrent/status 2>&1)
	sb=$(cat /sys/kernel/mmbench/kmalloc_remote_free/status 2>&1)
	loaded && rmmod test_mmbench
	[ "$sa" = unsupported ] && [ "$sb" = unsupported ] &&
		echo "$a" | grep -q "no CPU of cpus=1 is online" &&
		echo "$b" | grep -q "no CPU of cpus=1 is online"
	result $? "cpus= all offline: the team rows are unsupported, saying so" "$sa: $a; $sb: $b"

	# The vmstat rows move NR_MLOCK ("Mlocked" in /proc/meminfo) by one
	# stretch of ops at most, however large a sample: watch it meanwhile.
	rm -f /tmp/watch-stop /tmp/mlock-max
	(max=0
	 while [ ! -e /tmp/watch-stop ]; do
		v=$(sed -n 's/^Mlocked: *\([0-9]*\) kB/\1/p' /proc/meminfo)
		[ "${v:-0}" -gt "$max" ] && max=$v
	 done
	 echo "$max" >/tmp/mlock-max) &
	insmod "$ko" benchmarks=inc_zone_page_state,dec_zone_page_state iterations=2000000 samples=3
	rc=$?
	st=$(cat /sys/kernel/mmbench/inc_zone_page_state/status /sys/kernel/mmbench/dec_zone_page_state/status 2>&1 | tr '\n' ' ')
	touch /tmp/watch-stop
	wait
	max=$(cat /tmp/mlock-max)
	loaded && rmmod test_mmbench
	# Noisy rows (the debug kernel's) still moved the counter as much.
[ $rc -eq 0 ] && echo "$st" | grep -qE "^((pass|noisy) ){2}$" && [ "$max" -le 8192 ]
	result $? "2000000 inc/dec ops a sample move Mlocked by $max kB at most (limit 8192)" "rc=$rc status=$st max=$max kB"
else
	for t in $teams $teams slow cpus watcher; do
		echo "ok $((n = n + 1)) # SKIP one CPU: no team, hotplug or watcher case"
	done
fi

# What the machine is comes from user space, not from the module: with a
# module without fingerprint/hypervisor (renamed in a copy) the guest is
# still QEMU TCG, emulated, with its CPU model.
older_module hypervisor Xypervisor || cp "$ko" /tmp/older.ko
out=$(cd $testdir && MMBENCH_MODULE=/tmp/older.ko ./mmbench_test -f context 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "^# fingerprint.cpu_model=QEMU" &&
	echo "$out" | grep -q "^# fingerprint.hypervisor=tcg$" &&
	echo "$out" | grep -q "^# fingerprint.emulated=yes$" && ! loaded
result $? "the fingerprint tells a TCG guest in user space: CPU model, hypervisor tcg, emulated" "rc=$rc: $out"

# A malformed ceiling fails the case, naming where it is, even for a row
# of a benchmark (kmalloc_64 of kmalloc).
out=$(cd $testdir && MMBENCH_PARAMS="sizes=64 samples=3" MMBENCH_CEILING_KMALLOC_64=abc ./mmbench_test -v kmalloc 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "MMBENCH_CEILING_KMALLOC_64='abc' is not a number of ns" && ! loaded
result $? "a malformed MMBENCH_CEILING_<ROW> fails the case, naming it" "rc=$rc: $out"
printf 'kmalloc_64 12x\n' >/tmp/ceilings
out=$(cd $testdir && MMBENCH_PARAMS="sizes=64 samples=3" MMBENCH_CEILINGS=/tmp/ceilings ./mmbench_test -v kmalloc 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "/tmp/ceilings:1: want" && ! loaded
result $? "a malformed row line in MMBENCH_CEILINGS fails the case, naming it" "rc=$rc: $out"

# Fewer than 3 samples give no noise figure: a median over a ceiling set
# by hand is not judged, and the case skips saying so, rather than pass.
out=$(cd $testdir && MMBENCH_PARAMS="samples=1 sizes=64" MMBENCH_CEILING_KMALLOC_64=1 ./mmbench_test -v kmalloc 2>&1)
rc=$?
[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*kmalloc_64 over its ceiling, not judged: .*too few samples" && ! loaded
result $? "samples=1: an over-ceiling median is not judged and the case skips" "rc=$rc: $(echo "$out" | grep -E 'ceiling|SKIP|not ok')"

# A ceilings file of the user's that lacks a row: the default ceiling.
printf 'kmalloc_64 10000000 10000000\n' >/tmp/part-ceilings
out=$(cd $testdir && MMBENCH_PARAMS="samples=3 sizes=64,4096" MMBENCH_CEILINGS=/tmp/part-ceilings ./mmbench_test -v kmalloc 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "kmalloc_64.ceiling_ns=10000000.000" &&
	echo "$out" | grep -qE "kmalloc_4096.ceiling=(enforced|informational \(debug options)" && ! loaded
result $? "a partial MMBENCH_CEILINGS file: rows it lacks take the default ceilings" "rc=$rc: $(echo "$out" | grep -E 'ceiling|SKIP|not ok')"

# iterations=1 still gives samples the clock can time (100 times its step
# or read cost), and says so; budget_ms=100 cuts rows short, no FAIL.
insmod "$ko" benchmarks=count_vm_event iterations=1 samples=3
why=$(cat /sys/kernel/mmbench/count_vm_event/reason 2>&1)
st=$(cat /sys/kernel/mmbench/count_vm_event/status 2>&1)
loaded && rmmod test_mmbench
out=$(cd $testdir && MMBENCH_PARAMS="budget_ms=100" ./mmbench_test -v kmalloc -v alloc_pages_batch 2>&1)
rc=$?
[ "$st" = pass ] && echo "$why" | grep -q "iterations raised to" && [ $rc -ne 1 ] && ! loaded
result $? "iterations=1 is raised to a timed sample ($why); budget_ms=100 fails nothing (rc=$rc)" "status=$st reason=$why; budget_ms=100: rc=$rc $(echo "$out" | grep -E 'SKIP|not ok|Expected' | head -5)"

# A ceiling the figure cannot meet fails the test: the check can fail.
out=$(cd $testdir && MMBENCH_ENFORCE=1 MMBENCH_CEILING_INC_DEC_ZONE_PAGE_STATE=0.001 ./mmbench_test -v inc_dec_zone_page_state 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "over the ceiling" && ! loaded
result $? "with MMBENCH_ENFORCE=1 a ceiling below the figure fails the test" "rc=$rc: $out"

# A ceiling the user sets is a request to enforce it, under emulation too,
# from the environment or from a file of the user's.
out=$(cd $testdir && MMBENCH_CEILING_INC_DEC_ZONE_PAGE_STATE=0.001 ./mmbench_test -v inc_dec_zone_page_state 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "inc_dec_zone_page_state.ceiling=enforced (set by MMBENCH_CEILING_INC_DEC_ZONE_PAGE_STATE)" &&
	echo "$out" | grep -q "over the ceiling" && ! loaded
result $? "under emulation a ceiling set by MMBENCH_CEILING_ below the figure fails" "rc=$rc: $out"
printf '# mine\ninc_dec_zone_page_state 0.001\n' >/tmp/ceilings
out=$(cd $testdir && MMBENCH_CEILINGS=/tmp/ceilings ./mmbench_test -v inc_dec_zone_page_state 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "inc_dec_zone_page_state.ceiling=enforced (set by MMBENCH_CEILINGS=/tmp/ceilings)" &&
	echo "$out" | grep -q "over the ceiling" && ! loaded
result $? "under emulation a ceiling from the user's MMBENCH_CEILINGS below the figure fails" "rc=$rc: $out"

# An emulated machine has ceilings of its own, enforced: the second of a
# "<row> <ns> <emulated ns>" line.
# With debug options it is reported only, naming them.
want=$(awk '$1 == "inc_dec_zone_page_state" { print $3 }' $testdir/ceilings)
held="enforced (default for an emulated machine)"
[ -n "$debug" ] && held="informational (debug options: "
out=$(cd $testdir && ./mmbench_test -v inc_dec_zone_page_state 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -n "$want" ] && echo "$out" | grep -q "^# inc_dec_zone_page_state.ceiling_ns=$want.000$" &&
	echo "$out" | grep -qF "# inc_dec_zone_page_state.ceiling=$held"
result $? "under emulation the default emulated ceiling is $held" "rc=$rc want=$want: $out"
printf 'inc_dec_zone_page_state 1000 0.001  # real, emulated\n' >/tmp/ceilings
out=$(cd $testdir && MMBENCH_CEILINGS=/tmp/ceilings ./mmbench_test -v inc_dec_zone_page_state 2>&1)
rc=$?
printf 'inc_dec_zone_page_state 0.001 1000\n' >/tmp/ceilings
out2=$(cd $testdir && MMBENCH_CEILINGS=/tmp/ceilings ./mmbench_test -v inc_dec_zone_page_state 2>&1)
rc2=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "over the ceiling" && [ $rc2 -eq 0 ] &&
	echo "$out2" | grep -q "^# inc_dec_zone_page_state.ceiling_ns=1000.000$"
result $? "under emulation the second of two ceilings on a line is the one held" "rc=$rc rc2=$rc2: $out $out2"

# MMBENCH_ENFORCE=0 still reports it only.
out=$(cd $testdir && MMBENCH_ENFORCE=0 MMBENCH_CEILING_INC_DEC_ZONE_PAGE_STATE=0.001 ./mmbench_test -v inc_dec_zone_page_state 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "ceiling=informational (MMBENCH_ENFORCE=0): median is over it"
result $? "with MMBENCH_ENFORCE=0 a ceiling set below the figure is informational" "rc=$rc: $out"

# Last but one, since it cannot be undone: under lockdown the unsigned
# module is refused with EPERM, and the test skips, naming lockdown.
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if echo integrity 2>/dev/null >/sys/kernel/security/lockdown; then
	out=$(cd $testdir && ./mmbench_test -v count_vm_event 2>&1)
	rc=$?
	bare=$(not_ktap "$out")
	[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*kernel lockdown refuses modules: .*Operation not permitted" &&
		[ -z "$bare" ] && ! loaded
	result $? "mmbench_test skips with exit 4 under lockdown" "rc=$rc not KTAP: $bare: $out"
else
	echo "ok $((n = n + 1)) # SKIP no lockdown LSM in this kernel"
fi

# Last, since it cannot be undone: with module signatures enforced the
# unsigned module is refused, and the test skips with the reason.
if echo 1 2>/dev/null >/sys/module/module/parameters/sig_enforce; then
	out=$(cd $testdir && ./mmbench_test 2>&1)
	rc=$?
	bare=$(not_ktap "$out")
	[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*does not accept the module's signature: modprobe test_mmbench .*Key was rejected by service" &&
		[ -z "$bare" ] && ! loaded
	result $? "mmbench_test skips with exit 4 when module signatures are enforced" "rc=$rc not KTAP: $bare: $out"
else
	echo "ok $((n = n + 1)) # SKIP no module signature checking in this kernel"
fi

echo "# Totals: pass:$((n - failed)) fail:$failed xfail:0 xpass:0 skip:0 error:0"
