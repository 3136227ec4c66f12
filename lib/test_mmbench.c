// SPDX-License-Identifier: GPL-2.0
/*
 * test_mmbench.c - time memory-management hot paths from inside the kernel
 *
 * While the module loads, a kernel thread bound to one CPU times each
 * selected benchmark: a warm-up, then samples of a sized number of ops,
 * less the clock reads' cost, dropping those preempted, migrated or with
 * steal time.  Net figures are against an empty loop (the baseline).  A
 * vmstat or allocator row ends with a functional check.  Results stay
 * under /sys/kernel/mmbench/ (Documentation/ABI/testing/sysfs-kernel-mmbench)
 * until the module is removed; tools/testing/selftests/mm/mmbench/ judges.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kernel_stat.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
/* series: page_frag */
#include <linux/page_frag_cache.h>
/* series: end */
#include <linux/percpu.h>
#include <linux/preempt.h>
/* series: cpus */
#include <linux/ptr_ring.h>
/* series: end */
#include <linux/sched.h>
/* series: cpus */
#include <linux/sched/clock.h>
/* series: end */
#include <linux/sched/isolation.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timex.h>
#include <linux/vmstat.h>
#include <linux/wait.h>

/* May fail, and is counted: no warning, no hard reclaim, no OOM. */
#define MMBENCH_GFP_MAYFAIL	(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY)

/* Counters nothing in the kernel decides on; each row puts them back. */
#define MMBENCH_ZONE_ITEM	NR_MLOCK
#define MMBENCH_NODE_ITEM	NR_VMSCAN_IMMEDIATE
#define MMBENCH_EVENT_ITEM	UNEVICTABLE_PGSTRANDED

#define MMBENCH_MAX_ITERATIONS	100000000U
/* So that a row's sample_ns fits a page: 14 characters a sample. */
#define MMBENCH_MAX_SAMPLES	250U
#define MMBENCH_MAX_LIST	8
#define MMBENCH_MAX_DELAY_NS	100000U
#define MMBENCH_MAX_SLOW	10000U	/* 65536 ops of it: under a second */
#define MMBENCH_CHAIN_STEPS	1000	/* of one alu_chain op */
/* series: page_alloc */
#define MMBENCH_MAX_BATCH	65536U
#define MMBENCH_MAX_BULK	1024U
#define MMBENCH_BATCH_BYTES	(16UL << 20)
#define MMBENCH_HIGH_ORDER	(MAX_PAGE_ORDER < 9 ? MAX_PAGE_ORDER : 9)
/* series: end */
/* series: slab */
#define MMBENCH_BULK_SIZE	256
/* series: end */
/* series: page_frag */
#define MMBENCH_FRAG_ALIGN	64
/* series: end */
/* series: cpus */
#define MMBENCH_RING_SIZE	1024
#define MMBENCH_TEAM_MIN_OPS	256
#define MMBENCH_TEAM_SIZE	256
/* series: end */
/* Most ops between two restores of a counter, or with irqs off at once. */
#define MMBENCH_STRETCH		1024
/* A sample lasts at least this many clock reads, or clock steps. */
#define MMBENCH_CLOCK_SHARE	100
#define MMBENCH_MIN_NOISE_SAMPLES	3
/* Samples that must leave a vmstat counter off before a row fails. */
#define MMBENCH_RECHECKS	3
/* Shortest watch of a vmstat counter with no op. */
#define MMBENCH_WATCH_NS	(20 * NSEC_PER_MSEC)
/* Longest wait for another thread: to start, or in a team sample. */
#define MMBENCH_STALL_NS	(2ULL * NSEC_PER_SEC)
/* series: cpus */
/* A worker that waited this long to run in a stalled sample: kept. */
#define MMBENCH_KEPT_NS		(MMBENCH_STALL_NS * 3 / 4)
/* series: end */
/* A figure not measured, shown as "none". */
#define MMBENCH_NONE		S64_MIN
#define MMBENCH_NONE_LONG	LONG_MIN
#define MMBENCH_MAX_SAMPLE_NS	(100 * NSEC_PER_MSEC)
#define MMBENCH_NAME_LEN	48
/* The kselftest reads at most 255 characters a file. */
#define MMBENCH_REASON_LEN	224

/* Files a row has beside the ones every row has. */
#define MMBENCH_SHOWS_DELAY	BIT(0)	/* delay_ns */
#define MMBENCH_SHOWS_COUNTER	BIT(1)	/* counter_delta */
#define MMBENCH_SHOWS_CYCLES	BIT(2)	/* net_cycles_per_op, on x86 */
#define MMBENCH_SHOWS_SLOW	BIT(3)	/* slow_ops */
/* series: page_alloc */
#define MMBENCH_SHOWS_ORDER	BIT(4)	/* order */
#define MMBENCH_SHOWS_BULK	BIT(5)	/* bulk */
#define MMBENCH_SHOWS_PAGES	BIT(6)	/* free_pages_delta */
/* series: end */
/* series: slab */
#define MMBENCH_SHOWS_SIZE	BIT(7)	/* size_bytes */
/* series: end */
/* series: cpus */
#define MMBENCH_SHOWS_TEAM	BIT(8)	/* team_cpus */
/* series: end */

/* A list parameter: a row per value, each once, from @min to @max. */
struct mmbench_list {
	unsigned int vals[MMBENCH_MAX_LIST];
	unsigned int nr;
	unsigned int min;
	unsigned int max;
	const char *param;
	const char *suffix;
	unsigned int shows;	/* MMBENCH_SHOWS_* of its rows */
};

static struct mmbench_list mmbench_delays = {
	.vals = { 0, 50, 200, 1000, 5000 }, .nr = 5, .param = "delays",
	.max = MMBENCH_MAX_DELAY_NS, .suffix = "", .shows = MMBENCH_SHOWS_DELAY,
};

/* series: page_alloc */
static struct mmbench_list mmbench_orders = {
	.vals = { 0, 1, 2, 3, MMBENCH_HIGH_ORDER }, .nr = 5, .param = "orders",
	.max = MAX_PAGE_ORDER, .suffix = "order", .shows = MMBENCH_SHOWS_ORDER,
};

/* series: end */
/* series: page_alloc */
static struct mmbench_list mmbench_bulk = {
	.vals = { 16, 64, 256 }, .nr = 3, .min = 1, .max = MMBENCH_MAX_BULK,
	.param = "bulk", .suffix = "", .shows = MMBENCH_SHOWS_BULK,
};

static unsigned int mmbench_batch = 1024;

/* Failed calls, and blocks that lost their marks or were misaligned. */
struct mmbench_counts {
	u64 allocs;
	u64 frees;
	u64 failed;
	u64 corrupt;
};

/* series: end */
/* series: slab */
static struct mmbench_list mmbench_sizes = {
	.vals = { 8, 64, 96, 192, 1000, 4096, KMALLOC_MAX_CACHE_SIZE },
	.nr = 7, .min = 1, .max = KMALLOC_MAX_CACHE_SIZE, .param = "sizes",
	.suffix = "", .shows = MMBENCH_SHOWS_SIZE,
};

/* series: end */
/* series: page_frag */
static struct mmbench_list mmbench_frag_sizes = {
	.vals = { 64, 250, 2048 }, .nr = 3, .min = 1, .max = PAGE_SIZE,
	.param = "frag_sizes", .suffix = "", .shows = MMBENCH_SHOWS_SIZE,
};

/* series: end */
/* series: cpus */
/* CPUs of the concurrent benchmarks: cpus=, or those not isolcpus= at load */
static struct cpumask mmbench_cpus_mask;
static bool mmbench_cpus_given;
/* CPUs another task kept from the module's threads, and the latest why */
static struct cpumask mmbench_kept_cpus;
static char mmbench_kept_why[MMBENCH_REASON_LEN];
static int mmbench_kept_why_cpu;

struct mmbench_team;
struct mmbench_worker;

/* On the run's CPU, on every CPU of cpus= at once, or on a pair of them. */
enum mmbench_team_kind {
	MMBENCH_TEAM_NONE,
	MMBENCH_TEAM_ALL,
	MMBENCH_TEAM_PAIR,
};

/* series: end */
struct mmbench_bench;

/* A sample: its @reads stretches' time summed, and why not to keep it. */
struct mmbench_sample {
	u64 ns;
	u64 cycles;
	u32 reads;
	bool preempted;
	bool migrated;
	bool stolen;
};

/* State of one benchmark while it runs. */
struct mmbench_ctx {
	struct page *page;		/* its zone and node are the ones updated */
	struct zone *zone;
	struct pglist_data *pgdat;
	u32 ops;			/* in the sample about to run */
	u32 arg;			/* the row's value of its list */
/* series: page_alloc */
	bool verify;			/* untimed: mark, check, count each block */
	u32 batch;			/* blocks per batch of alloc_pages_batch */
	u32 unit;			/* a sample has whole units of this many */
	void **ptrs;
	struct mmbench_counts n;
/* series: end */
/* series: slab */
	struct kmem_cache *cache;
/* series: end */
/* series: page_frag */
	struct page_frag_cache frag;
/* series: end */
/* series: cpus */
	bool sized;			/* @ops is the row's final size */
	struct mmbench_team *team;
	struct mmbench_worker *worker;	/* in a worker's own context */
	u64 team_skew;			/* of the latest team sample */
	bool kept;			/* another task kept a CPU: unsupported */
/* series: end */
	const char *abort;		/* why the row stops: @why or a constant */
	char why[MMBENCH_REASON_LEN];
	const struct mmbench_bench *bench;
	long delta;			/* 1, for a variable count_vm_events() */
	u32 slow;			/* slow_into steps added to each op */
	u64 chain;			/* what mmbench_chain() leaves */
	long before;			/* counter value read before setup */
};

/**
 * struct mmbench_bench - one benchmark
 * @name: name in sysfs and in the benchmarks= parameter
 * @group: family of paths, e.g. "vmstat"
 * @unit: what one op is, for the log
 * @irqoff: runs with interrupts disabled (else preemptible)
 * @list: one row per value of this list, or NULL for one row
 * @setup: untimed; 0, -EOPNOTSUPP ("unsupported", @reason says why) or error
 * @teardown: undoes @setup
 * @prep: untimed, before each stretch of at most MMBENCH_STRETCH ops
 * @op: runs ctx->ops ops: the timed region
 * @restore: untimed, after each stretch: undoes what the ops left
 * @read: the counter the benchmark updates, for the functional check
 */
struct mmbench_bench {
	const char *name;
	const char *group;
	const char *unit;
	bool irqoff;
	struct mmbench_list *list;
/* series: cpus */
	/** @team: on several CPUs, each timing its @work or @pop_work */
	enum mmbench_team_kind team;
	/** @work: the op of each CPU, push_cpu's in a pair */
	void (*work)(struct mmbench_ctx *ctx);
	/** @pop_work: the op of pop_cpu in a pair */
	void (*pop_work)(struct mmbench_ctx *ctx);
	/** @drain: frees a block left in a pair's ring */
	void (*drain)(void *priv, void *p);
/* series: end */
/* series: page_alloc */
	/** @pages_back: every page taken goes back to the page allocator */
	bool pages_back;
/* series: end */
	int (*setup)(struct mmbench_ctx *ctx, char *reason);
	void (*teardown)(struct mmbench_ctx *ctx);
	void (*prep)(struct mmbench_ctx *ctx);
	void (*op)(struct mmbench_ctx *ctx);
	void (*restore)(struct mmbench_ctx *ctx);
	long (*read)(struct mmbench_ctx *ctx);
};

enum mmbench_status {
	MMBENCH_NOT_RUN,	/* until the run gives the row another */
	MMBENCH_PASS,
	MMBENCH_FAIL,
	MMBENCH_UNSUPPORTED,
	MMBENCH_ERROR,
	MMBENCH_NOISY,
};

static const char * const mmbench_status_names[] = {
	[MMBENCH_NOT_RUN] = "not_run",
	[MMBENCH_PASS] = "pass",
	[MMBENCH_FAIL] = "fail",
	[MMBENCH_UNSUPPORTED] = "unsupported",
	[MMBENCH_ERROR] = "error",
	[MMBENCH_NOISY] = "noisy",
};

/* Per-op figures in 1/1000 ns or cycle; @mad: median absolute deviation */
struct mmbench_stat {
	u64 min;
	u64 median;
	u64 mad;
};

/* A row's figures: per op in 1/1000 ns or tick; MMBENCH_NONE(_LONG): none */
struct mmbench_result {
	enum mmbench_status status;
	char reason[MMBENCH_REASON_LEN];	/* why not "pass", or remarks */
	int cpu;
	u32 ops;			/* per sample */
	u32 samples;			/* kept, the warm-up not counted */
	u32 dropped;			/* the next three summed */
	u32 preempted;
	u32 migrated;
	u32 stolen;			/* steal time */
	s64 noise;			/* @ns.mad / @ns.median, in 1/1000 % */
	struct mmbench_stat ns;
	u64 cycles;			/* median */
	s64 net_ns;			/* median minus the baseline's */
	s64 net_cycles;
/* series: cpus */
	u32 team_cpus;
	int pair_cpus[2];		/* a pair's push_cpu and pop_cpu */
	u64 skew_ns;			/* largest start spread of a sample */
/* series: end */
/* series: page_alloc */
	long free_pages_delta;		/* the node's, per-CPU lists too */
	long free_pages_slack;		/* how far below 0 it may go */
/* series: end */
	long counter_delta;
};

/* A benchmark per value of its list: a directory, filled before it exists */
struct mmbench_row {
	const struct mmbench_bench *bench;
	char name[MMBENCH_NAME_LEN];	/* e.g. "kmalloc_64" */
	u32 arg;			/* ctx->arg */
	u32 slow;			/* ctx->slow, from slow_into */
	unsigned int shows;		/* MMBENCH_SHOWS_* */
	u64 *sample_ps;
	struct kobject kobj;
	struct mmbench_result result;
};

/* A result with nothing measured yet. */
static void mmbench_result_reset(struct mmbench_result *r)
{
	memset(r, 0, sizeof(*r));
	r->noise = MMBENCH_NONE;
	r->net_ns = MMBENCH_NONE;
	r->net_cycles = MMBENCH_NONE;
/* series: page_alloc */
	r->free_pages_delta = MMBENCH_NONE_LONG;
/* series: end */
	r->counter_delta = MMBENCH_NONE_LONG;
}

/* Append a remark to a row's @reason, after a "; " if it has one. */
static __printf(2, 3) void mmbench_remark(char *reason, const char *fmt, ...)
{
	size_t len = strnlen(reason, MMBENCH_REASON_LEN);
	va_list args;

	if (len)
		len += scnprintf(reason + len, MMBENCH_REASON_LEN - len, "; ");
	va_start(args, fmt);
	vscnprintf(reason + len, MMBENCH_REASON_LEN - len, fmt, args);
	va_end(args);
}

/* What a CPU spent, in ns: on user tasks or stolen by the host; in the kernel */
struct mmbench_cpu_time {
	u64 user;
	u64 kernel;
};

static void mmbench_cpu_time(int cpu, struct mmbench_cpu_time *ct)
{
	struct kernel_cpustat kcs;
	const u64 *t = kcs.cpustat;

	kcpustat_cpu_fetch(&kcs, cpu);
	ct->user = t[CPUTIME_USER] + t[CPUTIME_NICE] + t[CPUTIME_STEAL];
	ct->kernel = t[CPUTIME_SYSTEM] + t[CPUTIME_IRQ] + t[CPUTIME_SOFTIRQ];
}

