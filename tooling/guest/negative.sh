#!/bin/sh
# Bad input and environment cases for test_mmbench (the lean module, built
# with tooling/kernel/patches/test_mmbench-knobs.patch) and mmbench_test,
# run as root inside the mmbench guest.  The module publishes raw figures
# only (/sys/kernel/mmbench/<row>/: status reason cpus context
# ops_per_sample sample_ns samples_dropped, and sample_cycles on x86);
# mmbench_test judges them.  Prints KTAP; the host counts the results.
# Every case prints one result: a line that makes a case's result starts
# with refused, result or skip_case (the plan below counts them; the
# second branch of an if that makes one is marked "same case").
rel=$(uname -r)
ko=/lib/modules/$rel/extra/test_mmbench.ko
testdir=/kselftest/mm/mmbench
mb=/sys/kernel/mmbench
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
# A default load's rows: baseline, ndelay x5, alu_chain, 7 vmstat; 5 + 5
# orders, 3 bulk; 7 + 7 sizes, 3 + 3 bulk; 3 + 3 fragment sizes; 4 pairs
# on two CPUs; 5 + 7 + 7 accounted; 5 + 7 of a remote node.  Each has 9
# files, and sample_cycles where get_cycles() reads the TSC (x86); the top
# has preempt.  The 3 *_concurrent and 2 *_contended benchmarks: a row per
# CPU count of team_cpus's default (1, 2, 4, ... below the CPUs, and all).
nteam=1 i=1 team_default=""
while [ $i -lt "$ncpu" ] && [ $nteam -lt 8 ]; do
	team_default="$team_default$i,"
	nteam=$((nteam + 1))
	i=$((i * 2))
done
team_default="$team_default$ncpu"
all_rows=$((88 + 5 * nteam))
case $(uname -m) in x86_64|i?86) row_files=9 ;; *) row_files=8 ;; esac
# The rows whose blocks the module checks (every allocator path).
allocators="alloc_pages alloc_pages_batch alloc_pages_bulk kmalloc kmem_cache kmem_cache_bulk kfree_bulk page_frag page_frag_aligned"
# The accounted rows, loaded from the root cgroup: why they are unsupported.
memcg=$(awk '$1 == "memory" && $4 == 1 { print 1 }' /proc/cgroups 2>/dev/null)
account_why="loaded from the root memory cgroup, which is not charged"
nomem=""
[ -z "$memcg" ] && account_why="no memory cgroups: CONFIG_MEMCG off, or cgroup_disable=memory" \
	nomem=" (skips: no memory cgroups here)"
# The benchmarks on several CPUs; the pairs among them need two.
pairs="alloc_pages_remote_free kmalloc_remote_free page_frag_remote_free ptr_ring_remote"
teams="alloc_pages_concurrent kmalloc_concurrent page_frag_concurrent alloc_pages_contended kmalloc_contended $pairs"
# Their rows in a load of team_cpus=2.
team_rows="alloc_pages_concurrent_cpus2 kmalloc_concurrent_cpus2 page_frag_concurrent_cpus2 alloc_pages_contended_cpus2 kmalloc_contended_cpus2 $pairs"
# n, failed and result(); at this path in the guest.
# shellcheck source=tooling/guest/ktap.sh
. /mmbench/ktap.sh

loaded() { [ -d /sys/module/test_mmbench ]; }
skipped=0
skip_case() { skipped=$((skipped + 1)); echo "ok $((n = n + 1)) # SKIP $1"; }
# st <row>, why <row>, ops <row>, cpus <row>: a row's file ("none" if absent).
st() { cat "$mb/$1/status" 2>/dev/null || echo none; }
why() { cat "$mb/$1/reason" 2>/dev/null || echo none; }
ops() { cat "$mb/$1/ops_per_sample" 2>/dev/null || echo none; }
cpus() { cat "$mb/$1/cpus" 2>/dev/null || echo none; }
param() { cat "/sys/module/test_mmbench/parameters/$1" 2>/dev/null || echo none; }
# rows_not <status...>: "row: status: reason;" of each row whose status is
# none of those given.
rows_not() {
	for d in "$mb"/*/; do
		r=${d%/}; r=${r##*/}
		s=$(st "$r")
		case " $* " in *" $s "*) ;; *) printf '%s: %s: %s; ' "$r" "$s" "$(why "$r")" ;; esac
	done
}
# perop <row>: its kept samples in ns per op, a line each.
perop() {
	awk -v o="$(ops "$1")" '{ for (i = 1; i <= NF; i++) if (o > 0) printf "%.3f\n", $i / o }' \
		"$mb/$1/sample_ns" 2>/dev/null
}

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
# What the kernel said since the mark that no load may make it say.
trouble() {
	log_since_mark | grep -E "BUG|WARNING|Call Trace|Oops|double free|still has objects|refcount_t" | head -5
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

# refused <parameters> <text dmesg must show>: insmod fails with EINVAL
# and the kernel log names the parameter.
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
echo "1..116"
refused iterations=100000001 "iterations: '100000001' is not a number from 0 to 100000000"
refused iterations=-5 "iterations: '-5' is not a number from"
refused iterations=1e3 "iterations: '1e3' is not a number from"
refused iterations=lots "iterations: 'lots' is not a number from"
refused samples=0 "samples: '0' is not a number from 1 to 250"
refused samples=251 "samples: '251' is not a number from"
refused sample_us=99 "sample_us: '99' is not a number from 100 to 100000"
refused sample_us=100001 "sample_us: '100001' is not a number from"
refused budget_ms=99 "budget_ms: '99' is not a number from 100 to 600000"
refused budget_ms=600001 "budget_ms: '600001' is not a number from"
refused batch=0 "batch: '0' is not a number from 1 to 65536"
refused batch=65537 "batch: '65537' is not a number from"
refused tail_ops=65537 "tail_ops: '65537' is not a number from 0 to 65536"
refused inject_stall_ms=10001 "inject_stall_ms: '10001' is not a number from 0 to 10000"
refused cpu=-2 "cpu: -2 is not an online CPU, nor -1"
refused cpu=$ncpu "cpu: $ncpu is not an online CPU, nor -1"
refused cpu=100000 "cpu: 100000 is not an online CPU, nor -1"
refused cpu=x "\`x' invalid for parameter \`cpu'"
refused benchmarks=no_such_bench "benchmarks: unknown benchmark 'no_such_bench'"
refused benchmarks=count_vm_event, "benchmarks: unknown benchmark ''"
refused benchmarks=count_vm_event,count_vm_event "benchmarks: count_vm_event given twice"
refused benchmarks=all,count_vm_event "benchmarks: count_vm_event given twice"
refused delays=50,50 "delays: 50 given twice"
refused delays=100001 "delays: '100001' is not a number from 0 to 100000"
refused delays=1,2,3,4,5,6,7,8,9 "delays: can only take 8 arguments"
refused delays=5, "invalid for parameter \`delays'"
max_order=$(awk 'NR == 1 { print NF - 5 }' /proc/buddyinfo)
refused orders=$((max_order + 1)) "orders: '$((max_order + 1))' is not a number from 0 to $max_order"
refused orders=0,0 "orders: 0 given twice"
refused orders= "\`' invalid for parameter \`orders'"
refused sizes=0 "sizes: '0' is not a number from"
refused sizes=8193 "sizes: '8193' is not a number from 1 to 8192"
refused bulk=0 "bulk: '0' is not a number from 1 to 1024"
refused bulk=1025 "bulk: '1025' is not a number from"
refused frag_sizes=0 "frag_sizes: '0' is not a number from"
refused frag_sizes=4097 "frag_sizes: '4097' is not a number from 1 to 4096"
online=$(cat /sys/devices/system/cpu/online)
refused cpus=x "cpus: 'x' is not a list of online CPUs ($online)"
refused cpus=0-4095 "cpus: '0-4095' is not a list of online CPUs ($online)"
refused cpus=-1 "cpus: '-1' is not a list of online CPUs"
refused cpus= "cpus: '' is not a list of online CPUs"
refused "cpus=0,$ncpu" "cpus: '0,$ncpu' is not a list of online CPUs"
refused team_cpus=0 "team_cpus: '0' is not a number from 1 to"
# The knobs patch's slow_into=ROW:STEPS: a row of this load, once.
into="is not ROW:STEPS, STEPS 1..10000, ROW a row of this load but the baseline, once"
refused slow_into=count_vm_event "slow_into: 'count_vm_event' $into"
refused slow_into=:5 "slow_into: ':5' $into"
refused slow_into=count_vm_event:5, "slow_into: '' $into"
refused slow_into=count_vm_event:0 "slow_into: 'count_vm_event:0' $into"
refused slow_into=count_vm_event:10001 "slow_into: 'count_vm_event:10001' $into"
refused "benchmarks=count_vm_event slow_into=inc_zone_page_state:5" "slow_into: 'inc_zone_page_state:5' $into"
refused "benchmarks=count_vm_event slow_into=baseline:5" "slow_into: 'baseline:5' $into"
refused "benchmarks=count_vm_event slow_into=count_vm_event:5,count_vm_event:6" "slow_into: 'count_vm_event:6' $into"
refused make_it_fail=maybe "invalid for parameter \`make_it_fail'"
# make_it_fail=1 needs fault injection in the kernel (it has it where
# /proc/self/make-it-fail exists); with no injector set up its rows pass.
if [ -e /proc/self/make-it-fail ]; then
	insmod "$ko" make_it_fail=1 benchmarks=kmalloc sizes=64 samples=3
	rc=$?
	s=$(st kmalloc_64)
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && [ "$s" = pass ]
	result $? "make_it_fail=1 with no injector set up: kmalloc_64 is $s" "rc=$rc status=$s"
else
	refused make_it_fail=1 "make_it_fail: needs CONFIG_FAULT_INJECTION" # same case
fi

# benchmarks=baseline is accepted (it always runs): that row alone.
insmod "$ko" benchmarks=baseline samples=3
rc=$?
got=$(ls $mb 2>&1 | tr '\n' ' ')
s=$(st baseline)
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ "$got" = "baseline preempt " ] && [ "$s" = pass ]
result $? "benchmarks=baseline loads the baseline alone" "rc=$rc: $got; baseline: $s"

