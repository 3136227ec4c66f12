#!/bin/sh
# test_mmbench on a machine where another task keeps a CPU, run as root in
# the mmbench guest booted with isolcpus=1: a real-time task spins on CPU 1
# with RT throttling off (and, from 6.12, the fair server off there), as a
# latency-critical application on an isolated CPU does.  No other task runs
# on CPU 1 meanwhile.  No load may hang for it: a row that needs CPU 1 is
# unsupported and says why.  Prints KTAP; the host counts the results.
ko=/lib/modules/$(uname -r)/extra/test_mmbench.ko
rows=/sys/kernel/mmbench
# The debug kernel runs everything several times slower.
limit=60
[ -e /sys/kernel/debug/kmemleak ] && limit=240
# n, failed and result(); at this path in the guest.
# shellcheck source=tooling/guest/ktap.sh
. /mmbench/ktap.sh

echo "KTAP version 1"
isolated=$(cat /sys/devices/system/cpu/isolated)
if [ "$(nproc --all)" -lt 2 ] || [ "$isolated" != 1 ]; then
	echo "1..0 # SKIP needs two CPUs and isolcpus=1, has $(nproc --all) and isolated '$isolated'"
	exit 0
fi
echo "1..8"

echo -1 >/proc/sys/kernel/sched_rt_runtime_us
server=/sys/kernel/debug/sched/fair_server/cpu1/runtime
if [ -e $server ]; then
	# Written while the server is idle (no fair task queued on CPU 1),
	# 6.12 warns of an underflow of its bandwidth in dl_server_stop().
	taskset -c 1 sh -c 'while :; do :; done' &
	spin=$!
	sleep 1
	echo 0 >$server
	kill $spin
	wait $spin 2>/dev/null
fi

hog_start() {
	/mmbench/rt_hog 1 &
	hog=$!
	sleep 1
	kill -0 $hog 2>/dev/null || echo "# rt_hog 1 did not start"
}

# gone <pid>: whether the process ends within $limit s; i is how long.
gone() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt $limit ]; do
		sleep 1
		i=$((i + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

# release <pid>: a load that hung ends once the real-time task does.
release() {
	kill $hog
	gone "$1" && wait "$1"
	hog_start
}

# load <params>: insmod in the background, for at most $limit s; sets rc
# to its exit status, or to "hung" when it still runs then, and i to the
# seconds it took.  A hung load is released by stopping the real-time
# task: that shows what it waited for, and lets the next case run.
load() {
	# shellcheck disable=SC2086 # $1 holds several parameters
	insmod "$ko" $1 >/tmp/insmod.out 2>&1 &
	pid=$!
	if gone $pid; then
		wait $pid
		rc=$?
	else
		rc=hung
		[ -n "$hog" ] && release $pid
	fi
}

# rows_say <status> <text>: every row but the baseline has the status, and
# a reason with the text.
rows_say() {
	got=""
	bad=0
	seen=0
	for row in "$rows"/*/; do
		row=${row%/}
		name=${row##*/}
		[ -e "$row/status" ] || continue	# fingerprint/
		status=$(cat "$row/status")
		reason=$(cat "$row/reason")
		got="$got $name: $status: $reason;"
		[ "$name" = baseline ] && continue
		seen=$((seen + 1))
		[ "$status" = "$1" ] && echo "$reason" | grep -qF "$2" || bad=1
	done
	[ $seen -gt 0 ] && [ $bad -eq 0 ]
}

hog_start

# The default CPUs of the multi-CPU rows are those not isolated: here CPU 0
# alone.  It hung before: a worker bound to CPU 1 never ran, and the end of
# its row waited for it.
load "benchmarks=kmalloc_concurrent,kmalloc_remote_free samples=3"
cpus=$(cat /sys/module/test_mmbench/parameters/cpus 2>&1)
[ "$rc" = 0 ] && [ "$cpus" = 0 ] &&
	rows_say unsupported "needs two online CPUs outside isolcpus=, has 1: 0"
result $? "the multi-CPU rows leave isolated CPUs alone by default" "insmod: $rc: $(cat /tmp/insmod.out); cpus=$cpus;$got"
rmmod test_mmbench 2>/dev/null

# cpus= naming CPU 1: its worker never runs.  The first row is unsupported
# in 2 s, the second at once, and both say why; the first hung before.
load "benchmarks=kmalloc_concurrent,kmalloc_remote_free cpus=0,1 samples=3"
[ "$rc" = 0 ] && [ $i -le $((limit / 4)) ] &&
	rows_say unsupported "CPU 1 did not run the module's thread within 2 s"
result $? "multi-CPU rows whose CPU never runs their thread are unsupported, in 2 s" "insmod: $rc in $i s: $(cat /tmp/insmod.out);$got"
rmmod test_mmbench 2>/dev/null

# cpu=1: the run's thread never runs.  Every row is unsupported and says
# so; the load waited before until it was killed, and then hung.
load "benchmarks=kmalloc sizes=64 samples=3 cpu=1"
[ "$rc" = 0 ] && [ $i -le $((limit / 4)) ] &&
	rows_say unsupported "CPU 1 did not run the module's thread within 2 s" &&
	grep -qF "CPU 1 did not run" $rows/baseline/reason
result $? "a run whose CPU never runs its thread: every row unsupported, in 2 s" "insmod: $rc in $i s: $(cat /tmp/insmod.out);$got"
rmmod test_mmbench 2>/dev/null

# thread_runs <pid> <comm>: whether the load <pid> has a thread <comm>
# that has run (its schedstat shows run time; without schedstat, that it
# is there) within $limit s; thread is its /proc/PID/comm.
thread_runs() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt $((limit * 5)) ]; do
		thread=$(grep -lx "$2" /proc/[0-9]*/comm 2>/dev/null)
		ran=1
		[ -n "$thread" ] && [ -e "${thread%comm}schedstat" ] &&
			read -r ran _ 2>/dev/null <"${thread%comm}schedstat"
		[ -n "$thread" ] && [ "${ran:-0}" -gt 0 ] && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# The real-time task starts on CPU 1 once the run's thread runs there,
