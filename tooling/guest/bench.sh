#!/bin/sh
# ./mmbench bench, inside the guest: time the default suite, then load the
# module MMBENCH_LOADS times with MMBENCH_PARAMS (and an injected ndelay) and
# print every row's figures as "MMBENCH-BENCH key=value ..." lines.
rel=$(uname -r)
ko=/lib/modules/$rel/extra/test_mmbench.ko
loads=${MMBENCH_LOADS:-5}
tmp=${TMPDIR:-/tmp}

# An ndelay injected into inc_dec_zone_page_state, when that benchmark
# runs (the module refuses to inject into one not in benchmarks=) and
# MMBENCH_PARAMS injects nothing of its own.
inject="inject_into=inc_dec_zone_page_state inject_ndelay=200"
for p in $MMBENCH_PARAMS; do
	case $p in
	benchmarks=all) ;;
	benchmarks=*)
		case ",${p#benchmarks=}," in
		*,inc_dec_zone_page_state,*) ;;
		*) inject= ;;
		esac
		;;
	inject_into=*|inject_ndelay=*) inject= ;;
	esac
done

uptime_cs() {	# uptime in 1/100 s
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}

t0=$(uptime_cs)
(cd /kselftest && ./run_kselftest.sh -t mm/mmbench:mmbench_test) >"$tmp/suite.log" 2>&1
t1=$(uptime_cs)
echo "MMBENCH-BENCH suite_cs=$((t1 - t0)) suite_ok=$(grep -c '^ok 1 selftests: mm/mmbench: mmbench_test$' "$tmp/suite.log")"
sed -n 's/^# # fingerprint\./MMBENCH-BENCH fingerprint /p' "$tmp/suite.log"

i=1
while [ $i -le "$loads" ]; do
	# shellcheck disable=SC2086 # several parameters in each
	if ! insmod "$ko" $MMBENCH_PARAMS $inject; then
		echo "MMBENCH-BENCH load=$i insmod failed"
		i=$((i + 1))
		continue
	fi
	echo "MMBENCH-BENCH load=$i run_ms=$(cat /sys/kernel/mmbench/run_ms)"
	for dir in /sys/kernel/mmbench/*/; do
		[ -f "$dir/status" ] || continue
		row=$(basename "$dir")
		echo "MMBENCH-BENCH load=$i row=$row status=$(cat "$dir/status")" \
			"median=$(cat "$dir/ns_per_op_median")" \
			"net=$(cat "$dir/net_ns_per_op")" \
			"mad=$(cat "$dir/ns_per_op_mad")"
	done
	rmmod test_mmbench
	i=$((i + 1))
done
