#!/bin/sh
# test_mmbench on a machine where another task keeps a CPU, run as root in
# the mmbench guest booted with isolcpus=1: a real-time task spins on CPU 1
# with RT throttling off (and, from 6.12, the fair server off there), as a
# latency-critical application on an isolated CPU does.  No other task runs
# on CPU 1 meanwhile.  No load may hang for it: the multi-CPU rows leave
# isolated CPUs alone by default; a row whose worker on CPU 1 does not end
# its part of a sample in 2 s is stopped by the module's watchdog, an error
# "no progress on CPU 1 in 2 s"; a run whose own CPU never runs its thread
# ends after budget_ms and 10 s, its rows "not run".  Prints KTAP; the host
# counts the results.
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
echo "1..9"

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
		status=$(cat "$row/status")
		reason=$(cat "$row/reason")
		got="$got $name: $status: $reason;"
		[ "$name" = baseline ] && continue
		seen=$((seen + 1))
		[ "$status" = "$1" ] && echo "$reason" | grep -qF "$2" || bad=1
	done
	[ $seen -gt 0 ] && [ $bad -eq 0 ]
}

# named <case> [rows]: keep what the watchdog said in the rows (default
# all but the baseline) of the load just made, for the last case.
names=""
named() {
	for row in ${2:-$(ls $rows)}; do
		[ "$row" = baseline ] || [ ! -d "$rows/$row" ] && continue
		r=$(cat "$rows/$row/reason" 2>/dev/null)
		case $r in *"no progress on CPU"*) names="$names$1: $row: $r
" ;; esac
	done
}

hog_start

# The default CPUs of the multi-CPU rows are those not isolated: here CPU 0
# alone (kmalloc_concurrent on 1 CPU, the pair unsupported), and cpus=
# still reads back as not given.  It hung before: a worker bound to CPU 1
# never ran, and the end of its row waited for it.
load "benchmarks=kmalloc_concurrent,kmalloc_remote_free samples=3"
cpus=$(cat /sys/module/test_mmbench/parameters/cpus 2>&1)
rows_say x ""
[ "$rc" = 0 ] && [ "$cpus" = "(null)" ] && [ "$(ls $rows | tr '\n' ' ')" = "baseline kmalloc_concurrent_cpus1 kmalloc_remote_free preempt " ] &&
	[ "$(cat $rows/kmalloc_concurrent_cpus1/status $rows/kmalloc_concurrent_cpus1/cpus 2>&1 | tr '\n' ' ')" = "pass 0 " ] &&
	[ "$(cat $rows/kmalloc_remote_free/status $rows/kmalloc_remote_free/reason 2>&1 | tr '\n' ' ')" = "unsupported needs 2 online CPUs in cpus=0 " ]
result $? "the multi-CPU rows leave isolated CPUs alone by default" "insmod: $rc: $(cat /tmp/insmod.out); cpus=$cpus;$got"
rmmod test_mmbench 2>/dev/null

# cpus= naming CPU 1: its worker never runs.  The watchdog stops each row
# in 2 s, an error ("no progress on CPU N in 2 s"), and the load ends.
# Which CPU each names is judged once, below, over every watchdog case.
load "benchmarks=kmalloc_concurrent,kmalloc_remote_free cpus=0,1 team_cpus=2 samples=3"
[ "$rc" = 0 ] && [ $i -le $((limit / 4)) ] &&
	rows_say error "no progress on CPU "
result $? "multi-CPU rows whose CPU never runs their worker are errors, in 2 s each" "insmod: $rc in $i s: $(cat /tmp/insmod.out);$got"
named "never runs"
rmmod test_mmbench 2>/dev/null

# cpu=1: the run's thread never runs.  The load ends after budget_ms and
# 10 s, every row (the baseline too) "not run", and the module says so.
load "benchmarks=kmalloc sizes=64 samples=3 cpu=1 budget_ms=1000"
[ "$rc" = 0 ] && [ $i -le $((limit / 2)) ] && rows_say error "not run" &&
	[ "$(cat $rows/baseline/status $rows/baseline/reason 2>&1 | tr '\n' ' ')" = "error not run " ] &&
	dmesg | grep -q "test_mmbench: the run did not end in budget_ms and 10 s: stopped"
result $? "a run whose CPU never runs its thread ends after budget_ms and 10 s, every row 'not run'" "insmod: $rc in $i s: $(cat /tmp/insmod.out);$got baseline: $(cat $rows/baseline/status $rows/baseline/reason 2>&1 | tr '\n' ' ')"
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
# row would wait for CPU 1 itself); the load, killed then, ends at once:
# the module moves its thread off CPU 1 before kthread_stop().
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

# mid_row <rows> <burst>: start the load of multi-CPU <rows> on CPUs 0 and
# 1, and the real-time task on CPU 1 once the worker there has run; stop
# the task after <burst> seconds unless that is "-" (then it keeps the
# CPU).  Sets rc, i, running and hogged.
mid_row() {
	kill $hog
	wait $hog 2>/dev/null
	insmod "$ko" benchmarks="$1" cpus=0,1 team_cpus=2 samples=250 sample_us=20000 >/tmp/insmod.out 2>&1 &
	pid=$!
	thread_runs $pid mmbench_w/1 && running=yes || running=""
	/mmbench/rt_hog 1 &
	hog=$!
	if [ "$2" = - ]; then
		sleep 1
	else
		sleep "$2"
	fi
	kill -0 $hog 2>/dev/null && hogged=yes || hogged=""
	if [ "$2" != - ]; then
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
}