/*
 * A thread of the module waited @waited ns to run on @cpu.  Did the kernel
 * take half of that CPU's time since @then?  Then it kept the CPU, a stall
 * of the kernel under test: false.  Else user tasks did, or the host (in
 * steal time, or not running the CPU at all, which no figure may show):
 * the machine's doing, true.  Appends the figures and which to @why.
 */
static bool mmbench_cpu_kept(int cpu, const struct mmbench_cpu_time *then,
			     u64 waited, char *why)
{
	size_t len = strnlen(why, MMBENCH_REASON_LEN);
	struct mmbench_cpu_time now;
	u64 user, kernel;
	bool stall;

	mmbench_cpu_time(cpu, &now);
	user = div_u64(now.user - then->user, NSEC_PER_MSEC);
	kernel = now.kernel - then->kernel;
	stall = 2 * kernel >= waited;
	scnprintf(why + len, MMBENCH_REASON_LEN - len,
		  "; there kernel %llu ms (a stall from %llu), user or steal %llu ms: %s",
		  div_u64(kernel, NSEC_PER_MSEC),
		  div_u64(waited / 2, NSEC_PER_MSEC), user, stall ?
		  "a stall in the kernel" :
		  "another task or the host keeps that CPU");
	return !stall;
}

/*
 * Stop a thread bound to a CPU that another task may keep (a real-time
 * task with RT throttling off): kthread_stop() waits for it to run, so
 * move it first to the caller's CPU, which ran the caller a moment ago.
 */
static void mmbench_stop_thread(struct task_struct *task)
{
	int cpu = raw_smp_processor_id();

	if (set_cpus_allowed_ptr(task, cpumask_of(cpu)))
		pr_warn("could not move %s to CPU %d to stop it\n", task->comm,
			cpu);
	kthread_stop(task);
	put_task_struct(task);
}

/* ---- benchmarks ---- */

/* name_op(), the timed region: @... ctx->ops times, with no break. */
#define MMBENCH_OP(name, ...)						\
static void name##_op(struct mmbench_ctx *ctx)				\
{									\
	u32 i, ops = ctx->ops;						\
									\
	for (i = 0; i < ops; i++) {					\
		__VA_ARGS__;						\
	}								\
}

/* The loop every benchmark has, around nothing. */
MMBENCH_OP(baseline, barrier())
MMBENCH_OP(ndelay, ndelay(ctx->arg))

/* @steps dependent ALU operations: what slow_into adds, alu_chain times */
static __always_inline u64 mmbench_chain(u64 x, u64 steps)
{
	while (steps--) {
		x = x * 3 + 1;
		OPTIMIZER_HIDE_VAR(x);
	}
	return x;
}

/* The same call as slow_into's, MMBENCH_CHAIN_STEPS an op, in one go. */
static void alu_chain_op(struct mmbench_ctx *ctx)
{
	ctx->chain = mmbench_chain(ctx->chain,
				   (u64)ctx->ops * MMBENCH_CHAIN_STEPS);
}

static long zone_item_read(struct mmbench_ctx *ctx)
{
	return zone_page_state_snapshot(ctx->zone, MMBENCH_ZONE_ITEM);
}

/* Node counter with the per-CPU deltas not yet folded in. */
static long node_item_read(struct mmbench_ctx *ctx)
{
	long x = atomic_long_read(&ctx->pgdat->vm_stat[MMBENCH_NODE_ITEM]);
	int cpu;

	for_each_online_cpu(cpu)
		x += per_cpu_ptr(ctx->pgdat->per_cpu_nodestats,
				 cpu)->vm_node_stat_diff[MMBENCH_NODE_ITEM];
	return x;
}

MMBENCH_OP(inc_zone, inc_zone_page_state(ctx->page, MMBENCH_ZONE_ITEM))

static void inc_zone_restore(struct mmbench_ctx *ctx)
{
	mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, -(long)ctx->ops);
}

/* Add, untimed, what the decrements take: the counter never goes below. */
static void dec_zone_prep(struct mmbench_ctx *ctx)
{
	mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, ctx->ops);
}

MMBENCH_OP(dec_zone, dec_zone_page_state(ctx->page, MMBENCH_ZONE_ITEM))
MMBENCH_OP(inc_dec_zone, inc_zone_page_state(ctx->page, MMBENCH_ZONE_ITEM);
	   dec_zone_page_state(ctx->page, MMBENCH_ZONE_ITEM))
MMBENCH_OP(mod_node, mod_node_page_state(ctx->pgdat, MMBENCH_NODE_ITEM, 1);
	   mod_node_page_state(ctx->pgdat, MMBENCH_NODE_ITEM, -1))

/* The __ variant is for callers that already have irqs disabled. */
MMBENCH_OP(__mod_zone,
	   __mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, 1);
	   __mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, -1))

static int vm_event_setup(struct mmbench_ctx *ctx, char *reason)
{
	if (IS_ENABLED(CONFIG_VM_EVENT_COUNTERS))
		return 0;
	strscpy(reason, "CONFIG_VM_EVENT_COUNTERS is not set",
		MMBENCH_REASON_LEN);
	return -EOPNOTSUPP;
}

/* Sum over possible CPUs: a CPU that went offline keeps a folded zero. */
static long vm_event_read(struct mmbench_ctx *ctx)
{
	unsigned long sum = 0;
#ifdef CONFIG_VM_EVENT_COUNTERS
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[MMBENCH_EVENT_ITEM];
#endif
	return (long)sum;
}

MMBENCH_OP(count_vm_event, count_vm_event(MMBENCH_EVENT_ITEM))
MMBENCH_OP(count_vm_events, count_vm_events(MMBENCH_EVENT_ITEM, ctx->delta))

/* Events only count up; adding the negated total puts the sum back. */
static void vm_event_restore(struct mmbench_ctx *ctx)
{
	count_vm_events(MMBENCH_EVENT_ITEM, -(long)ctx->ops * ctx->delta);
}

/* series: page_alloc */
/* ---- page allocator ---- */

/* Marks at both ends of a block, checked before its free. */
static __always_inline void mmbench_mark(void *p, size_t size)
{
	u8 *b = p;

	b[size - 1] = 0x5a;
	b[0] = 0xa5;
}

static __always_inline void mmbench_check(struct mmbench_counts *n,
					  const void *p, size_t size)
{
	const u8 *b = p;

	/* Read back from memory, even right after mmbench_mark(). */
	if (unlikely(READ_ONCE(b[0]) != 0xa5 ||
		     (size > 1 && READ_ONCE(b[size - 1]) != 0x5a)))
		n->corrupt++;
}

/* name_loop() twice: timed without verification, and verifying. */
#define MMBENCH_VERIFIED(verify, name, ...)				\
do {									\
	if (verify)							\
		name##_loop(__VA_ARGS__, true);				\
	else								\
		name##_loop(__VA_ARGS__, false);			\
} while (0)

#define MMBENCH_VERIFY_OP(name)						\
static void name##_op(struct mmbench_ctx *ctx)				\
{									\
	MMBENCH_VERIFIED(ctx->verify, name, ctx);			\
}

/* Alloc then free at once: from and back to the per-CPU lists. */
static __always_inline void pages_pair_loop(struct mmbench_ctx *ctx,
					    const bool verify)
{
	unsigned int order = ctx->arg;
	gfp_t gfp = order > PAGE_ALLOC_COSTLY_ORDER ? MMBENCH_GFP_MAYFAIL :
						      GFP_KERNEL;
	size_t size = PAGE_SIZE << order;
	u64 failed = ctx->n.failed;
	u32 i, ops = ctx->ops;
	struct page *page;

	for (i = 0; i < ops; i++) {
		page = alloc_pages(gfp, order);
		if (unlikely(!page)) {
			ctx->n.failed++;
			continue;
		}
		if (verify) {
			ctx->n.allocs++;
			mmbench_mark(page_address(page), size);
			mmbench_check(&ctx->n, page_address(page), size);
		}
		__free_pages(page, order);
		if (verify)
			ctx->n.frees++;
	}
	if (!verify) {
		ctx->n.allocs += ops - (ctx->n.failed - failed);
		ctx->n.frees += ops - (ctx->n.failed - failed);
	}
}

MMBENCH_VERIFY_OP(pages_pair)

/* batch=, within MMBENCH_BATCH_BYTES and a quarter of the free memory */
static int pages_batch_setup(struct mmbench_ctx *ctx, char *reason)
{
	unsigned long limit = max(MMBENCH_BATCH_BYTES >>
				  (PAGE_SHIFT + ctx->arg), 1UL);
	unsigned long free = global_zone_page_state(NR_FREE_PAGES);
	unsigned long room = max(free >> (ctx->arg + 2), 1UL);

	ctx->batch = min3((unsigned long)mmbench_batch, limit, room);
	if (ctx->batch < mmbench_batch && room < limit)
		mmbench_remark(reason,
			       "batch cut to %u blocks: a quarter of the %lu free pages",
			       ctx->batch, free);
	ctx->unit = ctx->batch;
	return 0;
}

/* Alloc a batch, then free it: past the per-CPU lists to the buddy lists. */
static __always_inline void pages_batch_loop(struct mmbench_ctx *ctx,
					     const bool verify)
{
	struct page **pages = (struct page **)ctx->ptrs;
	unsigned int order = ctx->arg;
	size_t size = PAGE_SIZE << order;
	u32 done, n, got, i;

	for (done = 0; done < ctx->ops; done += n) {
		n = min(ctx->ops - done, ctx->batch);
		for (got = 0; got < n; got++) {
			pages[got] = alloc_pages(MMBENCH_GFP_MAYFAIL, order);
			/* The rest of the batch is not tried: not failed. */
			if (unlikely(!pages[got])) {
				ctx->n.failed++;
				break;
			}
			if (verify)
				mmbench_mark(page_address(pages[got]), size);
		}
		ctx->n.allocs += got;
		for (i = 0; i < got; i++) {
			if (verify)
				mmbench_check(&ctx->n, page_address(pages[i]),
					      size);
			__free_pages(pages[i], order);
		}
		ctx->n.frees += got;
	}
}

MMBENCH_VERIFY_OP(pages_batch)

/* The bulk API fills only the empty slots of its array: empty them. */
static int pages_bulk_setup(struct mmbench_ctx *ctx, char *reason)
{
	memset(ctx->ptrs, 0, ctx->arg * sizeof(*ctx->ptrs));
	return 0;
}

static __always_inline void pages_bulk_loop(struct mmbench_ctx *ctx,
					    const bool verify)
{
	struct page **pages = (struct page **)ctx->ptrs;
	u32 done, n, got, i;

	for (done = 0; done < ctx->ops; done += n) {
		n = min(ctx->ops - done, ctx->arg);
		got = alloc_pages_bulk(MMBENCH_GFP_MAYFAIL, n, pages);
		ctx->n.allocs += got;
		ctx->n.failed += got < n;
		for (i = 0; verify && i < got; i++)
			mmbench_mark(page_address(pages[i]), PAGE_SIZE);
		for (i = 0; i < got; i++) {
			if (verify)
				mmbench_check(&ctx->n, page_address(pages[i]),
					      PAGE_SIZE);
			__free_page(pages[i]);
			pages[i] = NULL;
		}
		ctx->n.frees += got;
	}
}

MMBENCH_VERIFY_OP(pages_bulk)

/* Blocks allocated and not yet freed: 0 after every sample. */
static long outstanding_read(struct mmbench_ctx *ctx)
{
	return ctx->n.allocs - ctx->n.frees;
}

/* make_it_fail: the samples' task is marked as by /proc/PID/make-it-fail */
static bool mmbench_make_it_fail;

static void mmbench_set_fault_mark(struct task_struct *task, int mark)
{
#ifdef CONFIG_FAULT_INJECTION
	task->make_it_fail = mark;
#endif
}

/* series: end */
/* series: slab */
/* ---- slab allocator ---- */

/* Take a block, give it back; constant @alloc and @free are inlined. */
static __always_inline void
mmbench_pair_loop(struct mmbench_counts *n, u32 ops, size_t size,
		  unsigned long align, void *priv,
		  void *(*alloc)(void *priv, size_t size),
		  void (*free)(void *priv, void *p), const bool verify)
{
	u64 failed = n->failed;
	void *p;
	u32 i;

	for (i = 0; i < ops; i++) {
		p = alloc(priv, size);
		if (unlikely(!p)) {
			n->failed++;
			continue;
		}
		if (verify) {
			n->allocs++;
			if (align && !IS_ALIGNED((unsigned long)p, align))
				n->corrupt++;
			mmbench_mark(p, size);
			mmbench_check(n, p, size);
		}
		free(priv, p);
		if (verify)
			n->frees++;
	}
	if (!verify) {
		n->allocs += ops - (n->failed - failed);
		n->frees += ops - (n->failed - failed);
	}
}

