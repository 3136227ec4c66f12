#!/bin/sh
# Bad input and environment cases for test_mmbench and mmbench_test, run as
# root inside the mmbench guest.  Prints KTAP; the host counts the results.
rel=$(uname -r)
ko=/lib/modules/$rel/extra/test_mmbench.ko
testdir=/kselftest/mm/mmbench
ncpu=$(nproc)
n=0
failed=0

result() {	# result <0 = ok> <description> [diagnostic]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		[ -n "$3" ] && echo "# $3"
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}

loaded() { [ -d /sys/module/test_mmbench ]; }

# refused <parameter> <text dmesg must show>: insmod fails with EINVAL and
# the kernel log names the parameter.
refused() {
	dmesg -c >/dev/null
	out=$(insmod "$ko" run_on_load=0 "$1" 2>&1)
	rc=$?
	log=$(dmesg)
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
echo "1..28"
refused iterations=0 "iterations=0 is out of range"
refused iterations=1000001 "iterations=1000001 is out of range"
refused iterations=-5 "iterations: '-5' is not an unsigned integer"
refused iterations=lots "iterations: 'lots' is not an unsigned integer"
refused samples=0 "samples=0 is out of range"
refused samples=1001 "samples=1001 is out of range"
refused cpu=-2 "cpu=-2 is not an online CPU"
refused cpu=$ncpu "cpu=$ncpu is not an online CPU"
refused cpu=100000 "cpu=100000 is not an online CPU"
refused cpu=one "cpu: 'one' is not an integer"
refused benchmarks=no_such_bench "benchmarks: unknown benchmark 'no_such_bench'"
refused benchmarks=count_vm_event, "benchmarks: empty name"
refused benchmarks=, "benchmarks: empty name"
refused run_on_load=maybe "invalid for parameter \`run_on_load'"

# A default load runs every benchmark once and publishes the results.
dmesg -c >/dev/null
insmod "$ko" iterations=1000 samples=3
rc=$?
seq=$(cat /sys/kernel/mmbench/seq 2>&1)
state=$(cat /sys/kernel/mmbench/state 2>&1)
bad=$(grep -lv '^pass$' /sys/kernel/mmbench/*/status 2>&1)
[ $rc -eq 0 ] && [ "$seq" = 1 ] && [ "$state" = done ] && [ -z "$bad" ]
result $? "a load runs every benchmark once" "rc=$rc seq=$seq state=$state not passing: $bad"

echo 1 >/sys/kernel/mmbench/run
seq=$(cat /sys/kernel/mmbench/seq 2>&1)
[ "$seq" = 2 ]
result $? "writing 1 to run re-runs without a reload" "seq=$seq"

# busybox sh names the errno; dash only says "I/O error".
out=$(busybox sh -c 'echo 0 >/sys/kernel/mmbench/run' 2>&1)
rc=$?
seq=$(cat /sys/kernel/mmbench/seq 2>&1)
[ $rc -ne 0 ] && echo "$out" | grep -q "Invalid argument" && [ "$seq" = 2 ]
result $? "writing 0 to run is refused with EINVAL" "rc=$rc out=$out seq=$seq"

mode=$(stat -c %a /sys/kernel/mmbench/run /sys/kernel/mmbench/seq /sys/kernel/mmbench/count_vm_event/status | tr '\n' ' ')
[ "$mode" = "200 444 444 " ]
result $? "sysfs modes are 0200 for run and 0444 for results" "modes: $mode"

# The selftest never reuses a copy loaded with other parameters (the one
# loaded above, with iterations=1000 samples=3, is still there).
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
[ $rc -eq 1 ] && echo "$out" | grep -q "refused.*samples=0 is out of range" && ! loaded
result $? "mmbench_test fails, naming the reason, when MMBENCH_PARAMS is refused" "rc=$rc: $out"

# benchmarks= in MMBENCH_PARAMS picks benchmarks; run_on_load= is ignored.
out=$(cd $testdir && MMBENCH_PARAMS="benchmarks=count_vm_event,count_vm_events run_on_load=1 samples=3" ./mmbench_test 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:5" && ! loaded
result $? "MMBENCH_PARAMS benchmarks= runs those and skips the rest" "rc=$rc: $out"

# An explicit module path loads through finit_module().
out=$(cd $testdir && MMBENCH_MODULE=$ko ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "^ok 1 mmbench.count_vm_event.run" && ! loaded
result $? "mmbench_test loads the module from MMBENCH_MODULE" "rc=$rc: $out"

# The largest request is cut by the 10 s time budget, not left to run.
t0=$(date +%s)
insmod "$ko" benchmarks=inc_dec_zone_page_state iterations=1000000 samples=1000
rc=$?
took=$(($(date +%s) - t0))
dir=/sys/kernel/mmbench/inc_dec_zone_page_state
st=$(cat $dir/status 2>&1); got=$(cat $dir/samples 2>&1); why=$(cat $dir/reason 2>&1)
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ "$st" = pass ] && [ "$took" -lt 60 ] && echo "$why" | grep -q "time budget"
result $? "iterations=1000000 samples=1000 stops at the time budget (${took} s, $got samples)" "rc=$rc status=$st samples=$got reason=$why"

# A ceiling the figure cannot meet fails the test: the check can fail.
out=$(cd $testdir && MMBENCH_CEILING_COUNT_VM_EVENT=0.001 ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "over the ceiling" && ! loaded
result $? "a ceiling below the measured figure fails the test" "rc=$rc: $out"

# Last, since it cannot be undone: with module signatures enforced the
# unsigned module is refused, and the test skips with the reason.
echo 1 >/sys/module/module/parameters/sig_enforce
out=$(cd $testdir && ./mmbench_test 2>&1)
rc=$?
[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*modprobe test_mmbench failed" && ! loaded
result $? "mmbench_test skips with exit 4 when module signatures are enforced" "rc=$rc: $out"

echo "# Totals: pass:$((n - failed)) fail:$failed xfail:0 xpass:0 skip:0 error:0"