# A default load runs every row once, then publishes them: every row
# passes its checks (the tags of each allocator's blocks, each vmstat
# counter back where it was), or on one CPU the pairs are
# unsupported, saying why, and the accounted rows, loaded from the root
# cgroup.  883 files on x86 with 2 CPUs: 98 rows of 9, and preempt.  500 ops timed
# alone: under KASAN the default 4096 filled the 60 s budget; there the
# budget is 4 times as long (alloc_pages_contended's batches of some
# 19000 pages take 0.25 s each).
insmod "$ko" iterations=1000 samples=3 tail_ops=500 budget_ms=$((60000 * slow))
rc=$?
nrows=$(ls -d $mb/*/ 2>/dev/null | wc -l)
nfiles=$(find $mb -type f 2>/dev/null | wc -l)
bad=$(rows_not pass unsupported)
for d in "$mb"/*/; do
	r=${d%/}; r=${r##*/}
	[ "$(st "$r")" = unsupported ] || continue
	case "$r: $(why "$r")" in
	*_account_*": $account_why") continue ;;
	*_remote_node_*": one node with memory: none remote") continue ;;
	esac
	[ "$ncpu" -lt 2 ] && echo " $pairs " | grep -q " $r " &&
		why "$r" | grep -q "^needs 2 online CPUs in cpus=" && continue
	bad="$bad $r: unsupported: $(why "$r");"
done
[ $rc -eq 0 ] && [ "$nrows" = $all_rows ] && [ "$nfiles" = $((all_rows * row_files + 1)) ] && [ -z "$bad" ]
result $? "a default load runs its $all_rows rows once and each passes its checks" "rc=$rc rows=$nrows files=$nfiles (want $all_rows, $((all_rows * row_files + 1))); not passing: $bad"

# The files and the parameters are read-only, and a write is refused.
modes=$(find $mb /sys/module/test_mmbench/parameters -type f 2>&1 |
	while read -r f; do stat -c '%a' "$f"; done | sort | uniq -c | tr -s ' \n' '  ')
nparams=$(ls /sys/module/test_mmbench/parameters 2>/dev/null | wc -l)
written=$( (echo fail >$mb/count_vm_event/status) 2>&1 && echo written)
s=$(st count_vm_event)
[ "$modes" = " $((nfiles + nparams)) 444 " ] && [ "$s" = pass ] && ! echo "$written" | grep -q written
result $? "sysfs files and parameters are 0444, a write is refused" "modes (count, mode):$modes, want $((nfiles + nparams)) 444; write: $written; status now $s"

# cpu= is never rewritten: -1 reads back, and the rows say where they
# ran (the first CPU isolcpus= leaves; the rows on several CPUs on the
# online ones); cpus= not given reads (null).
c=$(param cpu) l=$(param cpus) b=$(cpus baseline) k=$(cpus kmalloc_concurrent_cpus$ncpu)
k1=$(cpus kmalloc_concurrent_cpus1) t=$(param team_cpus)
loaded && rmmod test_mmbench
[ "$c" = -1 ] && [ "$l" = "(null)" ] && [ "$b" = 0 ] && [ "$k" = "$online" ] && [ "$k1" = 0 ] &&
	[ "$t" = "$team_default" ]
result $? "cpu reads back -1, cpus (null), team_cpus $team_default; the rows' cpus say where they ran" "cpu=$c cpus=$l team_cpus=$t (want $team_default) baseline.cpus=$b kmalloc_concurrent_cpus$ncpu.cpus=$k (want $online), kmalloc_concurrent_cpus1.cpus=$k1 (want 0)"

# A directory for each row the load selected, and the baseline; in each,
# the files of the lean ABI; preempt names a model.
insmod "$ko" benchmarks=count_vm_event,alloc_pages,kmalloc_concurrent orders=0 team_cpus=1 iterations=1000 samples=3
rc=$?
rows=$(ls $mb | tr '\n' ' ')
want="context cpus op_ns_hist ops_per_sample reason sample_ns samples_dropped status"
[ $row_files = 9 ] && want="context cpus op_ns_hist ops_per_sample reason sample_cycles sample_ns samples_dropped status"
wrong=""
for r in alloc_pages_order0 baseline count_vm_event kmalloc_concurrent_cpus1; do
	f=$(ls $mb/$r 2>&1 | tr '\n' ' ')
	[ "$f" = "$want " ] || wrong="$wrong $r: $f;"