# during a vmstat row that lasts (kmem_cache_destroy() of a kmem_cache
# row would wait for CPU 1 itself); the load, killed then, ends at once.
# It hung before, in kthread_stop().
kill $hog
wait $hog 2>/dev/null
insmod "$ko" cpu=1 benchmarks=inc_zone_page_state samples=250 sample_us=20000 >/tmp/insmod.out 2>&1 &
pid=$!
thread_runs $pid mmbench/1 && started=$thread || started=""
hog_start
kill -0 $hog 2>/dev/null && hogged=yes
kill -KILL $pid
if gone $pid; then
	wait $pid
	state="ended in $i s, status $?"
else
	state="still running after $limit s"
	release $pid
fi
loaded=$([ -d /sys/module/test_mmbench ] && echo loaded)
[ -n "$started" ] && [ -n "$hogged" ] && [ "$state" = "ended in $i s, status 137" ] &&
	[ -z "$loaded" ]
result $? "a load killed while its CPU is kept by another task ends at once" "thread: ${started:-none}; rt_hog: ${hogged:-not running}; insmod $state; $loaded"
rmmod test_mmbench 2>/dev/null

# mid_row <rows> <burst> [params]: start the load of multi-CPU <rows> on
# CPUs 0 and 1, and the real-time task on CPU 1 once the worker there has
# run; stop the task after <burst> more seconds unless that is "-".  Sets rc,
# i, running, hogged and said (whether each row but the baseline is
# unsupported because a worker on CPU 1 waited to run; got lists them).
mid_row() {
	kill $hog
	wait $hog 2>/dev/null
	# shellcheck disable=SC2086 # $3 holds several parameters
	insmod "$ko" benchmarks="$1" cpus=0,1 samples=250 sample_us=20000 $3 >/tmp/insmod.out 2>&1 &
	pid=$!
	thread_runs $pid mmbench_w/1 && running=yes || running=""
	hog_start
	kill -0 $hog 2>/dev/null && hogged=yes || hogged=""
	if [ "$2" != - ]; then
		sleep "$2"
		kill $hog
		wait $hog 2>/dev/null
	fi
	if gone $pid; then
		wait $pid
		rc=$?
	else
		rc="still running after $limit s"
		[ "$2" = - ] && release $pid
	fi
	[ "$2" != - ] && hog_start
	rows_say unsupported "a worker on CPU 1 waited "
	said=$?
}

# The waits come from sched_info (CONFIG_SCHED_INFO), as does schedstat.
sched_info=$([ -e /proc/self/schedstat ] && echo yes)

# The real-time task takes CPU 1 once a multi-CPU row's worker runs there,
# for good: the row is unsupported, naming CPU 1 and how long its worker
# waited, and the next multi-CPU row is at once.  Before, the first was an
# error after 6 s ("a team sample did not end within 6 s").
what="a real-time task taking a worker's CPU mid-row: unsupported, naming that CPU"
if [ -n "$sched_info" ]; then
	mid_row kmalloc_concurrent,kmalloc_remote_free -
	second=$(cat $rows/kmalloc_remote_free/reason 2>&1)
	[ -n "$running" ] && [ -n "$hogged" ] && [ "$rc" = 0 ] && [ $said = 0 ] &&
		grep -qF "another task or the host keeps that CPU" $rows/kmalloc_concurrent/reason &&
		echo "$second" | grep -q "^CPU 1 kept in an earlier row: a worker on CPU 1"
	result $? "$what" "worker ran: ${running:-no}; rt_hog: ${hogged:-not running}; insmod: $rc in $i s: $(cat /tmp/insmod.out);$got"
	rmmod test_mmbench 2>/dev/null
