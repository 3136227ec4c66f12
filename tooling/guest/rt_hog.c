// SPDX-License-Identifier: GPL-2.0
/*
 * rt_hog CPU: a real-time task that keeps one CPU, as a latency-critical
 * application on an isolated CPU does.  Bound to CPU first (so that it
 * never spins as SCHED_FIFO anywhere else), then SCHED_FIFO, it spins
 * until it is killed.  With RT throttling off, no task of a lower class
 * runs on that CPU meanwhile.  Built statically on the host for the guest
 * of ./mmbench test.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct sched_param param = { .sched_priority = 50 };
	volatile unsigned long spins = 0;
	cpu_set_t set;

	if (argc != 2) {
		fprintf(stderr, "usage: rt_hog CPU\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("rt_hog: sched_setaffinity");
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &param)) {
		perror("rt_hog: sched_setscheduler");
		return 1;
	}
	for (;;)
		spins++;
}