done
p=$(cat $mb/preempt 2>&1)
kept=$(wc -w <$mb/count_vm_event/sample_ns 2>/dev/null)
cyc=$(wc -w <$mb/count_vm_event/sample_cycles 2>/dev/null)
[ $row_files = 9 ] || cyc=$kept
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ "$rows" = "alloc_pages_order0 baseline count_vm_event kmalloc_concurrent_cpus1 preempt " ] &&
	[ -z "$wrong" ] && echo "$p" | grep -qxE "none|voluntary|full|lazy|rt" &&
	[ "$kept" = 3 ] && [ "$cyc" = 3 ]
result $? "rows exist for what the load selected, each with the lean files" "rc=$rc rows: $rows; wrong files:$wrong (want $want); preempt=$p; count_vm_event: $kept samples, $cyc cycle counts"

# cpu=1 and cpus= read back as given; the rows ran there.
if [ "$ncpu" -ge 2 ]; then
	insmod "$ko" cpu=1 cpus=0-1 team_cpus=2 benchmarks=count_vm_event,kmalloc_concurrent iterations=1000 samples=3
	rc=$?
	c=$(param cpu) l=$(param cpus) t=$(param team_cpus) b=$(cpus baseline) v=$(cpus count_vm_event) k=$(cpus kmalloc_concurrent_cpus2)
	bad=$(rows_not pass) one=$(st kmalloc_concurrent_cpus1)
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && [ "$c" = 1 ] && [ "$l" = 0-1 ] && [ "$t" = 2 ] && [ "$b" = 1 ] && [ "$v" = 1 ] && [ "$k" = 0-1 ] &&
		[ -z "$bad" ] && [ "$one" = none ]
	result $? "cpu=1 cpus=0-1 team_cpus=2 read back as given, the rows ran there" "rc=$rc cpu=$c cpus=$l team_cpus=$t; cpus of baseline $b, count_vm_event $v, kmalloc_concurrent_cpus2 $k; kmalloc_concurrent_cpus1: $one (want none); not passing: $bad"
else
	skip_case "one CPU: no cpu=1" # same case
fi

# tail_ops: each row of one op at a time times that many alone (fewer
# only those dropped, preempted), its slowest first, counted in buckets;
# a row of bulk calls or on several CPUs times none ("0").
insmod "$ko" benchmarks=count_vm_event,alloc_pages,kmalloc,kfree_bulk,kmalloc_concurrent orders=0 sizes=64 bulk=16 team_cpus=1 iterations=1000 samples=3 tail_ops=500
rc=$?
wrong=""
for r in baseline count_vm_event alloc_pages_order0 kmalloc_64; do
	set -- $(cat $mb/$r/op_ns_hist 2>/dev/null)
	# (Not n: the cases' count.)
	slowest=${1:-0} ops=0 top=0 i=0
	[ $# -gt 0 ] && shift
	for c in "$@"; do ops=$((ops + c)); [ "$c" -gt 0 ] && top=$i; i=$((i + 1)); done
	# The least ns of the last bucket with ops (lib/test_mmbench.c).
	low=$top; [ $top -ge 32 ] && low=$(((top % 16 + 16) << (top / 16 - 1)))
	{ [ $ops -ge 450 ] && [ $ops -le 500 ] && [ "$slowest" -ge $low ]; } ||
		wrong="$wrong $r: $ops ops, slowest $slowest, last bucket from $low;"
done
for r in kfree_bulk_16 kmalloc_concurrent_cpus1; do
	[ "$(cat $mb/$r/op_ns_hist 2>&1)" = 0 ] || wrong="$wrong $r: $(cat $mb/$r/op_ns_hist 2>&1);"
done
t=$(param tail_ops)
loaded && rmmod test_mmbench
insmod "$ko" benchmarks=kmalloc sizes=64 iterations=1000 samples=3 tail_ops=0
none=$(cat $mb/kmalloc_64/op_ns_hist $mb/baseline/op_ns_hist 2>&1 | tr '\n' ' ')
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ -z "$wrong" ] && [ "$t" = 500 ] && [ "$none" = "0 0 " ]
result $? "tail_ops=500: each row of one op at a time has 500 ops timed alone, else none" "rc=$rc tail_ops=$t;$wrong with tail_ops=0: $none"

