#!/bin/sh
# Fault injection for test_mmbench, run as root inside the mmbench guest on
# a kernel with FAILSLAB, FAIL_PAGE_ALLOC and FAULT_INJECTION_DEBUG_FS (the
# debug kernel).  Every benchmark runs once with 10 % of its allocations
# failed, slab and page allocator alike (interval 1, any gfp, order 0 up),
# restricted to the run by the task filter: the module, built with the
# test-only knobs (tooling/kernel/patches/test_mmbench-knobs.patch) and
# loaded with make_it_fail=1, marks the task of each row's samples (and
# check) once its setup is done, and the workers of the rows on several
# CPUs, as /proc/<pid>/make-it-fail would (the load itself is not
# marked).  Each
# row must pass or say that its allocations failed, and how many.  A row
# of the page allocator or slab makes an allocation call every op (every
# bulk, for a bulk API): with 64 calls in its samples, one of them
# failed for sure (0.9^64 = 0.1 %), so it must not pass; with fewer it is
# not judged (a row of page_frag refills its page now and then, and is
# not judged either).  A vmstat row makes none: it must pass.  Prints KTAP.
rel=$(uname -r)
ko=/lib/modules/$rel/extra/test_mmbench.ko
dbg=/sys/kernel/debug
mb=/sys/kernel/mmbench
# "times" counts down once per failure made: what is left tells how many.
times=100000000
# n, failed and result(); at this path in the guest.
# shellcheck source=tooling/guest/ktap.sh
. /mmbench/ktap.sh

# inject: both injectors at 10 %, for marked tasks only.
inject() {
	for f in failslab fail_page_alloc; do
		d=$dbg/$f
		echo 0 >$d/probability
		echo 1 >$d/interval
		echo $times >$d/times
		echo 0 >$d/space
		echo 0 >$d/verbose
		echo Y >$d/task-filter
		echo N >$d/ignore-gfp-wait
	done
	echo N >$dbg/fail_page_alloc/ignore-gfp-highmem
	echo 0 >$dbg/fail_page_alloc/min-order
	echo 10 >$dbg/failslab/probability
	echo 10 >$dbg/fail_page_alloc/probability
}

# made <injector>: the failures it made since inject.
made() {
	echo $((times - $(num $dbg/$1/times)))
}

# words <file>: how many words it holds (a list: sample_ns,
# samples_dropped), 0 if it cannot be read.
words() {
	# shellcheck disable=SC2046
	set -- $(cat "$1" 2>/dev/null)
	echo $#
}

# group <row>: its family, as the kselftest's cases name them (the
# module no longer says; tooling/tests/test_faults_sh.py holds this to
# the kselftest's table).
group() {
	case "$1" in
	baseline | ndelay | ndelay_[0-9]* | alu_chain | ptr_ring_remote) echo calibration ;;
	*_page_state | count_vm_event | count_vm_events) echo vmstat ;;
	*_account_*) echo memcg ;;
	*_remote_node_*) echo numa ;;
	alloc_pages*) echo page_alloc ;;
	kmalloc* | kmem_cache* | kfree_bulk*) echo slab ;;
	page_frag*) echo page_frag ;;
	*) echo unknown ;;
	esac
}

# num <file>: its number, 0 if it cannot be read.
num() {
	v=$(cat "$1" 2>/dev/null)
	case "$v" in
	'' | *[!0-9-]*) echo 0 ;;
	*) echo "$v" ;;
	esac
}

# uninject: no more failures, for anyone.
uninject() {
	for f in failslab fail_page_alloc; do
		echo 0 >$dbg/$f/probability
		echo N >$dbg/$f/task-filter
	done
}

echo "KTAP version 1"
grep -q " $dbg " /proc/mounts || mount -t debugfs debugfs $dbg 2>/dev/null
if [ ! -d $dbg/failslab ] || [ ! -d $dbg/fail_page_alloc ]; then
	echo "1..0 # SKIP no failslab and fail_page_alloc in this kernel"
	exit 0
fi
echo "1..5"

