#!/bin/sh
# The suite once more, with no free block of order 9 or above left in the
# guest: every huge page the kernel can make (compacting memory as it
# goes) is taken into the hugetlb pool, so that the memory still free is in
# pieces of order 8 and below, as on a fragmented machine.  The host checks
# that orders 9 and 10 then report "unsupported", that the other rows pass
# and that nothing crashes.  Prints, for the host:
#   MMBENCH-FRAGMENT hugepages=<taken> free_kb=<MemFree> top_free_order=<o>
#   run_kselftest.sh's output, ending with MMBENCH-FRAGMENT-SUITE-END rc=<rc>
#   MMBENCH-FRAGMENT-RELEASED top_free_order=<o>
# <o> is the highest order with a free block in /proc/buddyinfo, -1 if none.

top_free_order() {
	awk 'BEGIN { top = -1 }
	     { for (i = 5; i <= NF; i++) if ($i > 0 && i - 5 > top) top = i - 5 }
	     END { print top }' /proc/buddyinfo
}

meminfo() { awk -v key="$1:" '$1 == key { print $2 }' /proc/meminfo; }

if [ ! -w /proc/sys/vm/nr_hugepages ]; then
	echo "MMBENCH-FRAGMENT unavailable: no /proc/sys/vm/nr_hugepages" \
		"(a kernel without CONFIG_HUGETLB_PAGE)"
	exit 0
fi
# As many huge pages as the guest has memory for: the kernel takes what
# it can get and stops there.
echo $(($(meminfo MemTotal) / $(meminfo Hugepagesize))) \
	>/proc/sys/vm/nr_hugepages
echo "MMBENCH-FRAGMENT hugepages=$(cat /proc/sys/vm/nr_hugepages)" \
	"free_kb=$(meminfo MemFree) top_free_order=$(top_free_order)"
cat /proc/buddyinfo

# The default orders, and MAX_PAGE_ORDER (10 on x86_64).
MMBENCH_PARAMS="$MMBENCH_PARAMS orders=0,1,2,3,9,10"
export MMBENCH_PARAMS
(cd /kselftest && ./run_kselftest.sh -t mm/mmbench:mmbench_test)
echo "MMBENCH-FRAGMENT-SUITE-END rc=$?"

echo 0 >/proc/sys/vm/nr_hugepages
echo "MMBENCH-FRAGMENT-RELEASED top_free_order=$(top_free_order)"