# benchmarks=all given (not only the default) selects every benchmark.
insmod "$ko" benchmarks=all iterations=1000 samples=1 budget_ms=100
rc=$?
a=$(param benchmarks)
dirs=$(ls -d $mb/*/ 2>/dev/null | wc -l)
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ "$a" = all ] && [ "$dirs" = $all_rows ]
result $? "benchmarks=all loads every benchmark's rows" "rc=$rc benchmarks=$a, $dirs row directories, want $all_rows"

# The remote-node rows: with two nodes with memory (./mmbench test boots
# this guest so), break_check=node makes their check want this CPU's node
# and each fails naming node 1; with one, the kselftest's case skips,
# saying so.
nodes=$(awk -F, '{ print NF }' /sys/devices/system/node/has_memory 2>/dev/null)
case $(cat /sys/devices/system/node/has_memory 2>/dev/null) in
*-*) nodes=2 ;;
esac
if [ "${nodes:-1}" -ge 2 ]; then
	insmod "$ko" benchmarks=alloc_pages_remote_node,kmalloc_remote_node orders=0 sizes=64 break_check=node iterations=1000 samples=3
	rc=$?
	a="$(st alloc_pages_remote_node_order0): $(why alloc_pages_remote_node_order0)"
	k="$(st kmalloc_remote_node_64): $(why kmalloc_remote_node_64)"
	loaded && rmmod test_mmbench
	out=$(cd $testdir && MMBENCH_PARAMS="sizes=64 orders=0 samples=3" ./mmbench_test -v kmalloc_remote_node -v alloc_pages_remote_node 2>&1)
	rc2=$?
	for r in "$a" "$k"; do
		case "$r" in "fail: "[0-9]*" blocks not on node 1") ;; *) rc=1 ;; esac
	done
	[ $rc -eq 0 ] && [ $rc2 -eq 0 ] &&
		[ "$(echo "$out" | grep -cE "^ok [0-9]+ mmbench\.(kmalloc|alloc_pages)_remote_node\.run$")" = 2 ]
	result $? "two nodes: break_check=node fails each remote-node row, 'N blocks not on node 1'; without it their cases pass" "rc=$rc: $a; $k; mmbench_test rc=$rc2: $(echo "$out" | grep -E 'remote_node.*(status|reason)=|ok |Totals')"
else
	out=$(cd $testdir && MMBENCH_PARAMS="sizes=64 samples=3" ./mmbench_test -v kmalloc_remote_node 2>&1)
	rc=$?
	[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*one node with memory: none remote" && ! loaded
	result $? "one node with memory: the remote-node case skips, saying so" "rc=$rc: $(echo "$out" | grep -E 'SKIP|not ok|Totals')" # same case
fi

# alloc_pages_contended: past the high mark each CPU's frees drain its
# per-CPU lists.  break_check=pcp wants them empty after the row: it fails
# naming the pages the lists kept; without it the row passes, saying its
# batch and the high mark (pcp->high_max) it passes.
insmod "$ko" benchmarks=alloc_pages_contended team_cpus=1 break_check=pcp samples=3
rc=$?
a="$(st alloc_pages_contended_cpus1): $(why alloc_pages_contended_cpus1)"
loaded && rmmod test_mmbench
insmod "$ko" benchmarks=alloc_pages_contended team_cpus=1 samples=3
rc2=$?
b="$(st alloc_pages_contended_cpus1): $(why alloc_pages_contended_cpus1)"
loaded && rmmod test_mmbench
case "$a" in "fail: CPU 0's lists: "[1-9]*" pages") ;; *) rc=1 ;; esac
case "$b" in "pass: batches of "[1-9]*" pages, past the high mark "[1-9]*) ;; *) rc2=1 ;; esac
[ $rc -eq 0 ] && [ $rc2 -eq 0 ]
result $? "break_check=pcp fails alloc_pages_contended, 'CPU 0's lists: N pages'; without it the row passes past the high mark" "rc=$rc: $a; rc=$rc2: $b"

# The accounted rows charge the loading task's memory cgroup.  From the
# root cgroup (where this script runs) they are unsupported, saying why;
# so on a kernel without memory cgroups (CONFIG_MEMCG off).
insmod "$ko" benchmarks=kmalloc_account sizes=64 iterations=1000 samples=3
rc=$?
s=$(st kmalloc_account_64) w=$(why kmalloc_account_64)
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ "$s: $w" = "unsupported: $account_why" ]
result $? "the accounted rows loaded from the root memory cgroup$nomem are unsupported, saying so" "rc=$rc kmalloc_account_64: $s: $w"

# in_memcg <command...>: runs it in cgroup v2's child "negative", with the
# memory controller (cgroup v2 mounted at /tmp/cg2 if it is not).
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg2_ours=""
in_memcg() {
	if [ -z "$cg2" ]; then
		mkdir -p /tmp/cg2 && mount -t cgroup2 none /tmp/cg2 && cg2=/tmp/cg2 cg2_ours=1
	fi
	echo +memory >"$cg2/cgroup.subtree_control"
	mkdir -p "$cg2/negative"
	(echo 0 >"$cg2/negative/cgroup.procs" && "$@")
}
# usage: the memory cgroup's usage, in pages.
usage() { echo $(($(cat "$cg2/negative/memory.current" 2>/dev/null || echo 0) / 4096)); }
# What a CPU may keep precharged (lib/test_mmbench.c's slack).
slack=66
if [ -n "$memcg" ]; then
	# In a memory cgroup they pass, and its usage comes back.
	in_memcg true
	u0=$(usage)
	in_memcg insmod "$ko" benchmarks=alloc_pages_account,kmalloc_account,kmem_cache_account orders=0,9 sizes=64,4096 iterations=1000 samples=3
	rc=$?
	bad=$(rows_not pass)
	loaded && rmmod test_mmbench
	u1=$(usage)
	[ $rc -eq 0 ] && [ -z "$bad" ] && [ $((u1 - u0)) -le $((slack * ncpu)) ]
	result $? "the accounted rows pass in a memory cgroup, its usage back within $((slack * ncpu)) pages after the module is removed" "rc=$rc not passing: $bad; usage $u0 then $u1 pages"

	# break_check=charge: nothing is charged; alloc_pages_account's 256
	# pages held each fail their check, a slab row whose checked batch
	# holds more than every CPU's slack (4096-byte objects: 256 pages)
	# fails; kmalloc_account_64's batch is 4 pages: it passes.
	in_memcg insmod "$ko" benchmarks=alloc_pages_account,kmalloc_account,kmem_cache_account orders=0 sizes=64,4096 iterations=1000 samples=3 break_check=charge
	rc=$?
	wrong=""
	for r in alloc_pages_account_order0 kmalloc_account_4096 kmem_cache_account_4096; do
		case "$r: $(st $r): $(why $r)" in
		"alloc_pages_account_order0: fail: 256 blocks held not charged to the memory cgroup") ;;
		*"_4096: fail: 1 batches held not charged to the memory cgroup") ;;
		*) wrong="$wrong $r: $(st $r): $(why $r);" ;;
		esac
	done
	[ "$(st kmalloc_account_64)" = pass ] || wrong="$wrong kmalloc_account_64: $(st kmalloc_account_64): $(why kmalloc_account_64);"
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && [ -z "$wrong" ]
	result $? "break_check=charge: the accounted rows fail, 'not charged', but a slab batch under the precharge" "rc=$rc$wrong"

	# break_check=leak: the first accounted row keeps 512 pages charged.
	in_memcg insmod "$ko" benchmarks=alloc_pages_account,kmalloc_account orders=0 sizes=64 iterations=1000 samples=3 break_check=leak
	rc=$?
	w=$(why alloc_pages_account_order0)
	set -- $(echo "$w" | sed -n 's/^memory cgroup usage up \([0-9]*\) pages after the row (limit \([0-9]*\))$/\1 \2/p')
	k=$(st kmalloc_account_64)
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && [ "$(echo "$w" | wc -l)" = 1 ] && [ $# = 2 ] && [ "$1" -gt "$2" ] && [ "$k" = pass ]
	result $? "break_check=leak: the row that kept a charge fails, 'memory cgroup usage up N pages'" "rc=$rc alloc_pages_account_order0: $w; kmalloc_account_64: $k"
	rmdir "$cg2/negative"
else
	skip_case "no memory cgroups in this kernel: the accounted rows in a cgroup" # same case
	skip_case "no memory cgroups in this kernel: break_check=charge" # same case
	skip_case "no memory cgroups in this kernel: break_check=leak" # same case
fi

# mmbench_test's accounted case makes a cgroup of its own for the load and
# removes it: under a cgroup v2 mounted already (if the kernel has one),
# and where none is (it mounts one in /tmp and unmounts it).  Without
# memory cgroups it skips, saying so.
out=""
rc=0
left=""
if [ -n "$cg2" ]; then
	out=$(cd $testdir && MMBENCH_PARAMS="sizes=64 samples=3" ./mmbench_test -v kmalloc_account 2>&1)
	rc=$?
	left=$(ls -d "$cg2"/mmbench_test.* 2>/dev/null)
	[ -n "$cg2_ours" ] && umount "$cg2" && rmdir "$cg2"
fi
out2=$(cd $testdir && MMBENCH_PARAMS="sizes=64 samples=3" ./mmbench_test -v kmalloc_account 2>&1)
rc2=$?
left2=$(grep cgroup2 /proc/mounts; ls -d /tmp/mmbench_cgroup.* 2>/dev/null)
if [ -n "$memcg" ]; then
	# (A noisy guest may skip the case: exit 4, the row still "pass".)
	{ [ $rc -eq 0 ] || [ $rc -eq 4 ]; } && { [ $rc2 -eq 0 ] || [ $rc2 -eq 4 ]; } &&
		[ -z "$left" ] && [ -z "$left2" ] &&
		echo "$out" | grep -q "kmalloc_account_64.status=pass" &&
		echo "$out2" | grep -q "kmalloc_account_64.status=pass"
else
	[ $rc2 -eq 4 ] && [ -z "$left2" ] &&
		echo "$out2" | grep -Eq "^ok 1 mmbench.kmalloc_account.run # SKIP cgroup v2 (is not mounted and cannot be|at .* has no memory controller)" # same case
fi
result $? "mmbench_test's accounted case passes in a cgroup of its own made for the load$nomem, and leaves none" "rc=$rc, then $rc2 unmounted; left: $left $left2; $(echo "$out $out2" | grep -E "not ok|SKIP|kmalloc_account_64.(status|reason)")"

# The module's own checks fail on purpose (the knobs patch's break_check).
# dup: each check's batch hands its first block out twice, the second
# freed: every row whose blocks are checked fails, naming them (one per
# checking CPU: each CPU of a concurrent row, push_cpu of a pair), with
# no double free; the rows without a check pass.
log_mark
insmod "$ko" benchmarks="$(echo $allocators $teams | tr ' ' ,)" break_check=dup iterations=1000 samples=3 budget_ms=$((60000 * slow))
rc=$?
wrong="" nfail=0
for d in "$mb"/*/; do
	r=${d%/}; r=${r##*/}
	s=$(st "$r") w=$(why "$r")
	case $r in
	baseline|ptr_ring_remote) want=pass ;;
	*_con*_cpus*) want="fail: ${w%%; *}; ${r##*_cpus} blocks lost their tag or alignment"
		[ "$w" = "${w#batches of }" ] && want="fail: ${r##*_cpus} blocks lost their tag or alignment" ;;
	*) want="fail: 1 blocks lost their tag or alignment" ;;
	esac
	if [ "$ncpu" -lt 2 ] && echo " $pairs " | grep -q " $r "; then
		want=unsupported
		[ "$s" = unsupported ] || wrong="$wrong $r: $s: $w;"
		continue
	fi
	[ "$want" = pass ] && [ "$s" = pass ] && continue
	[ "$s: $w" = "$want" ] && nfail=$((nfail + 1)) && continue
	wrong="$wrong $r: $s: $w (want $want);"