echo "mmbench-faults: begin" >/dev/kmsg
inject
start=$(date +%s)
# A run that hangs is stopped, so that fault injection ends all the same.
# The rows share budget_ms, and one that finds it spent does not start:
# the most it takes, for a slow debug kernel (the load ends by 610 s).
timeout 900 insmod "$ko" make_it_fail=1 samples=5 budget_ms=600000
rc=$?
took=$(($(date +%s) - start))
slab=$(made failslab)
pages=$(made fail_page_alloc)
uninject
echo "mmbench-faults: end" >/dev/kmsg
[ $rc -eq 0 ] && [ -f $mb/baseline/status ]
result $? "every benchmark ran with 10 % of allocations failed ($took s)" "insmod rc=$rc"
[ "$slab" -gt 0 ] && [ "$pages" -gt 0 ]
result $? "failslab failed $slab allocations, fail_page_alloc $pages" "failslab=$slab fail_page_alloc=$pages"

pass=0 counted=0 oom=0 uncharged=0 single=0 sum=0 bad="" missed="" few=""
for d in $mb/*/; do
	[ -f "$d/status" ] || continue
	b=$(basename "$d")
	st=$(cat "$d/status")
	why=$(cat "$d/reason")
	group=$(group "$b")
	f=$(echo "$why" | sed -n 's/^\(.*; \)\{0,1\}\([0-9][0-9]*\) allocation calls failed.*/\2/p')
	# Allocation calls of the samples, kept or dropped (at least): a bulk
	# API's calls take "bulk" ops each.
	ran=$(($(words "$d/sample_ns") + $(words "$d/samples_dropped")))
	calls=$((ran * $(num "$d/ops_per_sample")))
	case "$b" in
	kfree_bulk_*) ;;
	*_bulk_[0-9]*) bulk=${b##*_}; calls=$((calls / (bulk ? bulk : 1))) ;;
	esac
	case "$group:$st" in
	page_alloc:pass | slab:pass | page_alloc:noisy | slab:noisy)
		if [ "$calls" -ge 64 ]; then
			missed="$missed $b ($st, $calls allocation calls: $why)"
		else
			few="$few $b ($calls)"
		fi ;;
	vmstat:pass | vmstat:noisy | calibration:*) ;;
	vmstat:*) bad="$bad $b: $st: $why;" ;;
	esac
	if [ "$st" = pass ] || [ "$st" = noisy ]; then
		pass=$((pass + 1))
	elif [ "$st" = unsupported ] && [ -n "$f" ] && [ "$f" -gt 0 ]; then
		counted=$((counted + 1))
		sum=$((sum + f))
	elif [ "$st" = error ] && echo "$why" | grep -qE "^(out of memory|setup failed: -12)$"; then
		oom=$((oom + 1))
	elif [ "$group:$st" = memcg:unsupported ] &&
		echo "$why" | grep -qE "^(no memory cgroups: |loaded from the root memory cgroup, )"; then
		uncharged=$((uncharged + 1))	# loaded from here: the root cgroup, or none
	elif [ "$group:$st:$why" = "numa:unsupported:one node with memory: none remote" ]; then
		single=$((single + 1))
	else
		bad="$bad $b: $st: $why;"
	fi
done
echo "# rows: $pass passed (or noisy), $counted counted $sum failed allocation calls, $oom could not set up (out of memory), $uncharged accounted ones not charged from here, $single of a remote node with one node"
[ -z "$bad" ]
result $? "every row passed or says its allocations failed" "$bad"
[ -n "$few" ] && echo "# not judged, too few allocation calls to be sure one failed:$few"
[ -z "$missed" ] && [ "$sum" -gt 0 ]
result $? "no page allocator or slab row of 64 allocation calls or more passed" "passed:$missed; rows counted $sum"

rmmod test_mmbench
left=$(grep -c '^mmbench ' /proc/slabinfo)
[ ! -d /sys/module/test_mmbench ] && [ "$left" -eq 0 ]
result $? "rmmod after the fault injection run leaves no module and no slab cache" "slab caches left: $left"
