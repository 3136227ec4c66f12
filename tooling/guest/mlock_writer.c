// SPDX-License-Identifier: GPL-2.0
/*
 * mlock_writer: another task that moves NR_MLOCK while test_mmbench runs,
 * as a daemon that locks its memory does.  It locks the pages of its
 * 64 MiB one by one, as fast as it can, then unlocks them one by one, and
 * starts again, until it is killed: the counter never stays put for long.
 * Built statically on the host for the guest of ./mmbench test.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BYTES (64L << 20)

int main(void)
{
	long page = sysconf(_SC_PAGESIZE), i;
	unsigned long node0 = 1;
	char *p;

	p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mlock_writer: mmap");
		return 1;
	}
	/*
	 * Its pages from node 0, whose zone test_mmbench's zone rows count
	 * in, whichever node its CPU is on (MPOL_BIND; ENOSYS without NUMA).
	 */
	syscall(SYS_mbind, p, BYTES, 2, &node0, 2, 0);
	for (;;) {
		for (i = 0; i < BYTES; i += page) {
			if (mlock(p + i, page)) {
				perror("mlock_writer: mlock");
				return 1;
			}
		}
		for (i = 0; i < BYTES; i += page)
			munlock(p + i, page);
	}
}
