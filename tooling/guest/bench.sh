#!/bin/sh
# ./mmbench bench, inside the guest: time the default suite (unless
# MMBENCH_SUITE=0: ./mmbench run --loads ran it already), then load the
# module MMBENCH_LOADS times with MMBENCH_PARAMS and print every row's
# figures as "MMBENCH-BENCH key=value ..." lines: per load the time its
# insmod took (run_ms) and every file of every row as
# "sysfs=<row>/<file>=<value>" (the value the rest of the line), the
# module's own as "sysfs=<file>=<value>", gzipped, in base64 between
# MMBENCH-GZ-BEGIN and -END (see pack()).  The host (bench.py) makes the
# figures of these raw files.
rel=$(uname -r)
ko=/lib/modules/$rel/extra/test_mmbench.ko
loads=${MMBENCH_LOADS:-5}
tmp=${TMPDIR:-/tmp}
kselftest=${MMBENCH_KSELFTEST:-/kselftest}
# The accounted rows charge the loader's memory cgroup: with
# MMBENCH_MEMCG=1 (the guest's init), each insmod runs in a cgroup v2
# child of its own, where the kernel has memory cgroups (cgroup v2
# mounted under $tmp if it is not); elsewhere from where it is, and the
# rows say they are unsupported, and why.
procs=""
if [ "${MMBENCH_MEMCG:-0}" = 1 ] &&
	awk '$1 == "memory" && $4 == 1 { f = 1 } END { exit !f }' /proc/cgroups 2>/dev/null; then
	cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$cg" ] && mkdir -p "$tmp/cgroup2" && mount -t cgroup2 none "$tmp/cgroup2"; then
		cg=$tmp/cgroup2
	fi
	if [ -n "$cg" ] && echo +memory >"$cg/cgroup.subtree_control" && mkdir -p "$cg/mmbench_bench"; then
		procs=$cg/mmbench_bench/cgroup.procs
	fi
fi

uptime_cs() {	# uptime in 1/100 s, without the leading 0 of "0.58" (octal to $(( )))
	read -r up _ <"${MMBENCH_UPTIME:-/proc/uptime}"
	up="${up%.*}${up#*.}"
	while [ "${up#0}" != "$up" ] && [ -n "${up#0}" ]; do
		up=${up#0}
	done
	echo "$up"
}

if [ "${MMBENCH_SUITE:-1}" != 0 ]; then
	t0=$(uptime_cs)
	(cd /kselftest && ./run_kselftest.sh -t mm/mmbench:mmbench_test) >"$tmp/suite.log" 2>&1
	t1=$(uptime_cs)
	echo "MMBENCH-BENCH suite_cs=$((t1 - t0)) suite_ok=$(grep -c '^ok 1 selftests: mm/mmbench: mmbench_test$' "$tmp/suite.log")"
	sed -n 's/^# # fingerprint\./MMBENCH-BENCH fingerprint /p' "$tmp/suite.log"
elif [ -x "$kselftest/mm/mmbench/mmbench_test" ]; then
	# No suite: its fingerprint case alone (a load of the baseline)
	# says what the module no longer does (debug options, init_on_*).
	(cd "$kselftest/mm/mmbench" && MMBENCH_PARAMS='' ./mmbench_test -f context) \
		>"$tmp/fingerprint.log" 2>&1
	sed -n 's/^# fingerprint\./MMBENCH-BENCH fingerprint /p' "$tmp/fingerprint.log"
fi
# What the figures depend on that the module does not say.
echo "MMBENCH-BENCH guest boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)"
echo "MMBENCH-BENCH guest release=$(uname -r)"
echo "MMBENCH-BENCH guest clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
echo "MMBENCH-BENCH guest cpu_model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)"
echo "MMBENCH-BENCH guest cpus=$(grep -c '^processor' /proc/cpuinfo 2>/dev/null)"
echo "MMBENCH-BENCH guest cmdline=$(cat /proc/cmdline 2>/dev/null)"
kaslr=on
case " $(cat /proc/cmdline 2>/dev/null) " in
*" nokaslr "*) kaslr=off ;;
esac
echo "MMBENCH-BENCH guest kaslr=$kaslr"
# Words of the command line the kernel did not know (a misspelt
# --kernel-arg): it hands them to init and says so once, in the log.
unknown=$(dmesg | sed -n 's/^.*Unknown kernel command line parameters "\(.*\)", will be passed to user space.*$/\1/p' | head -n 1)
if [ -n "$unknown" ]; then
	echo "MMBENCH-BENCH guest unknown_params=$unknown"
fi

# A load's files and log lines leave gzipped, in base64 between markers
# (the host's bench.Unpacker): printed as they are, they took a third of
# a load's time on the serial port under TCG.
pack() {
	if command -v gzip >/dev/null && command -v base64 >/dev/null; then
		echo MMBENCH-GZ-BEGIN
		gzip -c | base64
		echo MMBENCH-GZ-END
	else
		cat
	fi
}

# A refused load's kernel log lines are those after its marker: a count
# of lines stops growing once the log buffer is full (128 KiB).
kmsg=${MMBENCH_KMSG:-/dev/kmsg}
i=1
while [ $i -le "$loads" ]; do
	echo "mmbench-load $$-$i" >"$kmsg" 2>/dev/null
	t0=$(uptime_cs)
	# shellcheck disable=SC2086 # several parameters in it
	if ! (if [ -n "$procs" ]; then echo 0 >"$procs" || exit 1; fi; exec insmod "$ko" $MMBENCH_PARAMS); then
		# The module's last word in the log says why it refused (not
		# the kernel's "`VALUE' invalid for parameter `NAME'" after it).
		why=$(dmesg | sed -n '/mmbench-load '"$$-$i"'$/,$ s/^.*test_mmbench: //p' |
			grep -v "invalid for parameter" | tail -n 1)
		echo "MMBENCH-BENCH load=$i insmod failed${why:+: $why}"
		i=$((i + 1))
		continue
	fi
	# The module runs its rows in its init: the insmod's time, in the
	# 10 ms of /proc/uptime (busybox's date has no %N).
	t1=$(uptime_cs)
	echo "MMBENCH-BENCH load=$i run_ms=$(((t1 - t0) * 10))"
	# Every file of every row and the module's own (preempt), one
	# process: a cat per file took longer than the load.
	grep -r '' /sys/kernel/mmbench/ 2>/dev/null |
		sed -n 's|^/sys/kernel/mmbench/\(\([^/]*\)/\)\{0,1\}\([a-z_0-9]*\):|MMBENCH-BENCH load='"$i"' sysfs=\1\3=|p' |
		pack
	rmmod test_mmbench
	i=$((i + 1))
done