static __always_inline void *kmalloc_block(void *priv, size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static __always_inline void kfree_block(void *priv, void *p)
{
	kfree(p);
}

static __always_inline void *cache_block(void *cache, size_t size)
{
	return kmem_cache_alloc(cache, GFP_KERNEL);
}

static __always_inline void cache_free_block(void *cache, void *p)
{
	kmem_cache_free(cache, p);
}

static void kmalloc_op(struct mmbench_ctx *ctx)
{
	MMBENCH_VERIFIED(ctx->verify, mmbench_pair, &ctx->n, ctx->ops,
			 ctx->arg, 0, NULL, kmalloc_block, kfree_block);
}

/* A cache of its own: SLAB_NO_MERGE keeps it from aliasing kmalloc's. */
static int cache_setup(struct mmbench_ctx *ctx, char *reason)
{
	ctx->cache = kmem_cache_create("mmbench", ctx->bench->list ==
				       &mmbench_bulk ? MMBENCH_BULK_SIZE :
				       ctx->arg, 0, SLAB_NO_MERGE, NULL);
	return ctx->cache ? 0 : -ENOMEM;
}

static void cache_teardown(struct mmbench_ctx *ctx)
{
	kmem_cache_destroy(ctx->cache);
}

static void kmem_cache_op(struct mmbench_ctx *ctx)
{
	MMBENCH_VERIFIED(ctx->verify, mmbench_pair, &ctx->n, ctx->ops,
			 ctx->arg, 0, ctx->cache, cache_block, cache_free_block);
}

static __always_inline void kmem_cache_bulk_loop(struct mmbench_ctx *ctx,
						 const bool verify)
{
	u32 done, n, i;

	for (done = 0; done < ctx->ops; done += n) {
		n = min(ctx->ops - done, ctx->arg);
		if (unlikely(!kmem_cache_alloc_bulk(ctx->cache,
						    MMBENCH_GFP_MAYFAIL, n,
						    ctx->ptrs))) {
			ctx->n.failed++;
			continue;
		}
		ctx->n.allocs += n;
		for (i = 0; verify && i < n; i++)
			mmbench_mark(ctx->ptrs[i], MMBENCH_BULK_SIZE);
		for (i = 0; verify && i < n; i++)
			mmbench_check(&ctx->n, ctx->ptrs[i], MMBENCH_BULK_SIZE);
		kmem_cache_free_bulk(ctx->cache, n, ctx->ptrs);
		ctx->n.frees += n;
	}
}

MMBENCH_VERIFY_OP(kmem_cache_bulk)

/* kmalloc objects one by one, free them together. */
static __always_inline void kfree_bulk_loop(struct mmbench_ctx *ctx,
					    const bool verify)
{
	u32 done, n, got, i;

	for (done = 0; done < ctx->ops; done += n) {
		n = min(ctx->ops - done, ctx->arg);
		for (got = 0; got < n; got++) {
			ctx->ptrs[got] = kmalloc(MMBENCH_BULK_SIZE,
						 MMBENCH_GFP_MAYFAIL);
			if (unlikely(!ctx->ptrs[got])) {
				ctx->n.failed++;
				break;
			}
			if (verify)
				mmbench_mark(ctx->ptrs[got], MMBENCH_BULK_SIZE);
		}
		ctx->n.allocs += got;
		for (i = 0; verify && i < got; i++)
			mmbench_check(&ctx->n, ctx->ptrs[i], MMBENCH_BULK_SIZE);
		kfree_bulk(got, ctx->ptrs);
		ctx->n.frees += got;
	}
}

MMBENCH_VERIFY_OP(kfree_bulk)

/* series: end */
/* series: page_frag */
/* ---- page_frag ---- */

static __always_inline void *frag_block(void *frag, size_t size)
{
	return page_frag_alloc(frag, size, GFP_KERNEL);
}

static __always_inline void *frag_aligned_block(void *frag, size_t size)
{
	return page_frag_alloc_align(frag, size, GFP_KERNEL,
				     MMBENCH_FRAG_ALIGN);
}

static __always_inline void frag_free_block(void *frag, void *p)
{
	page_frag_free(p);
}

static int page_frag_setup(struct mmbench_ctx *ctx, char *reason)
{
	page_frag_cache_init(&ctx->frag);
	return 0;
}

static void page_frag_teardown(struct mmbench_ctx *ctx)
{
	page_frag_cache_drain(&ctx->frag);
}

static void page_frag_op(struct mmbench_ctx *ctx)
{
	MMBENCH_VERIFIED(ctx->verify, mmbench_pair, &ctx->n, ctx->ops,
			 ctx->arg, 0, &ctx->frag, frag_block, frag_free_block);
}

static void page_frag_aligned_op(struct mmbench_ctx *ctx)
{
	MMBENCH_VERIFIED(ctx->verify, mmbench_pair, &ctx->n, ctx->ops,
			 ctx->arg, MMBENCH_FRAG_ALIGN, &ctx->frag,
			 frag_aligned_block, frag_free_block);
}

/* series: end */
/* series: cpus */
/* ---- several CPUs ---- */

static __always_inline void *page_block(void *priv, size_t size)
{
	struct page *page = alloc_page(MMBENCH_GFP_MAYFAIL);

	return page ? page_address(page) : NULL;
}

static __always_inline void page_free_block(void *priv, void *p)
{
	free_page((unsigned long)p);
}

/* One CPU of a team: a bound thread that takes its part of each sample. */
struct mmbench_worker {
	struct mmbench_team *team;
	struct task_struct *task;	/* pinned until the team is torn down */
	struct mmbench_bench bench;	/* .op: the row's work or pop_work */
	struct mmbench_ctx ctx;
	struct mmbench_sample s;	/* its part of the latest team sample */
	int cpu;
	u64 start;			/* ktime_get_ns() before its part */
	int ran_on;			/* -1 until it runs; not @cpu once offline */
	u64 run_delay;			/* its sched_info's, as a sample began */
	u64 clock;			/* cpu_clock() of @cpu then */
	struct mmbench_cpu_time cpu_time;	/* @cpu's, then or at creation */
	bool stalled_once;		/* inject_stall_ms done */
	const char *waited_for;		/* what it stalled on */
};

/*
 * The CPUs of a multi-CPU benchmark.  team_sample() publishes a sample's
 * @ops, @sized, @verify, @ready and @running with @gen; the last worker
 * ready releases all through @go.  The first that stalls is @staller.
 */
struct mmbench_team {
	unsigned int nr;
	u32 ops;
	bool sized;
	bool verify;
	unsigned long gen;
	unsigned long go;
	atomic_t started;
	atomic_t ready;
	atomic_t running;
	bool stop;
	struct mmbench_worker *staller;
	wait_queue_head_t start_wq;
	struct completion done;
	struct ptr_ring ring;			/* push_cpu to pop_cpu */
	void (*drain)(void *priv, void *p);	/* what ring_put() drops */
	struct mmbench_worker w[];
};

/* Must a worker waiting since @since stop?  The first to stall says why. */
static bool mmbench_stalled(struct mmbench_worker *w, u64 since,
			    const char *what)
{
	struct mmbench_team *t = w->team;

	cond_resched();
	if (READ_ONCE(t->stop))
		return true;
	if (ktime_get_ns() - since < MMBENCH_STALL_NS)
		return false;
	w->waited_for = what;
	cmpxchg(&t->staller, NULL, w);
	WRITE_ONCE(t->stop, true);
	return true;
}

static void ring_put(struct mmbench_worker *w, void *p)
{
	struct mmbench_team *t = w->team;
	u64 since;

	if (likely(!ptr_ring_produce(&t->ring, p)))
		return;
	since = ktime_get_ns();
	while (ptr_ring_produce(&t->ring, p)) {
		cpu_relax();
		if (mmbench_stalled(w, since, "pop_cpu to empty the ring")) {
			/* Counted as allocated: free it, or it leaks. */
			if (t->drain && !IS_ERR(p)) {
				t->drain(NULL, p);
				w->ctx.n.frees++;
			}
			break;
		}
	}
}

/* The next pointer from push_cpu, or NULL when the team stops. */
static void *ring_get(struct mmbench_worker *w)
{
	struct mmbench_team *t = w->team;
	void *p = ptr_ring_consume(&t->ring);
	u64 since;

	if (likely(p))
		return p;
	since = ktime_get_ns();
	while (!(p = ptr_ring_consume(&t->ring))) {
		cpu_relax();
		if (mmbench_stalled(w, since, "push_cpu to fill the ring"))
			break;
	}
	return p;
}

static unsigned int mmbench_inject_stall_ms;

/* inject_stall_ms: the last worker sleeps once, in the final warm-up. */
static void mmbench_inject_stall(struct mmbench_worker *w)
{
	struct mmbench_team *t = w->team;

	if (!mmbench_inject_stall_ms || w->stalled_once || !t->sized ||
	    w != &t->w[t->nr - 1])
		return;
	w->stalled_once = true;
	msleep(mmbench_inject_stall_ms);
}

static void mmbench_sample(const struct mmbench_bench *b,
			   struct mmbench_ctx *ctx, struct mmbench_sample *s);

static int mmbench_worker_fn(void *data)
{
	struct mmbench_worker *w = data;
	struct mmbench_team *t = w->team;
	unsigned long seen = 0;
	u64 since;

	/* team_setup() waits for all: is a CPU kept by another task? */
	WRITE_ONCE(w->ran_on, raw_smp_processor_id());
	if (atomic_inc_return(&t->started) == t->nr)
		complete(&t->done);
	for (;;) {
		wait_event_idle(t->start_wq, READ_ONCE(t->gen) != seen ||
				kthread_should_stop());
		if (kthread_should_stop())
			break;
		/* Pairs with team_sample(): @ready and @running are reset. */
		seen = smp_load_acquire(&t->gen);
		/* The last one ready releases them all at once. */
		if (atomic_inc_return(&t->ready) == t->nr) {
			/* Every worker's start after every one's arrival. */
			smp_store_release(&t->go, seen);
		} else {
			since = ktime_get_ns();
			/* Pairs with the smp_store_release() above. */
			while (smp_load_acquire(&t->go) != seen &&
			       !mmbench_stalled(w, since, "the other CPUs"))
				cpu_relax();
		}
		mmbench_inject_stall(w);
		w->ctx.ops = t->ops;
		w->ctx.verify = t->verify;
		memset(&w->s, 0, sizeof(w->s));
		w->start = ktime_get_ns();
		if (!READ_ONCE(t->stop))
			mmbench_sample(&w->bench, &w->ctx, &w->s);
		w->ran_on = raw_smp_processor_id();
		if (atomic_dec_and_test(&t->running))
			complete(&t->done);
	}
	return 0;
}

/* The online CPUs of cpus=; a pair takes the two lowest-numbered. */
static int team_cpus(enum mmbench_team_kind kind, struct cpumask *mask,
		     char *reason)
{
	unsigned int push, pop;
	bool why;

	cpumask_and(mask, &mmbench_cpus_mask, cpu_online_mask);
	/* CPUs of cpus= can go offline after the load. */
	if (cpumask_empty(mask)) {
		snprintf(reason, MMBENCH_REASON_LEN,
			 "no CPU of cpus=%*pbl is online",
			 cpumask_pr_args(&mmbench_cpus_mask));
		return -EOPNOTSUPP;
	}
	if (cpumask_weight(mask) < 2) {
		snprintf(reason, MMBENCH_REASON_LEN,
			 "needs two online CPUs%s, has %u: %*pbl",
			 mmbench_cpus_given ? " in cpus=" :
			 housekeeping_enabled(HK_TYPE_DOMAIN) ?
			 " outside isolcpus=" : "",
			 cpumask_weight(mask), cpumask_pr_args(mask));
		return -EOPNOTSUPP;
	}
	if (kind == MMBENCH_TEAM_PAIR) {
		push = cpumask_first(mask);
		pop = cpumask_next(push, mask);
		cpumask_clear(mask);
		cpumask_set_cpu(push, mask);
		cpumask_set_cpu(pop, mask);
	}
	if (cpumask_intersects(mask, &mmbench_kept_cpus)) {
		cpumask_and(mask, mask, &mmbench_kept_cpus);
		/* Only the latest reason is kept: is it about these? */
		why = cpumask_test_cpu(mmbench_kept_why_cpu, mask);
		scnprintf(reason, MMBENCH_REASON_LEN,
			  "CPU %*pbl kept in an earlier row%s%s",
			  cpumask_pr_args(mask), why ? ": " : "",
			  why ? mmbench_kept_why : "");
		return -EOPNOTSUPP;
	}
	return 0;
}

static void mmbench_counts_add(struct mmbench_counts *to,
			       const struct mmbench_counts *n)
{
	to->allocs += n->allocs;
	to->frees += n->frees;
	to->failed += n->failed;
	to->corrupt += n->corrupt;
}

static __printf(2, 3) void mmbench_abort(struct mmbench_ctx *ctx,
					 const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(ctx->why, sizeof(ctx->why), fmt, args);
	va_end(args);
	ctx->abort = ctx->why;
}

/* A sample that did not end in 6 s: a stalled worker's reason is better. */
static const char mmbench_team_hung[] = "a team sample did not end within 6 s";

#ifdef CONFIG_SCHED_INFO
/* A u64 the scheduler writes under a runqueue lock, read without it. */
static u64 mmbench_sched_read(const u64 *v)
{
	/* Racy by design, as /proc/PID/schedstat reads it. */
	return data_race(READ_ONCE(*v));
}
#endif

/*
 * How long @w's thread waited to run in the latest team sample, runnable
 * but kept from its CPU, in ns, at most @wall: the longer of the waits
 * that ended there (sched_info's run_delay, less @w->run_delay) and the one
 * in progress.  0 without CONFIG_SCHED_INFO (TASK_DELAY_ACCT, SCHEDSTATS)
 * or on 32-bit, where the u64s read can tear.
 */
static u64 team_waited(struct mmbench_worker *w, u64 wall)
{
	u64 waited = 0;
#ifdef CONFIG_SCHED_INFO
	struct sched_info *si = &w->task->sched_info;
	u64 now = cpu_clock(w->cpu), queued;

	if (!IS_ENABLED(CONFIG_64BIT))
		return 0;
	/*
	 * Read without the runqueue lock, as /proc/PID/schedstat does: a
	 * wait that ends meanwhile may be missed (an error, not a skip).
	 * rq_clock() of its CPU as it was queued, or 0 when not waiting.
	 */
	queued = mmbench_sched_read(&si->last_queued);
	waited = mmbench_sched_read(&si->run_delay) - w->run_delay;
	/* Not summed: a wait that ends meanwhile would count twice. */
	if (queued && now > max(queued, w->clock))
		waited = max(waited, now - max(queued, w->clock));
#endif
	return min(waited, wall);
}

/* Later rows leave @cpu alone, saying @why. */
static void mmbench_keep_cpu(int cpu, const char *why)
{
	cpumask_set_cpu(cpu, &mmbench_kept_cpus);
	strscpy(mmbench_kept_why, why);
	mmbench_kept_why_cpu = cpu;
}

/*
 * After a team sample that stalled or did not end: did a worker wait
 * three quarters of a stall to run?  Then the row stops, saying so: it is
 * unsupported, and later rows leave that CPU alone, if user tasks or the
 * host took the CPU (the machine's doing); else the kernel kept it, an
 * error.  A worker that hung on its CPU, or slept, did not wait.  Returns
 * whether one waited.
 */
static bool team_kept(struct mmbench_ctx *ctx, u64 began)
{
	struct mmbench_team *t = ctx->team;
	u64 wall = ktime_get_ns() - began, waited, most = 0;
	struct mmbench_worker *kept = NULL;
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		/* A CPU that went offline is said so instead. */
		if (task_cpu(t->w[i].task) != t->w[i].cpu)
			continue;
		waited = team_waited(&t->w[i], wall);
		if (waited >= MMBENCH_KEPT_NS && waited > most) {
			most = waited;
			kept = &t->w[i];
		}
	}
	if (!kept)
		return false;
	mmbench_abort(ctx,
		      "a worker on CPU %d waited %llu ms of the team sample's %llu ms to run (limit %llu ms)",
		      kept->cpu, div_u64(most, NSEC_PER_MSEC),
		      div_u64(wall, NSEC_PER_MSEC),
		      div_u64(MMBENCH_KEPT_NS, NSEC_PER_MSEC));
	if (mmbench_cpu_kept(kept->cpu, &kept->cpu_time, most, ctx->why)) {
		mmbench_keep_cpu(kept->cpu, ctx->why);
		ctx->kept = true;
	}
	return true;
}

/* The first worker that stalled, if one did, says why the team stopped. */
static void team_why(struct mmbench_ctx *ctx)
{
	/* Pairs with the cmpxchg() in mmbench_stalled(). */
	struct mmbench_worker *w = smp_load_acquire(&ctx->team->staller);

	if (w)
		mmbench_abort(ctx, "CPU %d waited 2 s for %s", w->cpu,
			      w->waited_for);
}

static void team_teardown(struct mmbench_ctx *ctx)
{
	struct mmbench_team *t = ctx->team;
	unsigned int i;
	void *p;

	WRITE_ONCE(t->stop, true);
	for (i = 0; i < t->nr; i++) {
		struct mmbench_worker *w = &t->w[i];

		if (!w->task)
			continue;
		mmbench_stop_thread(w->task);
		/* What a sample that timed out left uncounted. */
		mmbench_counts_add(&ctx->n, &w->ctx.n);
	}
	if (!ctx->abort || ctx->abort == mmbench_team_hung)
		team_why(ctx);
	if (ctx->bench->team == MMBENCH_TEAM_PAIR) {
		while ((p = ptr_ring_consume(&t->ring))) {
			if (t->drain && !IS_ERR(p)) {
				t->drain(NULL, p);
				ctx->n.frees++;
			}
		}
		ptr_ring_cleanup(&t->ring, NULL);
	}
	for (i = 0; i < t->nr; i++)
		page_frag_cache_drain(&t->w[i].ctx.frag);
	kvfree(t);
	ctx->team = NULL;
}

