#!/bin/sh
# ./mmbench bench, inside the guest: time the default suite (unless
# MMBENCH_SUITE=0: ./mmbench run --loads ran it already), then load the
# module MMBENCH_LOADS times with MMBENCH_PARAMS and print every row's
# figures as "MMBENCH-BENCH key=value ..." lines: per load every file of
# every row as "sysfs=<row>/<file>=<value>" (the value the rest of the
# line), and the module's kernel log lines of the load as "klog=" - these
# two gzipped, in base64 between MMBENCH-GZ-BEGIN and -END (see pack()).
rel=$(uname -r)
ko=/lib/modules/$rel/extra/test_mmbench.ko
loads=${MMBENCH_LOADS:-5}
tmp=${TMPDIR:-/tmp}

uptime_cs() {	# uptime in 1/100 s
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}

if [ "${MMBENCH_SUITE:-1}" != 0 ]; then
	t0=$(uptime_cs)
	(cd /kselftest && ./run_kselftest.sh -t mm/mmbench:mmbench_test) >"$tmp/suite.log" 2>&1
	t1=$(uptime_cs)
	echo "MMBENCH-BENCH suite_cs=$((t1 - t0)) suite_ok=$(grep -c '^ok 1 selftests: mm/mmbench: mmbench_test$' "$tmp/suite.log")"
	sed -n 's/^# # fingerprint\./MMBENCH-BENCH fingerprint /p' "$tmp/suite.log"
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

# Each load's kernel log lines are those after its marker: a count of
# lines stops growing once the log buffer is full (128 KiB, ~10 loads).
kmsg=${MMBENCH_KMSG:-/dev/kmsg}
i=1
while [ $i -le "$loads" ]; do
	echo "mmbench-load $$-$i" >"$kmsg" 2>/dev/null
	# shellcheck disable=SC2086 # several parameters in it
	if ! insmod "$ko" $MMBENCH_PARAMS; then
		# The module's last word in the log says why it refused (not
		# the kernel's "`VALUE' invalid for parameter `NAME'" after it).
		why=$(dmesg | sed -n '/mmbench-load '"$$-$i"'$/,$ s/^.*test_mmbench: //p' |
			grep -v "invalid for parameter" | tail -n 1)
		echo "MMBENCH-BENCH load=$i insmod failed${why:+: $why}"
		i=$((i + 1))
		continue
	fi
	echo "MMBENCH-BENCH load=$i run_ms=$(cat /sys/kernel/mmbench/run_ms)"
	# Every file of every row (and the fingerprint), one process: a
	# cat per file took longer than the load; then the module's lines
	# of this load in the kernel log.
	{
		grep -r '' /sys/kernel/mmbench/ 2>/dev/null |
			sed -n 's|^/sys/kernel/mmbench/\([^/]*\)/\([a-z_0-9]*\):|MMBENCH-BENCH load='"$i"' sysfs=\1/\2=|p'
		dmesg | sed -n '/mmbench-load '"$$-$i"'$/,$ s/^.*\(test_mmbench: \)/MMBENCH-BENCH load='"$i"' klog=\1/p'
	} | pack
	rmmod test_mmbench
	i=$((i + 1))
done