else
	echo "ok $((n = n + 1)) $what # SKIP no /proc/self/schedstat: CONFIG_SCHED_INFO is not set"
fi

# The same for 5 s only, in a remote-free pair: pop_cpu's part stops,
# push_cpu gives up on the full ring after 2 s if its sample has more ops
# left than the ring's 1024, and the sample ends late, past 4 s, either
# way.  The row is unsupported, naming CPU 1.  Before, it was an error
# naming the CPU that waited ("CPU 0 waited 2 s for pop_cpu to empty the
# ring", or "a team sample did not end within 4 s").
what="a real-time burst of 5 s on a worker's CPU mid-row: unsupported, naming that CPU"
if [ -n "$sched_info" ]; then
	mid_row kmalloc_remote_free 4 iterations=65536
	[ -n "$running" ] && [ -n "$hogged" ] && [ "$rc" = 0 ] && [ $said = 0 ]
	result $? "$what" "worker ran: ${running:-no}; rt_hog: ${hogged:-not running}; insmod: $rc in $i s: $(cat /tmp/insmod.out);$got"
	rmmod test_mmbench 2>/dev/null
else
	echo "ok $((n = n + 1)) $what # SKIP no /proc/self/schedstat: CONFIG_SCHED_INFO is not set"
fi

kill $hog
wait $hog 2>/dev/null
hog=""
# With CPU 1 free again, its rows run: what was left of the cases above
# does not keep the module from loading again.
load "benchmarks=kmalloc_concurrent cpus=0,1 samples=3"
status=$(cat $rows/kmalloc_concurrent/status 2>&1)
team=$(cat $rows/kmalloc_concurrent/team_cpus 2>&1)
[ "$rc" = 0 ] && [ "$team" = 2 ] &&
	{ [ "$status" = pass ] || [ "$status" = noisy ]; }
result $? "once CPU 1 is free, the multi-CPU rows run on it again" "insmod: $rc: $(cat /tmp/insmod.out); kmalloc_concurrent: $status on $team CPUs: $(cat $rows/kmalloc_concurrent/reason 2>&1)"
rmmod test_mmbench 2>/dev/null

# The kernel, not a task, keeps CPU 1 mid-row: the kernel's lockup
# generator (lib/test_lockup.c, built for this guest) spins there with
# preemption off for 5 s, as a kernel path that never yields would.  That
# is the kernel under test misbehaving: the row is an error that names
# CPU 1's kernel time (a second at least), and the next row runs on CPU 1.
# Before, it was unsupported ("another task keeps that CPU"), and so was
# the next row.
what="a stall of the kernel on a worker's CPU mid-row: an error, not a skip"
if [ -n "$sched_info" ] && [ -e /mmbench/test_lockup.ko ]; then
	insmod "$ko" benchmarks=kmalloc_concurrent,kmalloc_remote_free cpus=0,1 samples=250 sample_us=40000 >/tmp/insmod.out 2>&1 &
	pid=$!
	thread_runs $pid mmbench_w/1 && running=yes || running=""
	taskset -c 1 insmod /mmbench/test_lockup.ko time_secs=5 disable_preempt=1 >/tmp/lockup.out 2>&1 &
	stall=$!
	# Its init always fails, and busybox's insmod then tries again with
	# init_module(): killed while the first spins, it stops there.
	j=0
	while ! dmesg | grep -q "test_lockup: Start on CPU1" && [ $j -lt 50 ]; do
		sleep 0.1
		j=$((j + 1))
	done
	kill -KILL $stall
	if gone $pid; then
		wait $pid
		rc=$?
	else
		rc="still running after $limit s"
		kill -KILL $pid
	fi
	wait $stall
	first=$(cat $rows/kmalloc_concurrent/status 2>&1)
	why=$(cat $rows/kmalloc_concurrent/reason 2>&1)
	next=$(cat $rows/kmalloc_remote_free/status 2>&1)
	kernel=$(echo "$why" | sed -n 's/^a worker on CPU 1 waited .*; there kernel \([0-9]*\) ms .*: a stall in the kernel$/\1/p')
	[ -n "$running" ] && [ "$rc" = 0 ] && [ "$first" = error ] &&
		[ "${kernel:-0}" -ge 1000 ] &&
		{ [ "$next" = pass ] || [ "$next" = noisy ]; }
	result $? "$what" "worker ran: ${running:-no}; insmod: $rc in $i s: $(cat /tmp/insmod.out); test_lockup: $(cat /tmp/lockup.out); kmalloc_concurrent: $first: $why; kmalloc_remote_free: $next: $(cat $rows/kmalloc_remote_free/reason 2>&1)"
	rmmod test_mmbench 2>/dev/null
else
	echo "ok $((n = n + 1)) $what # SKIP needs /proc/self/schedstat (CONFIG_SCHED_INFO) and test_lockup.ko"
fi