done
oops=$(trouble)
timeout $((10 + release)) rmmod test_mmbench
gone=$?
# 39 rows of one CPU; 5 a CPU count, and 3 pairs (ptr_ring_remote hands
# out no block).
want=$((39 + 5 * nteam))
[ "$ncpu" -ge 2 ] && want=$((want + 3))
[ $rc -eq 0 ] && [ -z "$wrong" ] && [ $nfail -eq $want ] && [ -z "$oops" ] && [ $gone -eq 0 ]
result $? "break_check=dup: each of $nfail checked rows fails, naming its blocks, no double free, rmmod works" "rc=$rc rmmod=$gone; $nfail failed as asked, want $want; wrong:$wrong; kernel: $oops"
# The same load without it: every row passes (what the check took back
# was whole).
insmod "$ko" benchmarks="$(echo $allocators $teams | tr ' ' ,)" iterations=1000 samples=3 budget_ms=$((60000 * slow))
rc=$?
bad=$(rows_not pass unsupported)
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ -z "$bad" ]
result $? "after break_check=dup the same rows load again and pass" "rc=$rc not passing: $bad"

# counter: a vmstat row with a restore runs one op more, without it: its
# counter is off by one.  The others put theirs back.
insmod "$ko" benchmarks=inc_zone_page_state,dec_zone_page_state,inc_dec_zone_page_state,mod_node_page_state,__mod_zone_page_state,count_vm_event,count_vm_events break_check=counter iterations=1000 samples=3
rc=$?
got="" wrong=""
for r in baseline inc_zone_page_state dec_zone_page_state inc_dec_zone_page_state mod_node_page_state __mod_zone_page_state count_vm_event count_vm_events; do
	case $r in
	inc_zone_page_state|count_vm_event|count_vm_events) want="fail: counter off by 1" ;;
	*) want="pass: " ;;
	esac
	[ "$(st $r): $(why $r)" = "$want" ] || wrong="$wrong $r: $(st $r): $(why $r) (want $want);"
done
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ -z "$wrong" ]
result $? "break_check=counter: the rows with a restore fail, counter off by 1; the others pass" "rc=$rc wrong:$wrong"