/* The first worker that has not run yet, or NULL. */
static struct mmbench_worker *team_unstarted(struct mmbench_team *t)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (READ_ONCE(t->w[i].ran_on) < 0)
			return &t->w[i];
	return NULL;
}

/* Start a thread on each CPU of the team; they wait for team_sample(). */
static int team_setup(struct mmbench_ctx *ctx, char *reason)
{
	const struct mmbench_bench *b = ctx->bench;
	bool pair = b->team == MMBENCH_TEAM_PAIR;
	struct mmbench_worker *w;
	struct mmbench_team *t;
	cpumask_var_t mask;
	int cpu, ret;
	unsigned int i = 0;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = team_cpus(b->team, mask, reason);
	if (ret)
		goto out;
	ret = -ENOMEM;
	t = kvzalloc(struct_size(t, w, cpumask_weight(mask)), GFP_KERNEL);
	if (!t)
		goto out;
	t->nr = cpumask_weight(mask);
	t->drain = b->drain;
	init_waitqueue_head(&t->start_wq);
	init_completion(&t->done);
	if (pair && ptr_ring_init(&t->ring, MMBENCH_RING_SIZE, GFP_KERNEL)) {
		kvfree(t);
		goto out;
	}
	ctx->team = t;
	for_each_cpu(cpu, mask) {
		struct task_struct *task;

		w = &t->w[i++];
		w->team = t;
		w->ctx.team = t;
		w->ctx.worker = w;
		page_frag_cache_init(&w->ctx.frag);
		w->ctx.slow = ctx->slow;
		w->cpu = cpu;
		w->ran_on = -1;
		w->bench.op = pair && i == 2 ? b->pop_work : b->work;
		mmbench_cpu_time(cpu, &w->cpu_time);
		/* It waits for a sample: its fault mark may come after. */
		task = kthread_run_on_cpu(mmbench_worker_fn, w, w->cpu,
					  "mmbench_w/%u");
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			team_teardown(ctx);
			goto out;
		}
		w->task = get_task_struct(task);
		/* The run's fault mark is its samples', on every CPU. */
		mmbench_set_fault_mark(task, mmbench_make_it_fail);
	}
	ret = 0;
	w = wait_for_completion_timeout(&t->done,
					nsecs_to_jiffies(MMBENCH_STALL_NS)) ?
	    NULL : team_unstarted(t);
	if (w) {
		snprintf(reason, MMBENCH_REASON_LEN,
			 "CPU %d did not run the module's thread within 2 s",
			 w->cpu);
		ret = -ETIMEDOUT;	/* an error, unless another task kept it */
		if (mmbench_cpu_kept(w->cpu, &w->cpu_time, MMBENCH_STALL_NS,
				     reason)) {
			mmbench_keep_cpu(w->cpu, reason);
			ret = -EOPNOTSUPP;
		}
		team_teardown(ctx);
	}
out:
	free_cpumask_var(mask);
	return ret;
}

/* A team sample: ctx->ops ops on each CPU, timed as its slowest part. */
static void team_sample(struct mmbench_ctx *ctx, struct mmbench_sample *s)
{
	struct mmbench_team *t = ctx->team;
	u64 first = U64_MAX, last_start = 0, began;
	const char *late = NULL;
	unsigned int i;

	/* Workers of a sample that timed out may still run: start no other. */
	if (READ_ONCE(t->stop)) {
		if (!ctx->abort)
			mmbench_abort(ctx, "the team stopped");
		return;
	}
	t->ops = ctx->ops;
	t->sized = ctx->sized;
	t->verify = ctx->verify;
	atomic_set(&t->ready, 0);
	atomic_set(&t->running, t->nr);
	reinit_completion(&t->done);
	for (i = 0; i < t->nr; i++) {
		struct mmbench_worker *w = &t->w[i];

#ifdef CONFIG_SCHED_INFO
		w->run_delay = mmbench_sched_read(&w->task->sched_info.run_delay);
#endif
		w->clock = cpu_clock(w->cpu);
		mmbench_cpu_time(w->cpu, &w->cpu_time);
	}
	began = ktime_get_ns();
	/* Pairs with mmbench_worker_fn(): all of the above before @gen. */
	smp_store_release(&t->gen, t->gen + 1);
	wake_up_all(&t->start_wq);
	/* A worker not running at all cannot stall out: bound the wait. */
	if (!wait_for_completion_timeout(&t->done,
					 nsecs_to_jiffies(2 * MMBENCH_STALL_NS))) {
		WRITE_ONCE(t->stop, true);
		if (!wait_for_completion_timeout(&t->done,
						 nsecs_to_jiffies(MMBENCH_STALL_NS))) {
			if (!team_kept(ctx, began))
				ctx->abort = mmbench_team_hung;
			return;
		}
		late = "a team sample did not end within 4 s";
	}

	for (i = 0; i < t->nr; i++) {
		struct mmbench_worker *w = &t->w[i];

		first = min(first, w->start);
		last_start = max(last_start, w->start);
		/* With its clock reads, taken out as for one stretch. */
		if (w->s.ns > s->ns) {
			s->ns = w->s.ns;
			s->cycles = w->s.cycles;
			s->reads = w->s.reads;
		}
		s->preempted |= w->s.preempted;
		s->stolen |= w->s.stolen;
		if (w->ran_on != w->cpu && !ctx->abort)
			mmbench_abort(ctx, "CPU %d went offline: its worker ran on CPU %d",
				      w->cpu, w->ran_on);
		mmbench_counts_add(&ctx->n, &w->ctx.n);
		memset(&w->ctx.n, 0, sizeof(w->ctx.n));
	}
	ctx->team_skew = last_start - first;
	/* A stall or a late end: was it another task's doing? */
	if (!ctx->abort && (late || READ_ONCE(t->staller)))
		team_kept(ctx, began);
	if (!ctx->abort)
		team_why(ctx);
	if (!ctx->abort)
		ctx->abort = late;
}

/* The same hot pair on every CPU at once, each with its own frag cache. */
#define MMBENCH_PAIR_WORK(name, priv, alloc, free)			\
static void name##_pair_work(struct mmbench_ctx *ctx)			\
{									\
	MMBENCH_VERIFIED(ctx->verify, mmbench_pair, &ctx->n, ctx->ops,	\
			 MMBENCH_TEAM_SIZE, 0, priv, alloc, free);	\
}

MMBENCH_PAIR_WORK(pages, NULL, page_block, page_free_block)
MMBENCH_PAIR_WORK(kmalloc, NULL, kmalloc_block, kfree_block)
MMBENCH_PAIR_WORK(frag, &ctx->frag, frag_block, frag_free_block)

/* Remote free: push_cpu passes each block (or an error) to pop_cpu. */
static __always_inline void
mmbench_push_loop(struct mmbench_ctx *ctx, void *priv,
		  void *(*alloc)(void *priv, size_t size), const bool verify)
{
	u64 failed = ctx->n.failed;
	void *p;
	u32 i;

	for (i = 0; i < ctx->ops && !READ_ONCE(ctx->team->stop); i++) {
		p = alloc(priv, MMBENCH_TEAM_SIZE);
		if (unlikely(!p)) {
			ctx->n.failed++;
			ring_put(ctx->worker, ERR_PTR(-ENOMEM));
			continue;
		}
		if (verify) {
			ctx->n.allocs++;
			mmbench_mark(p, MMBENCH_TEAM_SIZE);
		}
		ring_put(ctx->worker, p);
	}
	if (!verify)
		ctx->n.allocs += i - (ctx->n.failed - failed);
}

static __always_inline void
mmbench_pop_loop(struct mmbench_ctx *ctx, void (*free)(void *priv, void *p),
		 const bool verify)
{
	u32 i, failed = 0;
	void *p;

	for (i = 0; i < ctx->ops; i++) {
		p = ring_get(ctx->worker);
		if (!p)
			break;
		if (IS_ERR(p)) {
			failed++;
			continue;
		}
		if (verify) {
			mmbench_check(&ctx->n, p, MMBENCH_TEAM_SIZE);
			ctx->n.frees++;
		}
		free(NULL, p);
	}
	if (!verify)
		ctx->n.frees += i - failed;
}

/* A remote-free pair's works; a page_frag cache is push_cpu's alone. */
#define MMBENCH_REMOTE_WORK(name, priv, alloc, free)			\
static void name##_push_work(struct mmbench_ctx *ctx)			\
{									\
	MMBENCH_VERIFIED(ctx->verify, mmbench_push, ctx, priv, alloc);	\
}									\
static void name##_pop_work(struct mmbench_ctx *ctx)			\
{									\
	MMBENCH_VERIFIED(ctx->verify, mmbench_pop, ctx, free);		\
}

MMBENCH_REMOTE_WORK(pages, NULL, page_block, page_free_block)
MMBENCH_REMOTE_WORK(kmalloc, NULL, kmalloc_block, kfree_block)
MMBENCH_REMOTE_WORK(frag, &ctx->frag, frag_block, frag_free_block)

/* The ring alone, with a pointer that is never dereferenced. */
static void ring_push_work(struct mmbench_ctx *ctx)
{
	u32 i;

	for (i = 0; i < ctx->ops && !READ_ONCE(ctx->team->stop); i++)
		ring_put(ctx->worker, ctx);
}

static void ring_pop_work(struct mmbench_ctx *ctx)
{
	u32 i;

	for (i = 0; i < ctx->ops; i++)
		if (!ring_get(ctx->worker))
			break;
}

/* series: end */
/* series: page_alloc */
/* An allocator counts its blocks. */
#define MMBENCH_ALLOC		.read = outstanding_read

/* series: end */
/* series: cpus */
#define MMBENCH_TEAM_OPS	.setup = team_setup, .teardown = team_teardown
#define MMBENCH_PAIR_OPS(_name)	MMBENCH_TEAM_OPS,			\
				.work = _name##_push_work,		\
				.pop_work = _name##_pop_work

/* series: end */
/* The baseline is first: every other benchmark is judged against it. */
static const struct mmbench_bench mmbench_benches[] = {
	{ .name = "baseline", .group = "calibration",
	  .unit = "empty loop iteration", .op = baseline_op,
	}, { .name = "ndelay", .group = "calibration", .unit = "ndelay(D)",
	  .list = &mmbench_delays, .op = ndelay_op,
	}, { .name = "alu_chain", .group = "calibration",
	  .unit = "1000 dependent ALU operations",
	  .op = alu_chain_op,
	}, { .name = "inc_zone_page_state", .group = "vmstat",
	  .unit = "one call", .op = inc_zone_op,
	  .restore = inc_zone_restore, .read = zone_item_read,
	}, { .name = "dec_zone_page_state", .group = "vmstat",
	  .unit = "one call", .prep = dec_zone_prep,
	  .op = dec_zone_op, .read = zone_item_read,
	}, { .name = "inc_dec_zone_page_state", .group = "vmstat",
	  .unit = "an inc and a dec", .op = inc_dec_zone_op,
	  .read = zone_item_read,
	}, { .name = "mod_node_page_state", .group = "vmstat",
	  .unit = "a +1 and a -1", .op = mod_node_op,
	  .read = node_item_read,
	}, { .name = "__mod_zone_page_state", .group = "vmstat",
	  .unit = "a +1 and a -1", .irqoff = true, .op = __mod_zone_op,
	  .read = zone_item_read,
	}, { .name = "count_vm_event", .group = "vmstat", .unit = "one call",
	  .setup = vm_event_setup, .op = count_vm_event_op,
	  .restore = vm_event_restore, .read = vm_event_read,
	}, { .name = "count_vm_events", .group = "vmstat", .unit = "one call",
	  .setup = vm_event_setup, .op = count_vm_events_op,
	  .restore = vm_event_restore, .read = vm_event_read,
/* series: page_alloc */
	}, { .name = "alloc_pages", .group = "page_alloc",
	  .unit = "alloc_pages() and __free_pages() at once", MMBENCH_ALLOC,
	  .list = &mmbench_orders, .op = pages_pair_op, .pages_back = true,
	}, { .name = "alloc_pages_batch", .group = "page_alloc",
	  .unit = "page alloc and free, in batches", MMBENCH_ALLOC,
	  .list = &mmbench_orders, .setup = pages_batch_setup,
	  .op = pages_batch_op, .pages_back = true,
	}, { .name = "alloc_pages_bulk", .group = "page_alloc",
	  .unit = "order-0 page from alloc_pages_bulk(), freed", MMBENCH_ALLOC,
	  .list = &mmbench_bulk, .setup = pages_bulk_setup,
	  .op = pages_bulk_op, .pages_back = true,
/* series: end */
/* series: slab */
	}, { .name = "kmalloc", .group = "slab", .unit = "kmalloc() and kfree()",
	  MMBENCH_ALLOC, .list = &mmbench_sizes, .op = kmalloc_op,
	}, { .name = "kmem_cache", .group = "slab",
	  .unit = "kmem_cache_alloc() and kmem_cache_free()", MMBENCH_ALLOC,
	  .list = &mmbench_sizes, .setup = cache_setup,
	  .teardown = cache_teardown, .op = kmem_cache_op,
	}, { .name = "kmem_cache_bulk", .group = "slab",
	  .unit = "object from kmem_cache_alloc_bulk(), freed in bulk",
	  MMBENCH_ALLOC, .list = &mmbench_bulk,
	  .setup = cache_setup, .teardown = cache_teardown,
	  .op = kmem_cache_bulk_op,
	}, { .name = "kfree_bulk", .group = "slab",
	  .unit = "kmalloc(), freed by kfree_bulk()", MMBENCH_ALLOC,
	  .list = &mmbench_bulk, .op = kfree_bulk_op,
/* series: end */
/* series: page_frag */
	}, { .name = "page_frag", .group = "page_frag",
	  .unit = "page_frag_alloc() and page_frag_free()", MMBENCH_ALLOC,
	  .list = &mmbench_frag_sizes, .setup = page_frag_setup,
	  .teardown = page_frag_teardown, .op = page_frag_op,
	  .pages_back = true,
	}, { .name = "page_frag_aligned", .group = "page_frag",
	  .unit = "page_frag_alloc_align(64) and page_frag_free()",
	  MMBENCH_ALLOC, .list = &mmbench_frag_sizes,
	  .setup = page_frag_setup, .teardown = page_frag_teardown,
	  .op = page_frag_aligned_op, .pages_back = true,
/* series: end */
/* series: cpus */
	}, { .name = "alloc_pages_concurrent", .group = "page_alloc",
	  .unit = "order-0 alloc and free, on every CPU of cpus at once",
	  MMBENCH_ALLOC, .team = MMBENCH_TEAM_ALL, MMBENCH_TEAM_OPS,
	  .work = pages_pair_work, .pages_back = true,
	}, { .name = "kmalloc_concurrent", .group = "slab",
	  .unit = "kmalloc(256) and kfree(), on every CPU of cpus at once",
	  MMBENCH_ALLOC, .team = MMBENCH_TEAM_ALL, MMBENCH_TEAM_OPS,
	  .work = kmalloc_pair_work,
	}, { .name = "page_frag_concurrent", .group = "page_frag",
	  .unit = "256-byte fragment alloc and free, on every CPU of cpus at once",
	  MMBENCH_ALLOC, .team = MMBENCH_TEAM_ALL, MMBENCH_TEAM_OPS,
	  .work = frag_pair_work, .pages_back = true,
	}, { .name = "alloc_pages_remote_free", .group = "page_alloc",
	  .unit = "order-0 page allocated on push_cpu, freed on pop_cpu",
	  MMBENCH_ALLOC, .team = MMBENCH_TEAM_PAIR, MMBENCH_PAIR_OPS(pages),
	  .drain = page_free_block, .pages_back = true,
	}, { .name = "kmalloc_remote_free", .group = "slab",
	  .unit = "kmalloc(256) on push_cpu, kfree() on pop_cpu",
	  MMBENCH_ALLOC, .team = MMBENCH_TEAM_PAIR, MMBENCH_PAIR_OPS(kmalloc),
	  .drain = kfree_block,
	}, { .name = "page_frag_remote_free", .group = "page_frag",
	  .unit = "256-byte fragment allocated on push_cpu, freed on pop_cpu",
	  MMBENCH_ALLOC, .team = MMBENCH_TEAM_PAIR, MMBENCH_PAIR_OPS(frag),
	  .drain = frag_free_block, .pages_back = true,
	}, { .name = "ptr_ring_remote", .group = "calibration",
	  .unit = "pointer through the ring from push_cpu to pop_cpu",
	  .team = MMBENCH_TEAM_PAIR,
	  MMBENCH_PAIR_OPS(ring),
/* series: end */
	},
};