# The real-time task takes CPU 1 once a multi-CPU row's worker runs there,
# for good: the watchdog stops that row in 2 s, and the next multi-CPU
# row, whose worker on CPU 1 never runs, too; each is an error naming
# CPU 1 and the load ends.  Before, the first was unsupported, and the
# kernel's forensics (sched_info) named how long the worker waited.
mid_row kmalloc_concurrent,kmalloc_remote_free -
[ -n "$running" ] && [ -n "$hogged" ] && [ "$rc" = 0 ] &&
	rows_say error "no progress on CPU "
result $? "a real-time task taking a worker's CPU mid-row for good: each row an error" "worker ran: ${running:-no}; rt_hog: ${hogged:-not running}; insmod: $rc in $i s: $(cat /tmp/insmod.out);$got"
named "taken mid-row"
rmmod test_mmbench 2>/dev/null

# The same for half a second only, under the watchdog's 2 s: the sample
# it delays is dropped (preempted), the row goes on and passes.
mid_row kmalloc_concurrent 0.5
[ -n "$running" ] && [ -n "$hogged" ] && [ "$rc" = 0 ] && rows_say pass ""
result $? "a real-time burst of half a second on a worker's CPU mid-row: the row waits, and passes" "worker ran: ${running:-no}; rt_hog: ${hogged:-not running}; insmod: $rc in $i s: $(cat /tmp/insmod.out);$got; dropped: $(cat $rows/kmalloc_concurrent_cpus2/samples_dropped 2>&1)"
rmmod test_mmbench 2>/dev/null

kill $hog
wait $hog 2>/dev/null
hog=""
# With CPU 1 free again, its rows run: what was left of the cases above
# does not keep the module from loading again.
load "benchmarks=kmalloc_concurrent cpus=0,1 team_cpus=2 samples=3"
status=$(cat $rows/kmalloc_concurrent_cpus2/status 2>&1)
team=$(cat $rows/kmalloc_concurrent_cpus2/cpus 2>&1)
[ "$rc" = 0 ] && [ "$team" = 0-1 ] && [ "$status" = pass ]
result $? "once CPU 1 is free, the multi-CPU rows run on it again" "insmod: $rc: $(cat /tmp/insmod.out); kmalloc_concurrent_cpus2: $status on CPUs $team: $(cat $rows/kmalloc_concurrent_cpus2/reason 2>&1)"
rmmod test_mmbench 2>/dev/null

# The kernel, not a task, keeps CPU 1 mid-row: the kernel's lockup
# generator (lib/test_lockup.c, built for this guest) spins there with
# preemption off for 3 s, as a kernel path that never yields would.  The
# watchdog stops that row in 2 s, an error; the next row meets what is
# left of the stall or not (an error the same way, or a pass), and the
# module, removed, loads again with CPU 1 running its rows.  The old
# module's forensics (CPU 1's kernel time) are gone.
what="a stall of the kernel on a worker's CPU mid-row: an error, and CPU 1 runs rows again after"
if [ -e /mmbench/test_lockup.ko ]; then
	insmod "$ko" benchmarks=kmalloc_concurrent,kmalloc_remote_free cpus=0,1 team_cpus=2 samples=250 sample_us=40000 >/tmp/insmod.out 2>&1 &
	pid=$!
	thread_runs $pid mmbench_w/1 && running=yes || running=""
	taskset -c 1 insmod /mmbench/test_lockup.ko time_secs=3 disable_preempt=1 >/tmp/lockup.out 2>&1 &
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
	first=$(cat $rows/kmalloc_concurrent_cpus2/status $rows/kmalloc_concurrent_cpus2/reason 2>&1 | tr '\n' ' ')
	next=$(cat $rows/kmalloc_remote_free/status $rows/kmalloc_remote_free/reason 2>&1 | tr '\n' ' ')
	named "a stall of the kernel" kmalloc_concurrent_cpus2
	rmmod test_mmbench 2>/dev/null
	insmod "$ko" benchmarks=kmalloc_remote_free cpus=0,1 samples=3 >>/tmp/insmod.out 2>&1
	again=$(cat $rows/kmalloc_remote_free/status 2>&1)
	[ -n "$running" ] && [ "$rc" = 0 ] &&
		echo "$first" | grep -qx "error no progress on CPU [0-9]* in 2 s " &&
		echo "$next" | grep -qxE "pass *|error no progress on CPU [0-9]* in 2 s " &&
		[ "$again" = pass ]
	result $? "$what" "worker ran: ${running:-no}; insmod: $rc in $i s: $(cat /tmp/insmod.out); test_lockup: $(cat /tmp/lockup.out); kmalloc_concurrent_cpus2: $first; kmalloc_remote_free: $next; loaded again: $again"
	rmmod test_mmbench 2>/dev/null
else
	echo "ok $((n = n + 1)) $what # SKIP needs test_lockup.ko" # same case
fi

# The watchdog names the CPU whose worker made no progress: CPU 1, kept,
# in every case above; not another worker's CPU that waited for it (at
# the start of a sample, or on the ring of a pair).
wrong=$(printf "%s" "$names" | grep -v ": no progress on CPU 1 in 2 s$")
[ -n "$names" ] && [ -z "$wrong" ]
result $? "the watchdog names CPU 1, the CPU kept, in each row it stopped" "named otherwise: $(echo "$wrong" | tr '\n' ';')"