# mmbench_test fails a case whose rows failed the module's check; a
# counter off by one in two loads fails (another task's write would not
# be there again).
out=$(cd $testdir && MMBENCH_PARAMS="break_check=dup sizes=64 samples=3" ./mmbench_test -v kmalloc 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "^not ok 1 mmbench.kmalloc.run" &&
	echo "$out" | grep -q "kmalloc_64: fail: 1 blocks lost their tag" && ! loaded
result $? "mmbench_test fails a row whose blocks fail the module's check" "rc=$rc: $out"
out=$(cd $testdir && MMBENCH_PARAMS="break_check=counter samples=3" ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "^not ok 1 mmbench.count_vm_event.run" &&
	echo "$out" | grep -q "count_vm_event: fail: counter off by 1; in a second load: fail, counter off by 1" && ! loaded
result $? "mmbench_test fails a vmstat row whose counter is off in two loads" "rc=$rc: $out"

# The watchdog: the last worker of each row on several CPUs sleeps 3 s
# (inject_stall_ms) in its first sample of the final size, past the 2 s a
# team sample may take: each row is an error naming that CPU, the load
# ends, the blocks go back, and the module unloads and loads again.
# 1000 ops a sample fit the ring of a pair: push_cpu ends its part.
if [ "$ncpu" -ge 2 ]; then
	log_mark
	t0=$(date +%s)
	insmod "$ko" benchmarks="$(echo $teams | tr ' ' ,)" cpus=0,1 team_cpus=2 inject_stall_ms=3000 iterations=1000 samples=3
	rc=$?
	took=$(($(date +%s) - t0))
	wrong=""
	for r in $team_rows; do
		[ "$(st $r): $(why $r)" = "error: no progress on CPU 1 in 2 s" ] ||
			wrong="$wrong $r: $(st $r): $(why $r);"
	done
	b=$(st baseline)
	oops=$(trouble)
	timeout $((10 + release)) rmmod test_mmbench
	gone=$?
	[ $rc -eq 0 ] && [ -z "$wrong" ] && [ "$b" = pass ] && [ -z "$oops" ] && [ $gone -eq 0 ] &&
		[ "$took" -le $((9 * 5 * slow + 10)) ]
	result $? "inject_stall_ms=3000: each of the 9 rows on several CPUs is an error, 'no progress on CPU 1 in 2 s' (${took} s)" "rc=$rc rmmod=$gone baseline=$b took=$took s; wrong:$wrong; kernel: $oops"
	insmod "$ko" benchmarks="$(echo $teams | tr ' ' ,)" cpus=0,1 team_cpus=2 iterations=1000 samples=3
	rc=$?
	bad=$(rows_not pass)
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && [ -z "$bad" ]
	result $? "after the stalls the rows on several CPUs load again and pass" "rc=$rc not passing: $bad"
	# Under the watchdog's 2 s: the row waits and passes.
	insmod "$ko" benchmarks=kmalloc_concurrent,kmalloc_remote_free cpus=0,1 team_cpus=2 inject_stall_ms=1000 iterations=1000 samples=3
	rc=$?
	bad=$(rows_not pass)
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && [ -z "$bad" ]
	result $? "inject_stall_ms=1000, under the watchdog's 2 s: the rows pass" "rc=$rc not passing: $bad"
else
	for t in stall again short; do
		skip_case "one CPU: no row on several CPUs to stall ($t)" # same case
	done
fi

# Another task moving a row's vmstat counter: with mlock_writer locking
# and unlocking pages meanwhile (NR_MLOCK, the zone rows' counter), the
# module says the counter is off (it does not hide it: the kselftest
# judges it), and a row of another counter (mod_node_page_state) passes.
# mmbench_test then loads the row again: "fail" if off again, else
# "noisy", saying so either way.
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
	got=""
	for r in inc_zone_page_state dec_zone_page_state mod_node_page_state; do
		got="$got $r: $(st $r): $(why $r);"
	done
	off=$(grep -l "^counter off by -\?[1-9]" $mb/inc_zone_page_state/reason $mb/dec_zone_page_state/reason 2>/dev/null | wc -l)
	node=$(st mod_node_page_state)
	loaded && rmmod test_mmbench
	out=$(cd $testdir && MMBENCH_PARAMS="samples=3" ./mmbench_test -v inc_zone_page_state -v dec_zone_page_state 2>&1)
	trc=$?
	kill $writer
	wait $writer 2>/dev/null
	# Its exit queues munlocks on its CPU, drained by the next task that
	# exits there: one now, not a later case's vmstat row.
	if [ "$ncpu" -gt 1 ]; then taskset -c 1 sh -c :; else sh -c :; fi
	[ $rc -eq 0 ] && [ "$off" -ge 1 ] && [ "$node" = pass ]
	result $? "another task moving NR_MLOCK: the zone rows say their counter is off, mod_node_page_state passes" "rc=$rc;$got"
	echo "$out" | grep -Eq "counter off by -?[0-9]+(; in a second load: | in a first load, back in a second: another task writes it)" && ! loaded
	result $? "another task moving NR_MLOCK: mmbench_test loads the row again and says what it found" "rc=$trc: $(echo "$out" | grep -E 'counter|ok ')"
else
	result 1 "another task moving NR_MLOCK: the zone rows say their counter is off" "no /mmbench/mlock_writer in the guest" # same case
	result 1 "another task moving NR_MLOCK: mmbench_test loads the row again" "no /mmbench/mlock_writer in the guest" # same case
fi

# The selftest never reuses a copy loaded with other parameters.
insmod "$ko" benchmarks=count_vm_event iterations=1000 samples=3
out=$(cd $testdir && ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "removed a test_mmbench that was already loaded" && ! loaded
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

# Module not installed for modprobe ("not found"): skip with the reason.
dep=/lib/modules/$rel/modules.dep
mv $dep $dep.saved && : >$dep
out=$(cd $testdir && ./mmbench_test 2>&1)
rc=$?
mv $dep.saved $dep
[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP module not installed (CONFIG_TEST_MMBENCH=m, or MMBENCH_MODULE=<.ko>): modprobe test_mmbench .* failed"
result $? "mmbench_test skips with exit 4 when the module is not installed" "rc=$rc: $out"

# A parameter the module refuses fails the test, with the module's words.
out=$(cd $testdir && MMBENCH_PARAMS="samples=0" ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "refused.*samples: '0' is not a number from 1 to 250" && ! loaded
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
# row that the case's own benchmarks=count_vm_event does not load.
out=$(cd $testdir && MMBENCH_PARAMS="slow_into=inc_zone_page_state:5" ./mmbench_test -v count_vm_event 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "refused.*slow_into: 'inc_zone_page_state:5' is not ROW:STEPS" && ! loaded
result $? "mmbench_test fails when MMBENCH_PARAMS combine badly" "rc=$rc: $out"

# benchmarks= in MMBENCH_PARAMS picks benchmarks: 2 cases and the
# fingerprint's pass, the other 29 skip.
out=$(cd $testdir && MMBENCH_PARAMS="benchmarks=count_vm_event,count_vm_events samples=3" ./mmbench_test 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:29" && ! loaded
result $? "MMBENCH_PARAMS benchmarks= runs those and skips the rest" "rc=$rc: $out"

# A pair on one CPU of cpus= says which list it took the CPUs of; a
# *_concurrent row runs on that one, and one of 2 CPUs there is
# unsupported the same way (a fleet's fixed team_cpus= on a smaller
# machine: a row skipped, not a load refused).
insmod "$ko" cpus=0 team_cpus=1,2 benchmarks=kmalloc_concurrent,kmalloc_remote_free samples=3
w=$(why kmalloc_remote_free) s=$(st kmalloc_remote_free) k=$(st kmalloc_concurrent_cpus1)
k2="$(st kmalloc_concurrent_cpus2): $(why kmalloc_concurrent_cpus2)"
rows=$(ls $mb | tr '\n' ' ')
loaded && rmmod test_mmbench
[ "$s" = unsupported ] && [ "$w" = "needs 2 online CPUs in cpus=0" ] && [ "$k" = pass ] &&
	[ "$k2" = "unsupported: needs 2 online CPUs in cpus=0" ] &&
	[ "$rows" = "baseline kmalloc_concurrent_cpus1 kmalloc_concurrent_cpus2 kmalloc_remote_free preempt " ]
result $? "with one CPU in cpus= a pair and a row of 2 CPUs say cpus=, kmalloc_concurrent runs on 1" "kmalloc_remote_free: $s: $w; kmalloc_concurrent_cpus1: $k; kmalloc_concurrent_cpus2: $k2; rows: $rows"
# The watchdog with a team of one: its worker, on the run's CPU, sleeps
# past the 2 s a sample may take.
insmod "$ko" cpus=0 team_cpus=1 benchmarks=kmalloc_concurrent inject_stall_ms=3000 iterations=1000 samples=3
rc=$?
got="$(st kmalloc_concurrent_cpus1): $(why kmalloc_concurrent_cpus1)"
loaded && timeout $((10 + release)) rmmod test_mmbench
[ $rc -eq 0 ] && [ "$got" = "error: no progress on CPU 0 in 2 s" ] && ! loaded
result $? "inject_stall_ms=3000 with a team of one CPU: an error, 'no progress on CPU 0 in 2 s'" "rc=$rc: $got"

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

# A module older than the test program.  A benchmark or a parameter it
# lacks is a refused parameter: the case fails, naming it.  A row it does
# not publish skips the case, saying so.
if older_module count_vm_events Xount_vm_events; then
	out=$(cd $testdir && MMBENCH_MODULE=/tmp/older.ko ./mmbench_test -v count_vm_event -v count_vm_events 2>&1)
	rc=$?
	[ $rc -eq 1 ] && echo "$out" | grep -q "^ok 1 mmbench.count_vm_event.run$" &&
		echo "$out" | grep -q "^not ok 2 mmbench.count_vm_events.run" &&
		echo "$out" | grep -q "refused.*benchmarks: unknown benchmark 'count_vm_events'" && ! loaded
	result $? "a benchmark the module does not have fails its case, naming it" "rc=$rc: $out"
else
	result 1 "a benchmark the module does not have fails its case" "no string count_vm_events in $ko" # same case
fi
# budget_ms is a parameter every case sets.
if older_module budget_ms Xudget_ms; then
	out=$(cd $testdir && MMBENCH_MODULE=/tmp/older.ko ./mmbench_test -v count_vm_event 2>&1)
	rc=$?
	[ $rc -eq 1 ] && echo "$out" | grep -q "refused.*unknown parameter 'budget_ms'" && ! loaded
	result $? "a parameter the module does not have (budget_ms, set for every case) fails the case, naming it" "rc=$rc: $out"
else
	result 1 "a parameter the module does not have fails the case" "no string budget_ms in $ko" # same case
fi
# "%s_%s%u" names the rows of a benchmark with a list (kmalloc_64):
# renamed, the module publishes kmalloc-64 and no kmalloc_64.
if older_module %s_%s%u %s-%s%u; then
	out=$(cd $testdir && MMBENCH_MODULE=/tmp/older.ko MMBENCH_PARAMS="sizes=64 samples=3" ./mmbench_test -v kmalloc 2>&1)
	rc=$?
	[ $rc -eq 4 ] && echo "$out" | grep -q "SKIP test_mmbench published no row kmalloc: the module is older than this test" && ! loaded
	result $? "a row the module does not publish skips its case" "rc=$rc: $out"
else
	result 1 "a row the module does not publish skips its case" "no string %s_%s%u in $ko" # same case
fi

# The largest request is cut by budget_ms, not left to run: a sample
# lasts 100 ms at most (fewer ops than asked, unless 100000000 take less:
# sized on a faster sample, TCG's may take up to 3 times that), no sample
# is taken and no row starts once the budget is spent.  The baseline,
# first, spends it all here.
t0=$(date +%s)
insmod "$ko" benchmarks=inc_dec_zone_page_state iterations=100000000 samples=250 budget_ms=3000
rc=$?
took=$(($(date +%s) - t0))
s=$(st baseline) o=$(ops baseline) got=$(wc -w <$mb/baseline/sample_ns 2>/dev/null)
longest=$(tr ' ' '\n' <$mb/baseline/sample_ns 2>/dev/null | sort -n | tail -1)
other="$(st inc_dec_zone_page_state): $(why inc_dec_zone_page_state)"
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ "$s" = pass ] && [ "$took" -le $((3 + 3 * slow)) ] &&
	[ "${got:-0}" -ge 1 ] && [ "$got" -lt 250 ] && [ "${longest:-0}" -lt 1000000000 ] &&
	{ [ "$o" -lt 100000000 ] || [ "$longest" -lt 100000000 ]; } &&
	[ "$other" = "unsupported: budget_ms ran out before it started" ]
result $? "iterations=100000000 samples=250 budget_ms=3000 stops in time (${took} s; the baseline: $got samples of $o ops, the longest $longest ns; the next row not started)" "rc=$rc took=$took s; baseline: $s, $got samples of $o ops, the longest $longest ns; inc_dec_zone_page_state: $other"

# A batch or bulk is timed whole: iterations below it are rounded up;
# sized samples take whole batches too.
insmod "$ko" benchmarks=kfree_bulk bulk=1024 iterations=1000 samples=3
rc=$?
bulk=$(ops kfree_bulk_1024) s=$(st kfree_bulk_1024)
loaded && rmmod test_mmbench
insmod "$ko" benchmarks=alloc_pages_batch orders=9 samples=3
batch=$(ops alloc_pages_batch_order9) s9=$(st alloc_pages_batch_order9)
loaded && rmmod test_mmbench
[ $rc -eq 0 ] && [ "$s" = pass ] && [ "$bulk" = 1024 ] && [ "$s9" = pass ] &&
	[ "$batch" -gt 0 ] 2>/dev/null && [ $((batch % 8)) -eq 0 ]
result $? "iterations=1000 times whole bulks of 1024; sized order-9 batches are whole ($batch ops)" "rc=$rc status=$s ops=$bulk; order 9: $s9, $batch ops"

# slow_into slows the row it names, and says so in its reason; sample_ns
# lists the samples kept (whole samples: per op, over ops_per_sample).
slowed="benchmarks=count_vm_event,alu_chain samples=5 slow_into=count_vm_event:2000"
# shellcheck disable=SC2086 # the parameters
insmod "$ko" $slowed
rc=$?
s="$(st count_vm_event) $(st alu_chain) "
w=$(why count_vm_event)
other=$(cat $mb/alu_chain/reason $mb/baseline/reason 2>&1 | grep -c slow_into)
list=$(perop count_vm_event | tr '\n' ' ')
kept=$(wc -w <$mb/count_vm_event/sample_ns 2>/dev/null)
chain=$(perop alu_chain | tr '\n' ' ')
loaded && rmmod test_mmbench
what="rc=$rc status=$s reason=$w others=$other per op: $list; alu_chain per op: $chain"
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
	list2=$(perop count_vm_event | tr '\n' ' ')
	chain2=$(perop alu_chain | tr '\n' ' ')
	loaded && rmmod test_mmbench
	# shellcheck disable=SC2086 # the samples, a word each
	fast=$(least $list $list2) cfast=$(least $chain $chain2) loads=2
	what="$what; load 2: rc=$rc per op: $list2 alu_chain per op: $chain2"
fi
ratio=$(awk -v n="$fast" -v c="$cfast" 'BEGIN { printf "%.2f", (c + 0 > 0 ? n / c : 0) }')
[ "$s" = "pass pass " ] && [ $rc -eq 0 ] && [ "$w" = "slow_into: 2000 steps an op" ] &&
	[ "$other" = 0 ] && [ "$kept" = 5 ]
sound=$?
# shellcheck disable=SC2086 # the samples, a word each
host=$(spread "$(least $chain)" "$(least $chain2)")
# shellcheck disable=SC2086 # the samples, a word each
if [ $sound -eq 0 ] && within "$fast" "$cfast" "$host"; then
	skip_case "slow_into=count_vm_event:2000: a busy host: $ratio x alu_chain's fastest sample ($fast ns against $cfast ns), short of the 1.2 x asked by less than alu_chain itself moved between two loads alike ($host x: $(least $chain), $(least $chain2) ns) ($what)"
else
	[ $sound -eq 0 ] && over "$fast" "$cfast"
	result $? "slow_into=count_vm_event:2000 slows that row only, its fastest sample over 1.2 x alu_chain's ($fast ns against $cfast ns: $ratio x, $loads loads), and says so; sample_ns holds its 5 samples" "$what" # same case
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

if [ "$ncpu" -ge 2 ]; then
	# A CPU taken offline mid-run: the row then running says so (an
	# error) and the load stops, the rows after it not run; cpu= still
	# reads back what was given.
	insmod "$ko" cpu=1 samples=100 sample_us=10000 budget_ms=8000 &
	run=$!
	# Once its run's thread (mmbench/1) is there, and a second more.
	i=0
	while ! grep -qx "mmbench/1" /proc/[0-9]*/comm 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 1
	echo 0 >/sys/devices/system/cpu/cpu1/online
	wait $run
	rc=$?
	echo 1 >/sys/devices/system/cpu/cpu1/online
	said=$(grep -lx "error" $mb/*/status 2>/dev/null | while read -r f; do
		grep -lx "CPU 1 went offline: the load stops" "${f%status}reason"; done | wc -l)
	notrun=$(grep -lx "not run" $mb/*/reason 2>/dev/null | wc -l)
	c=$(param cpu)
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && [ "$said" = 1 ] && [ "$notrun" -ge 1 ] && [ "$c" = 1 ]
	result $? "CPU offlined mid-run: the row running then is an error, 'CPU 1 went offline: the load stops', $notrun rows not run; cpu reads 1" "rc=$rc rows saying so: $said, not run: $notrun; cpu=$c"

	# slow_into on rows of several CPUs: their samples hold the steps.
	# Loaded without, then with 2000 steps (alu_chain times 1000), the
	# fastest sample of each row rises by over 1.2 x alu_chain's.  A row
	# that kept no sample in a load has no rise to show; when no row has
	# one: SKIP, once the load and the reasons are right.  A row short of
	# the rise (a host busy through every sample of one of them): both
	# loads once more, and the fastest of each row's samples in both taken.
	fastest() { perop "$1" | sort -n | head -1; }
	rc0=0 rc=0 loads=0 pk="" pp="" sk="" sp="" ch=""
	team_loads() {
		insmod "$ko" benchmarks=kmalloc_concurrent,ptr_ring_remote cpus=0,1 team_cpus=2 samples=5
		rc0=$((rc0 + $?))
		pk="$pk $(fastest kmalloc_concurrent_cpus2)" pp="$pp $(fastest ptr_ring_remote)"
		loaded && rmmod test_mmbench
		insmod "$ko" benchmarks=kmalloc_concurrent,ptr_ring_remote,alu_chain cpus=0,1 team_cpus=2 samples=5 slow_into=kmalloc_concurrent_cpus2:2000,ptr_ring_remote:2000
		rc=$((rc + $?))
		s="$(st kmalloc_concurrent_cpus2) $(st ptr_ring_remote) $(st alu_chain) "
		steps="$(why kmalloc_concurrent_cpus2)/$(why ptr_ring_remote)"
		sk="$sk $(fastest kmalloc_concurrent_cpus2)" sp="$sp $(fastest ptr_ring_remote)" ch="$ch $(fastest alu_chain)"
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
	what="rc=$rc0/$rc status=$s reasons=$steps fastest per op (kmalloc_concurrent_cpus2/ptr_ring_remote) without: $plain, with: $slowed, alu_chain: $chain, in $loads loads of each"
	said="slow_into: 2000 steps an op/slow_into: 2000 steps an op"
	# shellcheck disable=SC2086 # the fastest samples, a word each
	if [ $rc0 -eq 0 ] && [ $rc -eq 0 ] && [ "$steps" = "$said" ] && [ "$s" = "pass pass pass " ] &&
	   [ "$rise" = "0 0" ]; then
		skip_case "slow_into on rows of several CPUs: no row kept samples in both loads ($what)"
	elif [ $rc0 -eq 0 ] && [ $rc -eq 0 ] && [ "$steps" = "$said" ] && [ "$s" = "pass pass pass " ] &&
	     rows_within "$plain/$slowed" "$chain" "$(spread $ch)"; then
		skip_case "slow_into on rows of several CPUs: a busy host: a row's rise short of 1.2 x alu_chain's by less than alu_chain itself moved between two loads alike ($(spread $ch) x:$ch ns) ($what)" # same case
	else
		[ "$s" = "pass pass pass " ] && [ $rc0 -eq 0 ] && [ $rc -eq 0 ] &&
			[ "$steps" = "$said" ] &&
			{ [ "$rise" = "1 1" ] || [ "$rise" = "2 2" ]; }
		result $? "slow_into=...:2000 raises the fastest sample of each row on several CPUs that kept samples by over 1.2 x alu_chain's (judged, risen: $rise; $plain ns to $slowed ns, alu_chain $chain ns, $loads loads of each)" "$what" # same case
	fi

	# cpus=0-1 with CPU 1 gone offline after the parameters were taken,
	# while the ndelay rows ran (5 rows of 12 samples of 100 ms, on CPU
	# 0): the rows on several CPUs that run next are unsupported.
	insmod "$ko" cpus=0-1 benchmarks=ndelay,kmalloc_concurrent,kmalloc_remote_free samples=10 sample_us=100000 &
	run=$!
	# /sys/module/test_mmbench: the parameters were taken.
	i=0
	while [ ! -d /sys/module/test_mmbench ] && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	echo 0 >/sys/devices/system/cpu/cpu1/online
	wait $run
	echo 1 >/sys/devices/system/cpu/cpu1/online
	a="$(st kmalloc_concurrent_cpus2): $(why kmalloc_concurrent_cpus2)"
	b="$(st kmalloc_remote_free): $(why kmalloc_remote_free)"
	loaded && rmmod test_mmbench
	want="unsupported: needs 2 online CPUs in cpus=0-1"
	[ "$a" = "$want" ] && [ "$b" = "$want" ]
	result $? "cpus=0-1 with CPU 1 offline: the rows on several CPUs are unsupported, saying so" "$a; $b"

	# The vmstat rows move NR_MLOCK ("Mlocked" in /proc/meminfo) by one
	# stretch of ops at most, however large a sample: watch it meanwhile.
	rm -f /tmp/watch-stop /tmp/mlock-max
	(max=0
	 while [ ! -e /tmp/watch-stop ]; do
		v=$(sed -n 's/^Mlocked: *\([0-9]*\) kB/\1/p' /proc/meminfo)
		[ "${v:-0}" -gt "$max" ] && max=$v
	 done
	 echo "$max" >/tmp/mlock-max) &
	watcher=$!
	insmod "$ko" benchmarks=inc_zone_page_state,dec_zone_page_state iterations=2000000 samples=3
	rc=$?
	s="$(st inc_zone_page_state) $(st dec_zone_page_state) "
	touch /tmp/watch-stop
	wait $watcher
	max=$(cat /tmp/mlock-max)
	loaded && rmmod test_mmbench
	[ $rc -eq 0 ] && [ "$s" = "pass pass " ] && [ "$max" -le 8192 ]
	result $? "2000000 inc/dec ops a sample move Mlocked by $max kB at most (limit 8192)" "rc=$rc status=$s max=$max kB"
else
	for t in hotplug slow cpus watcher; do
		skip_case "one CPU: no $t case" # same case
	done
fi

# What the machine is comes from user space, not from the module.
out=$(cd $testdir && ./mmbench_test -f context 2>&1)
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

# iterations=1 is what a sample has (ops_per_sample 1, no longer raised):
# too short a sample for the clock is the test's to skip, never a FAIL;
# budget_ms=100 cuts rows short, no FAIL either.
insmod "$ko" benchmarks=count_vm_event iterations=1 samples=3
o=$(ops count_vm_event) s=$(st count_vm_event)
loaded && rmmod test_mmbench
out=$(cd $testdir && MMBENCH_PARAMS="iterations=1 samples=3" ./mmbench_test -v count_vm_event 2>&1)
rc=$?
out2=$(cd $testdir && MMBENCH_PARAMS="budget_ms=100" ./mmbench_test -v kmalloc -v alloc_pages_batch 2>&1)
rc2=$?
[ "$s" = pass ] && [ "$o" = 1 ] && { [ $rc -eq 0 ] || { [ $rc -eq 4 ] && echo "$out" | grep -q "SKIP.*a sample of [0-9]* ns is under 100 steps"; }; } &&
	[ $rc2 -ne 1 ] && ! loaded
result $? "iterations=1 keeps 1 op a sample, the test skips or passes it (rc=$rc); budget_ms=100 fails nothing (rc=$rc2)" "status=$s ops=$o; iterations=1: rc=$rc $(echo "$out" | grep -E 'SKIP|not ok|steps' | head -3); budget_ms=100: rc=$rc2 $(echo "$out2" | grep -E 'SKIP|not ok|Expected' | head -5)"
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
	skip_case "no lockdown LSM in this kernel" # same case
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
	skip_case "no module signature checking in this kernel" # same case
fi

echo "# Totals: pass:$((n - failed - skipped)) fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