#define MMBENCH_NR	ARRAY_SIZE(mmbench_benches)

/* ---- parameters ---- */

static DECLARE_BITMAP(mmbench_selected, MMBENCH_NR);
static char *mmbench_names[MMBENCH_NR] = { "all" };
static unsigned int mmbench_nr_names = 1;
static unsigned int mmbench_iterations;
static unsigned int mmbench_samples = 9;
static unsigned int mmbench_sample_us = 2000;
static unsigned int mmbench_budget_ms = 60000;
static int mmbench_cpu = -1;
static char *mmbench_slow_into[MMBENCH_MAX_LIST];
static unsigned int mmbench_nr_slow_into;

/* benchmarks=: "all", or names of the table but the baseline, each once. */
static int mmbench_select(void)
{
	const char *name;
	unsigned int n;
	int i;

	if (mmbench_nr_names == 1 && !strcmp(mmbench_names[0], "all")) {
		bitmap_fill(mmbench_selected, MMBENCH_NR);
		return 0;
	}
	for (n = 0; n < mmbench_nr_names; n++) {
		name = mmbench_names[n];
		for (i = MMBENCH_NR - 1; i >= 0; i--)
			if (!strcmp(mmbench_benches[i].name, name))
				break;
		if (!*name)
			pr_err("benchmarks: empty name\n");
		else if (!i)
			pr_err("benchmarks: the baseline always runs; do not name it\n");
		else if (i < 0)
			pr_err("benchmarks: unknown benchmark '%s'\n", name);
		else if (__test_and_set_bit(i, mmbench_selected))
			pr_err("benchmarks: '%s' given twice\n", name);
		else
			continue;
		return -EINVAL;
	}
	return 0;
}

module_param_array_named(benchmarks, mmbench_names, charp, &mmbench_nr_names,
			 0444);
MODULE_PARM_DESC(benchmarks,
		 "Comma-separated benchmark names, or \"all\" (default all)");

/* A number from @min to @max into @v, which is left alone on error. */
static int parse_uint(const char *param, const char *val, unsigned int min,
		      unsigned int max, unsigned int *v)
{
	const struct kernel_param kp = { .arg = v };

	if (param_set_uint_minmax(val, &kp, min, max)) {
		pr_err("%s: '%s' is not a number from %u to %u\n", param, val,
		       min, max);
		return -EINVAL;	/* not -ERANGE: too large is out of range */
	}
	return 0;
}

struct mmbench_uint_param {
	unsigned int *value;
	unsigned int min;
	unsigned int max;
};

static int uint_range_set(const char *val, const struct kernel_param *kp)
{
	const struct mmbench_uint_param *p = kp->arg;

	return parse_uint(kp->name, val, p->min, p->max, p->value);
}

static int uint_range_get(char *buffer, const struct kernel_param *kp)
{
	const struct mmbench_uint_param *p = kp->arg;

	return sysfs_emit(buffer, "%u\n", *p->value);
}

static const struct kernel_param_ops uint_range_ops = {
	.set = uint_range_set, .get = uint_range_get,
};

/* The kernel_param arg of @var, a parameter from @lo to @hi. */
#define MMBENCH_UINT(var, lo, hi)					\
	(&(struct mmbench_uint_param){ .value = &(var), .min = (lo),	\
				       .max = (hi) })

module_param_cb(iterations, &uint_range_ops,
		MMBENCH_UINT(mmbench_iterations, 0, MMBENCH_MAX_ITERATIONS), 0444);
MODULE_PARM_DESC(iterations,
		 "Ops per sample, 1..100000000, or 0 to size samples to sample_us (default 0)");
module_param_cb(samples, &uint_range_ops,
		MMBENCH_UINT(mmbench_samples, 1, MMBENCH_MAX_SAMPLES), 0444);
MODULE_PARM_DESC(samples,
		 "Samples kept per benchmark after one warm-up, 1..250 (default 9)");
module_param_cb(sample_us, &uint_range_ops,
		MMBENCH_UINT(mmbench_sample_us, 100, 100000), 0444);
MODULE_PARM_DESC(sample_us,
		 "Target duration of a sample when iterations=0, 100..100000 us (default 2000)");
module_param_cb(budget_ms, &uint_range_ops,
		MMBENCH_UINT(mmbench_budget_ms, 100, 600000), 0444);
MODULE_PARM_DESC(budget_ms,
		 "Time limit of a run, shared by its benchmarks, 100..600000 ms (default 60000)");

static int cpu_set(const char *val, const struct kernel_param *kp)
{
	int v;

	if (kstrtoint(val, 10, &v)) {
		pr_err("%s: '%s' is not a decimal integer\n", kp->name, val);
		return -EINVAL;
	}
	if (v < -1 || v >= (int)nr_cpu_ids || (v >= 0 && !cpu_online(v))) {
		pr_err("%s=%d is not an online CPU (online: %*pbl), nor -1\n",
		       kp->name, v, cpumask_pr_args(cpu_online_mask));
		return -EINVAL;
	}
	*(int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops cpu_ops = {
	.set = cpu_set, .get = param_get_int,
};
module_param_cb(cpu, &cpu_ops, &mmbench_cpu, 0444);
MODULE_PARM_DESC(cpu,
		 "CPU to run on, or -1 for the first online CPU that isolcpus= leaves to the scheduler (default -1); reads back the CPU the run took");

/* series: page_alloc */
module_param_cb(batch, &uint_range_ops,
		MMBENCH_UINT(mmbench_batch, 1, MMBENCH_MAX_BATCH), 0444);
MODULE_PARM_DESC(batch,
		 "Blocks allocated before any is freed by alloc_pages_batch, 1..65536, at most 16 MiB and a quarter of the free memory (default 1024)");
module_param_named(make_it_fail, mmbench_make_it_fail, bool, 0444);
MODULE_PARM_DESC(make_it_fail,
		 "Test only: mark the samples as /proc/<pid>/make-it-fail does, for fault injection's task filter; refused without CONFIG_FAULT_INJECTION (default N)");

/* series: end */
/* series: cpus */
module_param_cb(inject_stall_ms, &uint_range_ops,
		MMBENCH_UINT(mmbench_inject_stall_ms, 0, 10000), 0444);
MODULE_PARM_DESC(inject_stall_ms,
		 "Test only: ms that the last worker of each multi-CPU benchmark sleeps once, in the warm-up, 0..10000 (default 0): over 4000 the team stalls (the run's thread gives up), over 2000 a pair whose sample overflows the 1024-entry ring too (push_cpu gives up)");

static int cpus_set(const char *val, const struct kernel_param *kp)
{
	cpumask_var_t mask;
	int err, ret = -EINVAL;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	err = cpulist_parse(val, mask);
	if (err == -ERANGE)
		pr_err("%s: '%s' names a CPU above %u, the last this machine can have\n",
		       kp->name, val, nr_cpu_ids - 1);
	else if (err)
		pr_err("%s: '%s' is not a CPU list such as 0-3,6\n", kp->name,
		       val);
	else if (cpumask_empty(mask))
		pr_err("%s: no CPU in '%s'\n", kp->name, val);
	else if (!cpumask_subset(mask, cpu_online_mask))
		pr_err("%s=%*pbl: not all online (online: %*pbl)\n", kp->name,
		       cpumask_pr_args(mask), cpumask_pr_args(cpu_online_mask));
	else
		ret = 0;
	if (!ret) {
		cpumask_copy(&mmbench_cpus_mask, mask);
		mmbench_cpus_given = true;
	}
	free_cpumask_var(mask);
	return ret;
}

static int cpus_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%*pbl\n",
			  cpumask_pr_args(&mmbench_cpus_mask));
}

static const struct kernel_param_ops cpus_ops = {
	.set = cpus_set, .get = cpus_get,
};
module_param_cb(cpus, &cpus_ops, NULL, 0444);
MODULE_PARM_DESC(cpus,
		 "CPUs of the multi-CPU benchmarks, a list such as 0-3,6; a pair (the remote-free rows, ptr_ring_remote) takes its two lowest-numbered online CPUs, the first allocating, the second freeing (default: the online CPUs that isolcpus= leaves to the scheduler, at load)");

/* series: end */
module_param_array_named(delays, mmbench_delays.vals, uint, &mmbench_delays.nr, 0444);
MODULE_PARM_DESC(delays,
		 "Comma-separated D in ns for the ndelay benchmarks, up to 8, each 0..100000 (default 0,50,200,1000,5000)");
/* series: page_alloc */
module_param_array_named(orders, mmbench_orders.vals, uint, &mmbench_orders.nr, 0444);
MODULE_PARM_DESC(orders,
		 "Comma-separated page orders for the page allocator benchmarks, up to 8, each 0..MAX_PAGE_ORDER (default 0,1,2,3,9)");
module_param_array_named(bulk, mmbench_bulk.vals, uint, &mmbench_bulk.nr, 0444);
MODULE_PARM_DESC(bulk,
		 "Comma-separated objects per bulk call, up to 8, each 1..1024 (default 16,64,256)");
/* series: end */
/* series: slab */
module_param_array_named(sizes, mmbench_sizes.vals, uint, &mmbench_sizes.nr, 0444);
MODULE_PARM_DESC(sizes,
		 "Comma-separated object sizes in bytes for kmalloc and kmem_cache, up to 8, each 1..KMALLOC_MAX_CACHE_SIZE (default 8,64,96,192,1000,4096,KMALLOC_MAX_CACHE_SIZE)");
/* series: end */
/* series: page_frag */
module_param_array_named(frag_sizes, mmbench_frag_sizes.vals, uint, &mmbench_frag_sizes.nr, 0444);
MODULE_PARM_DESC(frag_sizes,
		 "Comma-separated page_frag fragment sizes in bytes, up to 8, each 1..PAGE_SIZE (default 64,250,2048)");
/* series: end */

/* ---- timing engine ---- */

/* Written by the run's thread before the files exist. */
static u64 mmbench_run_ns;
static s64 mmbench_drift = MMBENCH_NONE;
static u64 mmbench_clock_ns;
static u64 mmbench_clock_step_ns;
static struct mmbench_row *mmbench_rows;
static unsigned int mmbench_nr_rows;
static u64 *mmbench_sample_buf;		/* the rows' sample_ps */
static DECLARE_COMPLETION(mmbench_started);
static DECLARE_COMPLETION(mmbench_done);
/* Who came first: the run's thread (1) or mmbench_run() giving up (2). */
static int mmbench_claim;

/*
 * The run: no row starts and no sample is kept past @deadline; @ps and
 * @mcyc hold a row's samples; the clock reads' cost, taken out of each
 * stretch, and step; the shortest sample, MMBENCH_CLOCK_SHARE times the
 * larger.
 */
struct mmbench_run {
	int cpu;
	u64 deadline;
	u64 row_budget_ns;
	u64 *ps;
	u64 *mcyc;
	u64 clock_ns;
	u64 clock_cycles;
	u64 clock_step_ns;
	u64 min_sample_ns;
};

static u64 mmbench_steal(int cpu)
{
	return READ_ONCE(kcpustat_cpu(cpu).cpustat[CPUTIME_STEAL]);
}

/* Time ctx->ops ops, with irqs off if the benchmark says so; add to @s. */
static void mmbench_stretch(const struct mmbench_bench *b,
			    struct mmbench_ctx *ctx, struct mmbench_sample *s,
			    int cpu)
{
	unsigned long flags = 0, switches;
	cycles_t c0, c1;
	u64 t0, t1;

	if (b->prep)
		b->prep(ctx);
	if (b->irqoff)
		local_irq_save(flags);
	/* Read inside: a switch once irqs are back on is not the sample's. */
	switches = current->nvcsw + current->nivcsw;
	s->migrated |= raw_smp_processor_id() != cpu;

	t0 = ktime_get_ns();
	c0 = get_cycles();
	if (b->op)
		b->op(ctx);
	if (ctx->slow) {
		ctx->chain = mmbench_chain(ctx->chain,
					   (u64)ctx->ops * ctx->slow);
		barrier();	/* the chain before the clocks are read */
	}
	c1 = get_cycles();
	t1 = ktime_get_ns();

	s->preempted |= current->nvcsw + current->nivcsw != switches;
	s->migrated |= raw_smp_processor_id() != cpu;
	if (b->irqoff)
		local_irq_restore(flags);
	if (b->restore)
		b->restore(ctx);
	s->ns += t1 - t0;
	s->cycles += c1 - c0;
	s->reads++;
}

/* One sample, in stretches for a counter restored or irqs off. */
static void mmbench_sample(const struct mmbench_bench *b,
			   struct mmbench_ctx *ctx, struct mmbench_sample *s)
{
	u32 ops = ctx->ops, left = ops, most = ops;
	int cpu = raw_smp_processor_id();
	u64 steal = mmbench_steal(cpu);

	memset(s, 0, sizeof(*s));
/* series: cpus */
	if (b->team) {
		/* Times none of it; mmbench_row_run() errs if it moved. */
		team_sample(ctx, s);
		return;
	}
/* series: end */
	if (b->prep || b->restore || b->irqoff)
		most = MMBENCH_STRETCH;
	do {
		ctx->ops = min(left, most);
		mmbench_stretch(b, ctx, s, cpu);
		left -= ctx->ops;
	} while (left);
	ctx->ops = ops;
	s->stolen = mmbench_steal(cpu) != steal;
}

static bool mmbench_stopping(const struct mmbench_run *run)
{
	return kthread_should_stop() || ktime_get_ns() > run->deadline;
}

/* Ops per sample: sample_us or iterations=, within the row's budget. */
static u32 mmbench_size(const struct mmbench_bench *b, struct mmbench_ctx *ctx,
			const struct mmbench_run *run, struct mmbench_result *r)
{
	u64 target = max((u64)mmbench_sample_us * NSEC_PER_USEC,
			 run->min_sample_ns);
	/* The samples, warm-up, sizing and verification share the budget. */
	u64 share = min_t(u64, div_u64(run->row_budget_ns, mmbench_samples + 3),
			  MMBENCH_MAX_SAMPLE_NS);
	struct mmbench_sample s;
	u64 ps_per_op, want, cap, floor;
	u32 ops;

	/* The first sample warms. */
	ctx->ops = 1;
/* series: cpus */
	/* Enough ops to hide a team's fixed costs. */
	if (b->team)
		ctx->ops = MMBENCH_TEAM_MIN_OPS;
/* series: end */
	mmbench_sample(b, ctx, &s);
	while (!ctx->abort) {
		mmbench_sample(b, ctx, &s);
		cond_resched();
		if (s.ns >= target / 4 || ctx->ops >= MMBENCH_MAX_ITERATIONS ||
		    ctx->abort || mmbench_stopping(run))
			break;
		ctx->ops = min_t(u64, (u64)ctx->ops * (s.ns < target / 64 ?
						       16 : 4),
				 MMBENCH_MAX_ITERATIONS);
	}
	ps_per_op = max_t(u64, div_u64(s.ns * 1000, ctx->ops), 1);
	want = mmbench_iterations ?: div64_u64(target * 1000, ps_per_op);
	/* Even when asked for fewer: the clock must time a sample well. */
	floor = div64_u64(run->min_sample_ns * 1000 + ps_per_op - 1, ps_per_op);
	if (mmbench_iterations && want < floor) {
		want = floor;
		mmbench_remark(r->reason,
			       "iterations raised to %llu: a sample lasts 100 times the clock's step or read cost, %llu ns",
			       want, run->min_sample_ns);
	}
	cap = div64_u64(share * 1000, ps_per_op);
	if (mmbench_iterations && want > cap)
		mmbench_remark(r->reason,
			       "iterations clamped to %llu: a sample lasts at most %llu ms (100 ms, or its share of budget_ms)",
			       max_t(u64, cap, 1),
			       div_u64(share, NSEC_PER_MSEC));
	want = min(want, cap);
/* series: cpus */
	if (b->team && !mmbench_iterations)
		want = max_t(u64, want, MMBENCH_TEAM_MIN_OPS);
/* series: end */
	ops = clamp_t(u64, want, 1, MMBENCH_MAX_ITERATIONS);
/* series: page_alloc */
	/* Whole batches or bulks, so that each is the size its row names. */
	if (ops % ctx->unit) {
		ops = roundup(ops, ctx->unit);
		if (mmbench_iterations)
			mmbench_remark(r->reason,
				       "iterations rounded up to %u: whole batches or bulks of %u",
				       ops, ctx->unit);
	}
/* series: end */
	return ops;
}

static int u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v and returns its median. */
static u64 mmbench_median(u64 *v, u32 n)
{
	sort(v, n, sizeof(*v), u64_cmp, NULL);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* min, median and median absolute deviation of @n values; overwrites @v. */
static void mmbench_summarise(u64 *v, u32 n, struct mmbench_stat *st)
{
	u32 i;

	st->median = mmbench_median(v, n);
	st->min = v[0];
	for (i = 0; i < n; i++)
		v[i] = abs_diff(v[i], st->median);
	st->mad = mmbench_median(v, n);
}

/* Re-read a few times: a concurrent fold of per-CPU deltas can hide some. */
static long mmbench_counter_delta(const struct mmbench_bench *b,
				  struct mmbench_ctx *ctx)
{
	long delta = 0;
	int tries;

	for (tries = 0; tries < 3; tries++) {
		delta = b->read(ctx) - ctx->before;
		if (!delta)
			break;
		schedule_timeout_uninterruptible(msecs_to_jiffies(10));
	}
	return delta;
}

/* series: page_alloc */
/* Free pages of the node, those on the per-CPU lists too. */
static long mmbench_free_pages(struct pglist_data *pgdat)
{
	long free = 0;
	int i, cpu;

	for (i = 0; i < MAX_NR_ZONES; i++) {
		struct zone *zone = &pgdat->node_zones[i];

		if (!populated_zone(zone))
			continue;
		free += zone_page_state_snapshot(zone, NR_FREE_PAGES);
		for_each_online_cpu(cpu)
			free += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset,
						      cpu)->count);
	}
	return free;
}

/* What others may take meanwhile: 4 MiB, or 1/256 of a large node. */
static long mmbench_free_pages_slack(const struct mmbench_ctx *ctx)
{
	unsigned long managed = 0;
	int i;

	for (i = 0; i < MAX_NR_ZONES; i++)
		managed += zone_managed_pages(&ctx->pgdat->node_zones[i]);
	return max((4UL << 20) >> PAGE_SHIFT, managed / 256);
}

/* series: end */
/* Set a row's status and its reason. */
static __printf(3, 4) void mmbench_set(struct mmbench_result *r,
				       enum mmbench_status status,
				       const char *fmt, ...)
{
	va_list args;

	r->status = status;
	va_start(args, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, args);
	va_end(args);
}

/* Whether @b's counter moves (by @moved) within @ns, read each ms or so. */
static bool mmbench_counter_moves(const struct mmbench_bench *b,
				  struct mmbench_ctx *ctx, u64 ns, long *moved)
{
	long before = b->read(ctx);
	u64 start = ktime_get_ns();

	do {
		usleep_range(USEC_PER_MSEC, 2 * USEC_PER_MSEC);
		*moved = b->read(ctx) - before;
	} while (!*moved && ktime_get_ns() - start < ns &&
		 !kthread_should_stop());
	return *moved;
}

/*
 * Other tasks write vmstat counters too.  A row whose counter is off fails
 * only if MMBENCH_RECHECKS more samples each leave it off and it then stays
 * put as long with no op; else it is noisy.  Returns false for the row's
 * own count, which it does not judge.
 */
static bool mmbench_counter_recheck(const struct mmbench_bench *b,
				    struct mmbench_ctx *ctx,
				    struct mmbench_result *r)
{
	long again = r->counter_delta, moved = 0;
	struct mmbench_sample s;
	int i;
	u64 ns;

/* series: page_alloc */
	if (b->read == outstanding_read)
		return false;
/* series: end */
	for (i = 0; i < MMBENCH_RECHECKS && !kthread_should_stop(); i++) {
		ns = ktime_get_ns();
		ctx->before = b->read(ctx);
		mmbench_sample(b, ctx, &s);
		again = mmbench_counter_delta(b, ctx);
		ns = ktime_get_ns() - ns;
		ns = max_t(u64, ns, MMBENCH_WATCH_NS);
		if (mmbench_counter_moves(b, ctx, ns, &moved) || !again)
			break;
	}
	if (!moved && again && kthread_should_stop())
		mmbench_set(r, MMBENCH_ERROR,
			    "counter off by %ld after the run; stopped before its recheck ended",
			    r->counter_delta);
	else if (moved)
		mmbench_set(r, MMBENCH_NOISY,
			    "counter off by %ld after the run, by %ld after one more sample of %u ops, moved by %ld without ops: another task writes it",
			    r->counter_delta, again, ctx->ops, moved);
	else if (!again)
		mmbench_set(r, MMBENCH_NOISY,
			    "counter off by %ld after the run, back after one more sample of %u ops, still without ops: not reproduced",
			    r->counter_delta, ctx->ops);
	else
		mmbench_set(r, MMBENCH_FAIL,
			    "counter off by %ld after the run, by %ld after the last of %d more samples of %u ops, still without ops as long",
			    r->counter_delta, again, MMBENCH_RECHECKS, ctx->ops);
	return true;
}

/* Take the samples of one row and judge them; fills row->result. */
static void mmbench_row_run(struct mmbench_row *row, struct mmbench_ctx *ctx,
			    struct mmbench_run *run)
{
	const struct mmbench_bench *b = row->bench;
	struct mmbench_result *r = &row->result;
	u32 kept = 0, attempts = 0, ops;
	struct mmbench_sample s;
/* series: page_alloc */
	long free_before = 0;
/* series: end */
	u64 start;
	int ret;

	r->cpu = raw_smp_processor_id();
	if (mmbench_stopping(run)) {
		/* A budget too short for the run is not the path's fault. */
		if (kthread_should_stop())
			mmbench_set(r, MMBENCH_ERROR, "stopped");
		else
			mmbench_set(r, MMBENCH_UNSUPPORTED,
				    "budget_ms ran out before it started");
		return;
	}
	/* Checked after: mmbench_stop_thread() moves a stopped thread. */
	if (r->cpu != run->cpu) {
		mmbench_set(r, MMBENCH_ERROR,
			    "on CPU %d, not %d: CPU %d went offline",
			    r->cpu, run->cpu, run->cpu);
		return;
	}

	ctx->bench = b;
	ctx->abort = NULL;
	ctx->arg = row->arg;
	ctx->slow = row->slow;
	ctx->delta = 1;
/* series: page_alloc */
	/* A sample has whole bulks, or batches (pages_batch_setup()). */
	ctx->unit = b->list == &mmbench_bulk ? row->arg : 1;
	memset(&ctx->n, 0, sizeof(ctx->n));
/* series: end */
/* series: cpus */
	ctx->sized = false;
	ctx->kept = false;
/* series: end */
	if (b->read)
		ctx->before = b->read(ctx);
/* series: page_alloc */
	if (b->pages_back)
		free_before = mmbench_free_pages(ctx->pgdat);
/* series: end */
	ret = b->setup ? b->setup(ctx, r->reason) : 0;
	if (ret) {
		/* Nothing ran: nothing to report. */
		r->status = ret == -EOPNOTSUPP ? MMBENCH_UNSUPPORTED :
						 MMBENCH_ERROR;
		if (!r->reason[0])
			mmbench_set(r, r->status, "setup failed: %d", ret);
		return;
	}

	start = ktime_get_ns();
/* series: page_alloc */
	mmbench_set_fault_mark(current, mmbench_make_it_fail);
/* series: end */
	ops = mmbench_size(b, ctx, run, r);
	ctx->ops = ops;
/* series: cpus */
	ctx->sized = true;
/* series: end */
	if (!ctx->abort)
		mmbench_sample(b, ctx, &s);	/* warm-up at the final size */
	while (kept < mmbench_samples && attempts++ < 2 * mmbench_samples + 8) {
		cond_resched();
		/* The row's own budget leaves it one sample at least. */
		if (ctx->abort || mmbench_stopping(run) ||
		    (kept && ktime_get_ns() - start > run->row_budget_ns))
			break;
		mmbench_sample(b, ctx, &s);
		if (s.migrated) {
			r->migrated++;
		} else if (s.preempted) {
			r->preempted++;
		} else if (s.stolen) {
			r->stolen++;
		} else {
			s.ns -= min(s.ns, run->clock_ns * s.reads);
			s.cycles -= min(s.cycles, run->clock_cycles * s.reads);
			run->ps[kept] = div_u64(s.ns * 1000, ops);
			run->mcyc[kept] = div_u64(s.cycles * 1000, ops);
			kept++;
/* series: cpus */
			if (b->team)
				r->skew_ns = max(r->skew_ns, ctx->team_skew);
/* series: end */
		}
	}
/* series: page_alloc */
	/* An allocator's untimed sample that marks and checks each block. */
	if (b->read == outstanding_read && !ctx->abort &&
	    !kthread_should_stop()) {
		ctx->verify = true;
		mmbench_sample(b, ctx, &s);
		ctx->verify = false;
	}
	mmbench_set_fault_mark(current, 0);
/* series: end */
/* series: cpus */
	if (ctx->team) {
		r->team_cpus = ctx->team->nr;
		r->pair_cpus[0] = ctx->team->w[0].cpu;
		r->pair_cpus[1] = ctx->team->w[ctx->team->nr - 1].cpu;
	}
/* series: end */
	if (b->teardown)
		b->teardown(ctx);

	r->ops = ops;
	r->samples = kept;
	r->dropped = r->preempted + r->migrated + r->stolen;
	if (b->read)
		r->counter_delta = mmbench_counter_delta(b, ctx);
/* series: page_alloc */
	if (b->pages_back) {
		r->free_pages_delta = mmbench_free_pages(ctx->pgdat) -
				      free_before;
		r->free_pages_slack = mmbench_free_pages_slack(ctx);
	}
/* series: end */
	if (kept) {
		/* In the order taken: mmbench_summarise() sorts them. */
		memcpy(row->sample_ps, run->ps, kept * sizeof(*run->ps));
		mmbench_summarise(run->ps, kept, &r->ns);
		r->cycles = mmbench_median(run->mcyc, kept);
		if (kept >= MMBENCH_MIN_NOISE_SAMPLES)
			r->noise = div64_u64(r->ns.mad * 100000,
					     max(r->ns.median, 1ULL));
	}

	/* What the path did is judged first: no timing trouble hides it. */
	if (b->read && r->counter_delta && mmbench_counter_recheck(b, ctx, r)) {
		/* Judged there, with the counter's figures. */
	} else if (b->read && r->counter_delta) {
		mmbench_set(r, MMBENCH_FAIL, "counter off by %ld after the run",
			    r->counter_delta);
/* series: page_alloc */
	} else if (b->pages_back &&
		   r->free_pages_delta < -r->free_pages_slack) {
		mmbench_set(r, MMBENCH_FAIL,
			    "%ld fewer free pages after the run (slack %ld)",
			    -r->free_pages_delta, r->free_pages_slack);
	} else if (ctx->n.corrupt) {
		mmbench_set(r, MMBENCH_FAIL,
			    "%llu blocks lost the marks written at allocation",
			    ctx->n.corrupt);
/* series: end */
/* series: cpus */
	} else if (ctx->kept) {
		mmbench_set(r, MMBENCH_UNSUPPORTED, "%s", ctx->abort);
/* series: end */
	} else if (ctx->abort) {
		mmbench_set(r, MMBENCH_ERROR, "%s", ctx->abort);
	} else if (kthread_should_stop()) {
		mmbench_set(r, MMBENCH_ERROR, "stopped");
	} else if (raw_smp_processor_id() != run->cpu) {
		mmbench_set(r, MMBENCH_ERROR,
			    "moved from CPU %d to CPU %d: CPU %d went offline",
			    run->cpu, raw_smp_processor_id(), run->cpu);
/* series: page_alloc */
	} else if (ctx->n.failed) {
		mmbench_set(r, MMBENCH_UNSUPPORTED,
			    "%llu allocation calls failed, %llu objects allocated: short of memory for this order, size or bulk, or fault injection",
			    ctx->n.failed, ctx->n.allocs);
/* series: end */
	} else if (!kept && !r->dropped) {
		mmbench_set(r, MMBENCH_UNSUPPORTED,
			    "budget_ms ran out before a sample was kept");
	} else if (!kept) {
		/* The machine, not the path; ctx->why keeps the remarks. */
		strscpy(ctx->why, r->reason);
		mmbench_set(r, MMBENCH_NOISY,
			    "every sample dropped: %u preempted, %u migrated, %u with steal time",
			    r->preempted, r->migrated, r->stolen);
		if (ctx->why[0])
			mmbench_remark(r->reason, "%s", ctx->why);
	} else {
		r->status = MMBENCH_PASS;
		if (kept < mmbench_samples)
			mmbench_remark(r->reason, "%u of %u samples: %s",
				       kept, mmbench_samples,
				       attempts > 2 * mmbench_samples + 8 ?
				       "too many dropped" : "budget_ms ran out");
	}
}

/* Net figures against the baseline's. */
static void mmbench_judge(struct mmbench_row *row,
			  const struct mmbench_result *base)
{
	struct mmbench_result *r = &row->result;

	if (!r->samples)
		return;
	r->net_ns = (s64)r->ns.median - base->ns.median;
	if (r->cycles && base->cycles)
		r->net_cycles = (s64)r->cycles - base->cycles;
}

/* Time the baseline again, keep the lower; its drift in 1/1000 %. */
static s64 mmbench_rebaseline(struct mmbench_row *row,
			      struct mmbench_ctx *ctx, struct mmbench_run *run)
{
	struct mmbench_result first = row->result;
	size_t size = first.samples * sizeof(*row->sample_ps);
	s64 drift = MMBENCH_NONE;
	u64 *first_ps;

	if (first.status != MMBENCH_PASS)
		return MMBENCH_NONE;
	first_ps = kmemdup(row->sample_ps, size, GFP_KERNEL);
	if (!first_ps)
		return MMBENCH_NONE;
	mmbench_result_reset(&row->result);
	mmbench_row_run(row, ctx, run);
	if (row->result.status == MMBENCH_PASS)
		drift = div64_s64(((s64)row->result.ns.median -
				   (s64)first.ns.median) * 100000,
				  max_t(s64, first.ns.median, 1));
	if (drift == MMBENCH_NONE ||
	    row->result.ns.median >= first.ns.median) {
		row->result = first;
		memcpy(row->sample_ps, first_ps, size);
	}
	kfree(first_ps);
	if (drift != MMBENCH_NONE && !row->result.reason[0])
		strscpy(row->result.reason,
			"lower median of two runs, before and after the benchmarks");
	return drift;
}

/* The row in the kernel log. */
static void mmbench_log(const struct mmbench_row *row)
{
	const struct mmbench_result *r = &row->result;
	u32 ns_frac, cycles_frac;
	u64 ns, cycles;

	if (r->status != MMBENCH_PASS) {
		pr_info("%s: %s: %s\n", row->name,
			mmbench_status_names[r->status], r->reason);
		return;
	}
	/* div_u64_rem(): a 32-bit build has no 64-bit '/' of its own. */
	ns = div_u64_rem(r->ns.median, 1000, &ns_frac);
	cycles = div_u64_rem(r->cycles, 1000, &cycles_frac);
	pr_info("%s: median %llu.%03u ns, net %lld ps, %llu.%03u %s per op (%s), %s, %u samples of %u ops on CPU %d, dropped %u preempted, %u migrated, %u with steal time\n",
		row->name, ns, ns_frac, r->net_ns, cycles, cycles_frac,
		IS_ENABLED(CONFIG_X86_TSC) ? "TSC ticks" : "get_cycles() ticks",
		row->bench->unit, row->bench->irqoff ? "irqoff" : "preempt",
		r->samples, r->ops, r->cpu, r->preempted, r->migrated,
		r->stolen);
/* series: cpus */
	if (row->bench->team == MMBENCH_TEAM_ALL)
		pr_info("%s: %u CPUs, start skew at most %llu ns\n", row->name,
			r->team_cpus, r->skew_ns);
	else if (row->bench->team == MMBENCH_TEAM_PAIR)
		pr_info("%s: push_cpu %d, pop_cpu %d, start skew at most %llu ns\n",
			row->name, r->pair_cpus[0], r->pair_cpus[1],
			r->skew_ns);
/* series: end */
}

/* A sample around nothing: what reading the clocks costs. */
static const struct mmbench_bench mmbench_clock_bench = { .irqoff = true };

/* The clock's read cost and step; NULL, or why it cannot time a sample. */
static const char *mmbench_clock(struct mmbench_run *run,
				 struct mmbench_ctx *ctx, char *why)
{
	u64 ns[15], cycles[15], t, u, step = U64_MAX;
	struct mmbench_sample s;
	unsigned long n;
	int i;

	for (i = 0; i < 3 && !kthread_should_stop(); i++) {
		cond_resched();
		t = ktime_get_ns();
		for (n = 0; (u = ktime_get_ns()) == t && n < 1000000; n++)
			cpu_relax();
		if (u != t)
			step = min(step, u - t);
	}
	if (step == U64_MAX)
		return "ktime_get_ns() did not move in 1000000 reads";
	for (i = 0; i < ARRAY_SIZE(ns); i++) {
		mmbench_sample(&mmbench_clock_bench, ctx, &s);
		ns[i] = s.ns;
		cycles[i] = s.cycles;
	}
	run->clock_ns = mmbench_median(ns, ARRAY_SIZE(ns));
	run->clock_cycles = mmbench_median(cycles, ARRAY_SIZE(cycles));
	run->clock_step_ns = step;
	run->min_sample_ns = MMBENCH_CLOCK_SHARE * max(step, run->clock_ns);
	if (run->min_sample_ns > MMBENCH_MAX_SAMPLE_NS) {
		scnprintf(why, MMBENCH_REASON_LEN,
			  "ktime_get_ns() steps %llu ns, reads cost %llu ns: a sample would need %llu ms, limit 100 ms",
			  step, run->clock_ns,
			  div_u64(run->min_sample_ns, NSEC_PER_MSEC));
		return why;
	}
	return NULL;
}

static int mmbench_thread(void *data)
{
	struct mmbench_run run = { .cpu = (long)data };
	struct mmbench_ctx ctx = { };
	const struct mmbench_result *base;
	char clock_why[MMBENCH_REASON_LEN];
	const char *clock_error, *no_run = NULL;
	unsigned int i;
	u64 start = ktime_get_ns();
	s64 drift = MMBENCH_NONE;

	if (cmpxchg(&mmbench_claim, 0, 1))
		return 0;
	complete(&mmbench_started);
	run.deadline = start + (u64)mmbench_budget_ms * NSEC_PER_MSEC;
	run.row_budget_ns = div_u64((u64)mmbench_budget_ms * NSEC_PER_MSEC,
				    mmbench_nr_rows);
	run.ps = kcalloc(mmbench_samples, sizeof(*run.ps), GFP_KERNEL);
	run.mcyc = kcalloc(mmbench_samples, sizeof(*run.mcyc), GFP_KERNEL);
	/* Short of memory, say so in the results, not through the OOM killer. */
	ctx.page = alloc_page(MMBENCH_GFP_MAYFAIL);
	if (ctx.page) {
		ctx.zone = page_zone(ctx.page);
		ctx.pgdat = page_pgdat(ctx.page);
	}
	clock_error = mmbench_clock(&run, &ctx, clock_why);
	if (!run.ps || !run.mcyc || !ctx.page)
		no_run = "out of memory";
/* series: page_alloc */
	ctx.ptrs = kvcalloc(MMBENCH_MAX_BATCH, sizeof(*ctx.ptrs),
			    GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!ctx.ptrs)
		no_run = "out of memory";
/* series: end */

	for (i = 0; i < mmbench_nr_rows; i++) {
		struct mmbench_row *row = &mmbench_rows[i];

		if (no_run || clock_error) {
			/* The machine's clock is not the path's fault. */
			mmbench_set(&row->result, no_run ? MMBENCH_ERROR :
				    MMBENCH_UNSUPPORTED, "%s",
				    no_run ?: clock_error);
			continue;
		}
		mmbench_row_run(row, &ctx, &run);
	}
	/* Row 0 is the baseline, which always runs. */
	if (!no_run && !clock_error)
		drift = mmbench_rebaseline(&mmbench_rows[0], &ctx, &run);
	base = &mmbench_rows[0].result;
	for (i = 0; i < mmbench_nr_rows; i++) {
		struct mmbench_result *r = &mmbench_rows[i].result;

		if (base->status == MMBENCH_PASS)
			mmbench_judge(&mmbench_rows[i], base);
		else if (r->status == MMBENCH_PASS)
			/* Without a baseline nothing can be judged. */
			mmbench_set(r, base->status == MMBENCH_NOISY ?
				    MMBENCH_NOISY : MMBENCH_ERROR,
				    "no baseline: see the baseline's reason");
		mmbench_log(&mmbench_rows[i]);
	}

	if (ctx.page)
		__free_page(ctx.page);
/* series: page_alloc */
	kvfree(ctx.ptrs);
/* series: end */
	kfree(run.mcyc);
	kfree(run.ps);

	mmbench_run_ns = ktime_get_ns() - start;
	mmbench_drift = drift;
	/* Measured even when too coarse to time a sample: say how coarse. */
	mmbench_clock_ns = run.clock_ns;
	mmbench_clock_step_ns = run.clock_step_ns;
	complete(&mmbench_done);
	return 0;
}

/*
 * Run on the chosen CPU: 0 (every row unsupported if the thread did not
 * start), -EINVAL (offline), -EINTR, or the thread's error.
 */
static int mmbench_run(void)
{
	int cpu = mmbench_cpu;
	struct task_struct *task;
	unsigned long stall = nsecs_to_jiffies(MMBENCH_STALL_NS);
	struct mmbench_cpu_time then;
	char why[MMBENCH_REASON_LEN];
	unsigned int i;
	bool kept;
	long ret;

	if (cpu < 0) {
		rcu_read_lock();	/* newer kernels change it at run time */
		cpu = cpumask_first_and(cpu_online_mask,
					housekeeping_cpumask(HK_TYPE_DOMAIN));
		rcu_read_unlock();
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	if (!cpu_online(cpu)) {
		pr_err("cpu=%d is no longer online\n", cpu);
		return -EINVAL;
	}
	task = kthread_create_on_cpu(mmbench_thread, (void *)(long)cpu, cpu,
				     "mmbench/%u");
	if (IS_ERR(task))
		return PTR_ERR(task);
	/* Pinned: stopped below whether or not it ran to the end. */
	get_task_struct(task);
	mmbench_cpu_time(cpu, &then);
	wake_up_process(task);
	/* Published: cpu reads back the CPU of the run. */
	mmbench_cpu = cpu;
	ret = wait_for_completion_killable_timeout(&mmbench_started, stall);
	if (ret < 0) {
		ret = -EINTR;
	} else if (!ret && !cmpxchg(&mmbench_claim, 0, 2)) {
		snprintf(why, sizeof(why),
			 "CPU %d did not run the module's thread within 2 s",
			 cpu);
		kept = mmbench_cpu_kept(cpu, &then, MMBENCH_STALL_NS, why);
		pr_warn("%s; every row %s\n", why,
			kept ? "unsupported" : "an error");
		for (i = 0; i < mmbench_nr_rows; i++)
			mmbench_set(&mmbench_rows[i].result, kept ?
				    MMBENCH_UNSUPPORTED : MMBENCH_ERROR,
				    "%s", why);
	} else {
		ret = wait_for_completion_killable(&mmbench_done) ? -EINTR : 0;
	}
	mmbench_stop_thread(task);
	return ret;
}

/* ---- sysfs ---- */

/* @v in 1/1000 as a decimal with three places. */
static ssize_t emit_fixed(char *buf, s64 v)
{
	u64 whole;
	u32 frac;

	if (v == MMBENCH_NONE)
		return sysfs_emit(buf, "none\n");
	whole = div_u64_rem(abs(v), 1000, &frac);
	return sysfs_emit(buf, "%s%llu.%03u\n", v < 0 ? "-" : "", whole,
			  frac);
}

/* How a row's file prints the field it shows. */
enum mmbench_fmt {
	MMBENCH_FMT_U32,
	MMBENCH_FMT_INT,
	MMBENCH_FMT_LONG,	/* MMBENCH_NONE_LONG as "none" */
	MMBENCH_FMT_FIXED,	/* s64 in 1/1000, MMBENCH_NONE as "none" */
	MMBENCH_FMT_PER_OP,	/* u64 in 1/1000, "none" without samples */
	MMBENCH_FMT_STR,
	MMBENCH_FMT_GROUP,	/* the group of the benchmark pointed to */
	MMBENCH_FMT_STATUS,
	MMBENCH_FMT_CONTEXT,
	MMBENCH_FMT_SAMPLES,	/* the row's kept samples */
};

/* The kept samples' ns/op in the order taken; -EOVERFLOW past a page. */
static ssize_t emit_samples(char *buf, const struct mmbench_row *row)
{
	ssize_t len = 0;
	char one[32];
	u32 i, frac;
	u64 whole;
	int n;

	for (i = 0; i < row->result.samples; i++) {
		whole = div_u64_rem(row->sample_ps[i], 1000, &frac);
		n = scnprintf(one, sizeof(one), "%s%llu.%03u", i ? " " : "",
			      whole, frac);
		if (len + n + 1 >= PAGE_SIZE)	/* and the newline */
			return -EOVERFLOW;
		len += sysfs_emit_at(buf, len, "%s", one);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

/* A row's file: the field at @offset as @fmt, if the row shows @only. */
struct mmbench_attr {
	struct attribute attr;
	unsigned short offset;
	unsigned short fmt;
	unsigned short only;
};

static ssize_t mmbench_row_show(struct kobject *kobj, struct attribute *attr,
				char *buf)
{
	const struct mmbench_attr *a = container_of(attr, struct mmbench_attr,
						    attr);
	struct mmbench_row *row = container_of(kobj, struct mmbench_row, kobj);
	const void *p = (const void *)row + a->offset;
	ssize_t ret;

	switch (a->fmt) {
	case MMBENCH_FMT_U32:
		ret = sysfs_emit(buf, "%u\n", *(const u32 *)p);
		break;
	case MMBENCH_FMT_INT:
		ret = sysfs_emit(buf, "%d\n", *(const int *)p);
		break;
	case MMBENCH_FMT_LONG:
		ret = *(const long *)p == MMBENCH_NONE_LONG ?
		      sysfs_emit(buf, "none\n") :
		      sysfs_emit(buf, "%ld\n", *(const long *)p);
		break;
	case MMBENCH_FMT_FIXED:
		ret = emit_fixed(buf, *(const s64 *)p);
		break;
	case MMBENCH_FMT_PER_OP:
		ret = emit_fixed(buf, row->result.samples ? *(const u64 *)p :
					MMBENCH_NONE);
		break;
	case MMBENCH_FMT_STR:
		ret = sysfs_emit(buf, "%s\n", (const char *)p);
		break;
	case MMBENCH_FMT_GROUP:
		ret = sysfs_emit(buf, "%s\n", row->bench->group);
		break;
	case MMBENCH_FMT_STATUS:
		ret = sysfs_emit(buf, "%s\n",
				 mmbench_status_names[row->result.status]);
		break;
	case MMBENCH_FMT_CONTEXT:
		ret = sysfs_emit(buf, "%s\n",
				 row->bench->irqoff ? "irqoff" : "preempt");
		break;
	case MMBENCH_FMT_SAMPLES:
		ret = emit_samples(buf, row);
		break;
	default:
		ret = -EINVAL;
	}
	return ret;
}

#define MMBENCH_ATTR(_name, _field, _fmt, _only)			\
	{								\
		.attr = { .name = __stringify(_name), .mode = 0444 },	\
		.offset = offsetof(struct mmbench_row, _field),		\
		.fmt = MMBENCH_FMT_##_fmt,				\
		.only = _only,						\
	}

static struct mmbench_attr mmbench_row_attr[] = {
	MMBENCH_ATTR(status, result.status, STATUS, 0),
	MMBENCH_ATTR(reason, result.reason, STR, 0),
	MMBENCH_ATTR(group, bench, GROUP, 0),
	MMBENCH_ATTR(cpu, result.cpu, INT, 0),
	MMBENCH_ATTR(context, bench, CONTEXT, 0),
	MMBENCH_ATTR(samples, result.samples, U32, 0),
	MMBENCH_ATTR(samples_dropped, result.dropped, U32, 0),
	MMBENCH_ATTR(ops_per_sample, result.ops, U32, 0),
	MMBENCH_ATTR(noise_pct, result.noise, FIXED, 0),
	MMBENCH_ATTR(ns_per_op_min, result.ns.min, PER_OP, 0),
	MMBENCH_ATTR(ns_per_op_median, result.ns.median, PER_OP, 0),
	MMBENCH_ATTR(ns_per_op_mad, result.ns.mad, PER_OP, 0),
	MMBENCH_ATTR(net_ns_per_op, result.net_ns, FIXED, 0),
	MMBENCH_ATTR(sample_ns, sample_ps, SAMPLES, 0),
	MMBENCH_ATTR(net_cycles_per_op, result.net_cycles, FIXED,
		     MMBENCH_SHOWS_CYCLES),
	MMBENCH_ATTR(delay_ns, arg, U32, MMBENCH_SHOWS_DELAY),
	MMBENCH_ATTR(slow_ops, slow, U32, MMBENCH_SHOWS_SLOW),
	MMBENCH_ATTR(counter_delta, result.counter_delta, LONG,
		     MMBENCH_SHOWS_COUNTER),
/* series: page_alloc */
	MMBENCH_ATTR(order, arg, U32, MMBENCH_SHOWS_ORDER),
	MMBENCH_ATTR(bulk, arg, U32, MMBENCH_SHOWS_BULK),
	MMBENCH_ATTR(free_pages_delta, result.free_pages_delta, LONG,
		     MMBENCH_SHOWS_PAGES),
/* series: end */
/* series: slab */
	MMBENCH_ATTR(size_bytes, arg, U32, MMBENCH_SHOWS_SIZE),
/* series: end */
/* series: cpus */
	MMBENCH_ATTR(team_cpus, result.team_cpus, U32, MMBENCH_SHOWS_TEAM),
/* series: end */
};

/* Filled from mmbench_row_attr[] at init. */
static struct attribute *mmbench_row_attrs[ARRAY_SIZE(mmbench_row_attr) + 1];

static umode_t mmbench_row_visible(struct kobject *kobj,
				   struct attribute *attr, int n)
{
	const struct mmbench_row *row = container_of(kobj, struct mmbench_row,
						     kobj);
	const struct mmbench_attr *a = container_of(attr, struct mmbench_attr,
						    attr);

	return (row->shows & a->only) == a->only ? attr->mode : 0;
}

static const struct attribute_group mmbench_row_group = {
	.attrs = mmbench_row_attrs,
	.is_visible = mmbench_row_visible,
};
__ATTRIBUTE_GROUPS(mmbench_row);

/* The module's exit waits for each row's release, which may come late. */
static atomic_t mmbench_rows_alive = ATOMIC_INIT(0);
static DECLARE_COMPLETION(mmbench_rows_released);

static void mmbench_row_release(struct kobject *kobj)
{
	if (atomic_dec_and_test(&mmbench_rows_alive))
		complete(&mmbench_rows_released);
}

static const struct sysfs_ops mmbench_row_sysfs_ops = {
	.show = mmbench_row_show,
};

static const struct kobj_type mmbench_row_ktype = {
	.release = mmbench_row_release,
	.sysfs_ops = &mmbench_row_sysfs_ops,
	.default_groups = mmbench_row_groups,
};

static char fp_debug[160];

static const char *mmbench_preempt_model(void)
{
	if (preempt_model_rt())
		return "rt";
	if (preempt_model_full())
		return "full";
	if (preempt_model_lazy())
		return "lazy";
	if (preempt_model_voluntary())
		return "voluntary";
	if (preempt_model_none())
		return "none";
	return "unknown";
}

/* Options on in this kernel that make mm paths cost more. */
static void mmbench_debug_options(void)
{
	static const struct {
		bool on;
		const char *name;
	} opts[] = {
		{ IS_ENABLED(CONFIG_KASAN), "kasan" },
		{ IS_ENABLED(CONFIG_KMSAN), "kmsan" },
		{ IS_ENABLED(CONFIG_KCSAN), "kcsan" },
		{ IS_ENABLED(CONFIG_DEBUG_KMEMLEAK), "kmemleak" },
		{ IS_ENABLED(CONFIG_LOCKDEP), "lockdep" },
		{ IS_ENABLED(CONFIG_DEBUG_PREEMPT), "debug_preempt" },
		{ IS_ENABLED(CONFIG_DEBUG_VM), "debug_vm" },
		{ IS_ENABLED(CONFIG_SLUB_DEBUG_ON), "slub_debug_on" },
	};
	size_t i, len = 0;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (opts[i].on)
			len += scnprintf(fp_debug + len, sizeof(fp_debug) - len,
					 "%s%s", len ? " " : "", opts[i].name);
	if (debug_pagealloc_enabled())
		len += scnprintf(fp_debug + len, sizeof(fp_debug) - len,
				 "%sdebug_pagealloc", len ? " " : "");
	if (!len)
		strscpy(fp_debug, "none");
}

/* The files of /sys/kernel/mmbench/ and of its fingerprint/. */
#define MMBENCH_RO(_name, _emit)					\
static ssize_t mmbench_##_name##_show(struct kobject *kobj,		\
				      struct kobj_attribute *attr,	\
				      char *buf)			\
{									\
	return _emit;							\
}									\
static struct kobj_attribute mmbench_attr_##_name =			\
	__ATTR(_name, 0444, mmbench_##_name##_show, NULL)

MMBENCH_RO(run_ms, sysfs_emit(buf, "%llu\n",
			      div_u64(mmbench_run_ns, NSEC_PER_MSEC)));
MMBENCH_RO(baseline_drift_pct, emit_fixed(buf, mmbench_drift));
MMBENCH_RO(clock_read_ns, sysfs_emit(buf, "%llu\n", mmbench_clock_ns));
MMBENCH_RO(clock_step_ns, sysfs_emit(buf, "%llu\n", mmbench_clock_step_ns));
MMBENCH_RO(preempt, sysfs_emit(buf, "%s\n", mmbench_preempt_model()));
MMBENCH_RO(debug, sysfs_emit(buf, "%s\n", fp_debug));
MMBENCH_RO(init_on_alloc,
	   sysfs_emit(buf, "%d\n", want_init_on_alloc(GFP_KERNEL)));
MMBENCH_RO(init_on_free, sysfs_emit(buf, "%d\n", want_init_on_free()));

static struct attribute *mmbench_top_attrs[] = {
	&mmbench_attr_run_ms.attr,
	&mmbench_attr_baseline_drift_pct.attr,
	&mmbench_attr_clock_read_ns.attr,
	&mmbench_attr_clock_step_ns.attr,
	NULL,
};

static struct attribute *mmbench_fp_attrs[] = {
	&mmbench_attr_preempt.attr,
	&mmbench_attr_debug.attr,
	&mmbench_attr_init_on_alloc.attr,
	&mmbench_attr_init_on_free.attr,
	NULL,
};

static const struct attribute_group mmbench_top_group = {
	.attrs = mmbench_top_attrs,
};

static const struct attribute_group mmbench_fp_group = {
	.name = "fingerprint",
	.attrs = mmbench_fp_attrs,
};

static const struct attribute_group *mmbench_top_groups[] = {
	&mmbench_top_group,
	&mmbench_fp_group,
	NULL,
};

static struct kobject *mmbench_kobj;

/* Rows whose kobject was initialised, and of those the ones in sysfs. */
static unsigned int mmbench_rows_inited;
static unsigned int mmbench_rows_added;

/* The files go now, waiting for their readers; the rows once released. */
static void mmbench_sysfs_remove(void)
{
	unsigned int i;

	for (i = 0; i < mmbench_rows_added; i++) {
		kobject_del(&mmbench_rows[i].kobj);
		kobject_put(&mmbench_rows[i].kobj);
	}
	if (!atomic_dec_and_test(&mmbench_rows_alive))
		wait_for_completion(&mmbench_rows_released);
#ifdef CONFIG_DEBUG_KOBJECT_RELEASE
	/*
	 * A delayed release still returns through mmbench_row_release()
	 * after its complete(): wait for it to leave the module's text.
	 */
	for (i = 0; i < mmbench_rows_inited; i++)
		flush_delayed_work(&mmbench_rows[i].kobj.release);
#endif
	kobject_del(mmbench_kobj);
	kobject_put(mmbench_kobj);
}

static int mmbench_sysfs_create(void)
{
	struct mmbench_row *row;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(mmbench_row_attr); i++)
		mmbench_row_attrs[i] = &mmbench_row_attr[i].attr;
	/* One reference of the rows' count is mmbench_sysfs_remove()'s. */
	atomic_set(&mmbench_rows_alive, 1);
	mmbench_kobj = kobject_create_and_add("mmbench", kernel_kobj);
	if (!mmbench_kobj)
		return -ENOMEM;
	while (mmbench_rows_added < mmbench_nr_rows) {
		row = &mmbench_rows[mmbench_rows_added];
		atomic_inc(&mmbench_rows_alive);
		mmbench_rows_inited++;
		ret = kobject_init_and_add(&row->kobj, &mmbench_row_ktype,
					   mmbench_kobj, "%s", row->name);
		if (ret) {
			kobject_put(&row->kobj);
			goto err;
		}
		mmbench_rows_added++;
	}
	ret = sysfs_create_groups(mmbench_kobj, mmbench_top_groups);
	if (ret)
		goto err;
	return 0;
err:
	mmbench_sysfs_remove();
	return ret;
}

/* ---- rows ---- */

/* slow_into=ROW:STEPS,...: give each row named its steps. */
static int mmbench_slow_into_apply(void)
{
	unsigned int steps, n, i;
	struct mmbench_row *row;
	const char *entry, *colon;
	int len;

	for (n = 0; n < mmbench_nr_slow_into; n++) {
		entry = mmbench_slow_into[n];
		/* Its value in sysfs, 8 entries of them, fits a page. */
		if (strlen(entry) > MMBENCH_NAME_LEN + 6) {
			pr_err("slow_into: '%.20s...' is longer than ROW:STEPS can be\n",
			       entry);
			return -EINVAL;
		}
		colon = strrchr(entry, ':');
		if (!colon || colon == entry) {
			pr_err("slow_into: '%s' is not ROW:STEPS\n", entry);
			return -EINVAL;
		}
		if (parse_uint("slow_into", colon + 1, 1, MMBENCH_MAX_SLOW,
			       &steps))
			return -EINVAL;
		len = colon - entry;
		for (i = 0; i < mmbench_nr_rows; i++)
			if (!strncmp(mmbench_rows[i].name, entry, len) &&
			    !mmbench_rows[i].name[len])
				break;
		row = &mmbench_rows[i];
		if (i == mmbench_nr_rows || !i || row->slow) {
			pr_err("slow_into: %.*s: %s\n", len, entry,
			       i == mmbench_nr_rows ? "no such row in this load" :
			       !i ? "the baseline is what others are judged against" :
			       "given twice");
			return -EINVAL;
		}
		row->slow = steps;
		row->shows |= MMBENCH_SHOWS_SLOW;
	}
	return 0;
}

module_param_array_named(slow_into, mmbench_slow_into, charp,
			 &mmbench_nr_slow_into, 0444);
MODULE_PARM_DESC(slow_into,
		 "Test only: ROW:STEPS,... (up to 8) adds STEPS (1..10000) dependent ALU operations, timed, to each op of ROW: a known regression (alu_chain measures 1000 of them)");

/* The values of list parameter @l are in range, each once; or -EINVAL. */
static int mmbench_list_check(const struct mmbench_list *l)
{
	unsigned int i, j;

	for (i = 0; i < l->nr; i++) {
		if (l->vals[i] < l->min || l->vals[i] > l->max) {
			pr_err("%s: '%u' is not a number from %u to %u\n",
			       l->param, l->vals[i], l->min, l->max);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (l->vals[j] == l->vals[i]) {
				pr_err("%s: %u given twice\n", l->param,
				       l->vals[i]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static void mmbench_add_row(const struct mmbench_bench *b, u32 arg)
{
	struct mmbench_row *row = &mmbench_rows[mmbench_nr_rows++];

	row->bench = b;
	row->arg = arg;
	if (b->list)
		row->shows |= b->list->shows;
	if (b->read)
		row->shows |= MMBENCH_SHOWS_COUNTER;
/* series: page_alloc */
	if (b->pages_back)
		row->shows |= MMBENCH_SHOWS_PAGES;
/* series: end */
/* series: cpus */
	if (b->team)
		row->shows |= MMBENCH_SHOWS_TEAM;
/* series: end */
	if (IS_ENABLED(CONFIG_X86_TSC))
		row->shows |= MMBENCH_SHOWS_CYCLES;
	mmbench_result_reset(&row->result);
	if (b->list)
		scnprintf(row->name, sizeof(row->name), "%s_%s%u", b->name,
			  b->list->suffix, arg);
	else
		strscpy(row->name, b->name);
}

/* The baseline, then the selected benchmarks' rows. */
static int mmbench_build_rows(void)
{
	unsigned int i, max = 0;
	const struct mmbench_bench *b;
	u32 d;

	for (i = 0; i < MMBENCH_NR; i++) {
		b = &mmbench_benches[i];
		if (b->list && mmbench_list_check(b->list))
			return -EINVAL;
		if (!i || test_bit(i, mmbench_selected))
			max += b->list ? b->list->nr : 1;
	}
	mmbench_rows = kvcalloc(max, sizeof(*mmbench_rows), GFP_KERNEL);
	if (!mmbench_rows)
		return -ENOMEM;
	for (i = 0; i < MMBENCH_NR; i++) {
		b = &mmbench_benches[i];
		if (i && !test_bit(i, mmbench_selected))
			continue;
		for (d = 0; d < (b->list ? b->list->nr : 1); d++)
			mmbench_add_row(b, b->list ? b->list->vals[d] : 0);
	}
	mmbench_sample_buf = kvcalloc(mmbench_nr_rows * mmbench_samples,
				      sizeof(*mmbench_sample_buf), GFP_KERNEL);
	if (!mmbench_sample_buf)
		return -ENOMEM;
	for (i = 0; i < mmbench_nr_rows; i++)
		mmbench_rows[i].sample_ps = mmbench_sample_buf +
					    i * mmbench_samples;
	return mmbench_slow_into_apply();
}

static int __init test_mmbench_init(void)
{
	int ret;

	ret = mmbench_select();
	if (ret)
		return ret;
	mmbench_debug_options();
/* series: cpus */
	if (!mmbench_cpus_given) {
		rcu_read_lock();	/* newer kernels change it at run time */
		cpumask_and(&mmbench_cpus_mask, cpu_online_mask,
			    housekeeping_cpumask(HK_TYPE_DOMAIN));
		rcu_read_unlock();
	}
/* series: end */
/* series: page_alloc */
	if (mmbench_make_it_fail && !IS_ENABLED(CONFIG_FAULT_INJECTION)) {
		pr_err("make_it_fail: needs CONFIG_FAULT_INJECTION\n");
		return -EINVAL;
	}
/* series: end */
	ret = mmbench_build_rows();
	if (!ret)
		ret = mmbench_run();
	/* The results are whole and final before any file shows them. */
	if (!ret)
		ret = mmbench_sysfs_create();
	if (ret) {
		kvfree(mmbench_sample_buf);
		kvfree(mmbench_rows);
	}
	return ret;
}

static void __exit test_mmbench_exit(void)
{
	mmbench_sysfs_remove();
	kvfree(mmbench_sample_buf);
	kvfree(mmbench_rows);
}

module_init(test_mmbench_init);
module_exit(test_mmbench_exit);

MODULE_DESCRIPTION("Benchmarks of memory-management hot paths");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
