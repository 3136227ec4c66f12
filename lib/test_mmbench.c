// SPDX-License-Identifier: GPL-2.0
/*
 * test_mmbench.c - time memory-management hot paths from inside the kernel
 *
 * While it loads, the module runs each row of the selected benchmarks (one per value of a list
 * parameter) in a kernel thread bound to one CPU: it sizes a sample, warms up, times samples
 * of that many ops and drops those preempted, migrated or with steal time.  An allocator's row
 * then checks the blocks its path hands out, a vmstat row that its counter is back.  What each
 * row ran and measured stays in /sys/kernel/mmbench/ until the module is removed; the
 * kselftest mm/mmbench judges it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
/* series: numa */
#include <linux/kfence.h>
/* series: end */
#include <linux/kernel_stat.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
/* series: memcg */
#include <linux/memcontrol.h>
/* series: end */
#include <linux/mm.h>
#include <linux/module.h>
/* series: page_frag */
#include <linux/page_frag_cache.h>
/* series: end */
/* series: cpus */
#include <linux/ptr_ring.h>
/* series: end */
#include <linux/sched/isolation.h>
/* series: memcg */
#include <linux/sched/mm.h>
/* series: end */
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/vmstat.h>

/* May fail, and is counted: no warning, no hard reclaim, no OOM killer. */
#define MMBENCH_GFP		(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY)
#define MMBENCH_MAX_OPS		100000000U
#define MMBENCH_MAX_SAMPLES	250
/* Samples a row may take to keep @n; the names of those dropped fit a page. */
#define MMBENCH_ATTEMPTS(n)	(2 * (n) + 8)
/* Most ops with irqs off at once, or between two restores of a counter. */
#define MMBENCH_STRETCH		1024U
/* Latency buckets of ns: exact under 32, then 16 to a power of two, to 2^24. */
#define MMBENCH_BUCKETS		336
/* series: page_alloc */
#define MMBENCH_CHECK_BLOCKS	256U	/* most blocks a check takes */
/* series: end */
/* series: cpus */
#define MMBENCH_TEAM_MIN_OPS	256U	/* so that a team's costs hide */
/* series: end */

/* A row's status, and why a sample was dropped: each outranks the ones before. */
enum mmbench_status { MMBENCH_PASS, MMBENCH_UNSUPPORTED, MMBENCH_ERROR, MMBENCH_FAIL };
enum mmbench_drop { MMBENCH_KEPT, MMBENCH_STOLEN, MMBENCH_PREEMPTED, MMBENCH_MIGRATED };
static const char * const mmbench_status_names[] = { "pass", "unsupported", "error", "fail" };
static const char * const mmbench_drop_names[] = { "", "steal", "preempt", "migrate" };

/* A list parameter: a row per value, named <benchmark>_[<prefix>]<value>. */
struct mmbench_list {
	unsigned int vals[8], nr, min, max;	/* values, how many given; their range */
	const char *param, *prefix;
};

/* What a row's ops work on: on the run's CPU, or a worker's own. */
struct mmbench_ctx {
	const struct mmbench_bench *bench;
	struct mmbench_row *row;
	u32 ops, arg;			/* in the sample to run; the row's value */
	u32 size, unit;			/* bytes of a block; a sample has whole batches of unit */
	struct page *page;		/* of the zone and node vmstat ops hit */
	struct zone *zone;
	struct pglist_data *pgdat;
	long before;			/* the row's counter before it ran */
	u64 chain;			/* what alu_chain leaves */
/* series: page_alloc */
	u32 batch, align;		/* blocks per batch and check; alignment */
	void **ptrs;			/* holds a batch */
	u64 failed, bad;		/* calls that gave no block; bad blocks */
	u32 taken;			/* blocks of ptrs out, of a run timed op by op */
	bool check;			/* check blocks, untimed */
/* series: end */
/* series: slab */
	struct kmem_cache *cache;
/* series: end */
/* series: page_frag */
	struct page_frag_cache frag;
/* series: end */
/* series: cpus */
	struct mmbench_team *team;
	struct ptr_ring *tx, *rx;	/* a ring's: of the next CPU; this CPU's */
	int high, node;			/* pages its per-CPU lists may hold; __GFP_THISNODE's */
/* series: end */
/* series: memcg */
	long usage;			/* mmbench_memcg's pages before the row */
	long uncharged;			/* pages (slab: batches) held not charged */
/* series: end */
/* series: numa */
	u64 elsewhere;			/* blocks of its check on another node */
/* series: end */
};

/**
 * struct mmbench_bench - a benchmark: a row, or a row per value of @list
 * @name: its name in benchmarks=, and its rows' in sysfs
 * @list: the list parameter it has a row per value of, or NULL
 * @irqoff: its ops run with irqs off, MMBENCH_STRETCH at most at once
 * @size: bytes of a block its ops take, if the row's value is not that
 * @setup: untimed: 0; -EOPNOTSUPP, having said why with mmbench_set(); or another error
 * @teardown: undoes @setup
 * @prep: untimed, before each stretch of ops
 * @op: the timed region: ctx->ops ops
 * @restore: untimed, after each stretch: undoes what its ops did
 * @read: the vmstat counter its ops change, which must come back
 */
struct mmbench_bench {
	const char *name;
	struct mmbench_list *list;
	bool irqoff;
	u32 size;
	int (*setup)(struct mmbench_ctx *ctx);
	void (*teardown)(struct mmbench_ctx *ctx);
	void (*prep)(struct mmbench_ctx *ctx);
	void (*op)(struct mmbench_ctx *ctx);
	void (*restore)(struct mmbench_ctx *ctx);
	long (*read)(struct mmbench_ctx *ctx);
/* series: page_alloc */
	/** @pages: its blocks are struct page pointers */
	bool pages;
	/** @get: takes up to @n blocks into @p by @op's path; how many */
	unsigned int (*get)(struct mmbench_ctx *ctx, void **p, unsigned int n);
	/** @put: gives @n blocks of @p back by @op's path */
	void (*put)(struct mmbench_ctx *ctx, void **p, unsigned int n);
/* series: end */
/* series: cpus */
	/** @team: on several CPUs at once; a pair, @op then @pop, if @pop */
	bool team;
	/** @pop: the op of a pair's pop_cpu */
	void (*pop)(struct mmbench_ctx *ctx);
/* series: end */
/* series: memcg */
	/** @account: its blocks are charged to mmbench_memcg */
	bool account;
/* series: end */
/* series: numa */
	/** @remote: its blocks come from ctx->node, and are freed on this CPU */
	bool remote;
/* series: end */
};

/* A row: what it ran and measured, which its directory's files show. */
struct mmbench_row {
	const struct mmbench_bench *bench;
	u32 arg;			/* its value of the benchmark's list */
	char name[48];			/* e.g. "kmalloc_64" */
	struct kobject *kobj;
	enum mmbench_status status;
	char reason[200];		/* why not "pass", or remarks on one */
	struct cpumask cpus;		/* its ops ran on */
	u32 ops, kept, nr_dropped;	/* per sample; samples kept, dropped */
	u64 ns[MMBENCH_MAX_SAMPLES];	/* of each kept, in the order taken */
	u64 cycles[MMBENCH_MAX_SAMPLES];	/* get_cycles() ticks of each */
	u8 dropped[MMBENCH_ATTEMPTS(MMBENCH_MAX_SAMPLES)];	/* mmbench_drop */
	u64 slowest;			/* ns of the slowest op timed alone */
	u32 hist[MMBENCH_BUCKETS];	/* ops timed alone, by mmbench_bucket() */
};

struct mmbench_sample { u64 ns, cycles; enum mmbench_drop drop; };

static struct kobject *mmbench_kobj;
static struct mmbench_row *mmbench_rows;
static unsigned int mmbench_nr_rows;
static struct page *mmbench_page;
/* series: page_alloc */
static void **mmbench_ptrs;
/* series: end */
static const char *mmbench_preempt = "unknown";
static u64 mmbench_deadline;
static bool mmbench_stop;		/* the load was killed, or hung */
/* series: memcg */
static struct mem_cgroup *mmbench_memcg;	/* the loading task's, while the rows run */
/* series: end */
static DECLARE_COMPLETION(mmbench_done);

/* ---- parameters ---- */

static char *mmbench_names[32] = { "all" };
static unsigned int mmbench_nr_names = 1;
static unsigned int mmbench_iterations, mmbench_samples = 9, mmbench_sample_us = 2000;
static unsigned int mmbench_budget_ms = 60000, mmbench_tail_ops = 4096;
static int mmbench_cpu = -1;

module_param_array_named(benchmarks, mmbench_names, charp, &mmbench_nr_names, 0444);
MODULE_PARM_DESC(benchmarks,
		 "Comma-separated benchmarks, up to 32, or \"all\" (default all); the baseline always runs");
module_param_named(cpu, mmbench_cpu, int, 0444);
MODULE_PARM_DESC(cpu,
		 "CPU of the run, or -1 for the first online CPU that isolcpus= leaves to the scheduler (default -1)");

/* A read-only parameter from @lo to @hi: the load fails past them. */
#define MMBENCH_PARAM_UINT(_name, lo, hi)				\
static int _name##_set(const char *val, const struct kernel_param *kp)	\
{									\
	const unsigned int least = (lo), most = (hi);			\
									\
	if (!param_set_uint_minmax(val, kp, least, most))		\
		return 0;						\
	pr_err("%s: '%s' is not a number from %u to %u\n", kp->name, val, least, most); \
	return -EINVAL;							\
}									\
static const struct kernel_param_ops _name##_ops = {			\
	.set = _name##_set, .get = param_get_uint,			\
};									\
module_param_cb(_name, &_name##_ops, &mmbench_##_name, 0444)

MMBENCH_PARAM_UINT(iterations, 0, MMBENCH_MAX_OPS);
MODULE_PARM_DESC(iterations,
		 "Ops per sample, 1..100000000, or 0 to size samples to sample_us (default 0)");
MMBENCH_PARAM_UINT(samples, 1, MMBENCH_MAX_SAMPLES);
MODULE_PARM_DESC(samples, "Samples kept per row after a warm-up, 1..250 (default 9)");
MMBENCH_PARAM_UINT(sample_us, 100, 100000);
MODULE_PARM_DESC(sample_us, "Length of a sample when iterations=0, 100..100000 us (default 2000)");
MMBENCH_PARAM_UINT(budget_ms, 100, 600000);
MODULE_PARM_DESC(budget_ms, "Time the rows share, 100..600000 ms (default 60000)");
MMBENCH_PARAM_UINT(tail_ops, 0, 65536);
MODULE_PARM_DESC(tail_ops,
		 "Ops of each row on one CPU timed one at a time, for op_ns_hist, 0..65536 (default 4096)");

/* ---- timing engine ---- */

/* Raise @row's status to @status, if lower, and add why to its reason. */
static __printf(3, 4) void mmbench_set(struct mmbench_row *row, enum mmbench_status status,
				       const char *fmt, ...)
{
	size_t len = strlen(row->reason), size = sizeof(row->reason);
	va_list args;

	row->status = max(row->status, status);
	if (len)
		len += scnprintf(row->reason + len, size - len, "; ");
	va_start(args, fmt);
	vscnprintf(row->reason + len, size - len, fmt, args);
	va_end(args);
}

/* kthread_stop() waits for @task to run: first move it off a CPU another task may keep. */
static void mmbench_stop_thread(struct task_struct *task)
{
	set_cpus_allowed_ptr(task, cpumask_of(raw_smp_processor_id()));
	kthread_stop(task);
	put_task_struct(task);
}

/* series: cpus */
static void team_sample(struct mmbench_ctx *ctx, struct mmbench_sample *s);

/* series: end */
/* series: memcg */
/* Pages charged to mmbench_memcg; in @slack, those a CPU may hold precharged (stock, bytes). */
static long mmbench_usage(long *slack)
{
#ifdef CONFIG_MEMCG
	*slack = MEMCG_CHARGE_BATCH + 2;
	return page_counter_read(&mmbench_memcg->memory);
#else
	*slack = 0;
	return 0;
#endif
}

/* series: end */
/* series: page_alloc */
/* Write (@write) or check ~(the address of @p) in every word of it; pages: in each page's first. */
static bool mmbench_tag(const struct mmbench_ctx *ctx, void *p, bool write)
{
	u8 *b = ctx->bench->pages ? page_address(p) : p;
	unsigned long tag = ~(unsigned long)b;
	size_t off, n, step = ctx->bench->pages ? PAGE_SIZE : sizeof(tag);

	cond_resched();		/* up to 16 MiB a batch */
	for (off = 0; off < ctx->size; off += step) {
		n = min_t(size_t, ctx->size - off, sizeof(tag));
		if (write)
			memcpy(b + off, &tag, n);
		else if (memcmp(b + off, &tag, n))
			return false;
	}
	return !ctx->align || IS_ALIGNED((unsigned long)b, ctx->align);
}

/* Untimed: a batch by the row's path, tagged; then each handed out twice, or overlapping, fails. */
static void mmbench_check_batch(struct mmbench_ctx *ctx)
{
	unsigned int step = ctx->unit > 1 ? DIV_ROUND_UP(ctx->batch, 2) : 1;
	unsigned int n = 0, got = step, i, j, good = 0;
/* series: end */
/* series: memcg */
	long slack, usage = 0;
/* series: end */
/* series: page_alloc */

/* series: end */
/* series: memcg */
	if (ctx->bench->account)
		usage = mmbench_usage(&slack);
/* series: end */
/* series: page_alloc */
	while (got == step && n < ctx->batch) {	/* till a call falls short, or the last */
		got = ctx->bench->get(ctx, ctx->ptrs + n, min(step, ctx->batch - n));
		for (i = n, n += got; i < n; i++)
			mmbench_tag(ctx, ctx->ptrs[i], true);
	}
/* series: end */
/* series: memcg */
	/* Each page charged; the objects raised usage, but for all CPUs' precharge. */
	rcu_read_lock();	/* a kmem folio's memcg */
	for (i = 0; ctx->bench->account && ctx->bench->pages && i < n; i++)
		ctx->uncharged += folio_memcg(page_folio((struct page *)ctx->ptrs[i])) !=
				  mmbench_memcg;
	rcu_read_unlock();
	if (ctx->bench->account && !ctx->bench->pages)
		ctx->uncharged += (long)((u64)n * ctx->size >> PAGE_SHIFT) -
				  (mmbench_usage(&slack) - usage) > slack * num_online_cpus();
/* series: end */
/* series: numa */
	for (i = 0; ctx->bench->remote && i < n; i++)	/* KFENCE's pool is no node's */
		ctx->elsewhere += !is_kfence_address(ctx->ptrs[i]) && ctx->node !=
			(ctx->bench->pages ? page_to_nid(ctx->ptrs[i]) :
			 folio_nid(virt_to_folio(ctx->ptrs[i])));
/* series: end */
/* series: page_alloc */
	for (i = 0; i < n; i++) {
		ctx->bad += !mmbench_tag(ctx, ctx->ptrs[i], false);
		for (j = i + 1; j < n && ctx->ptrs[j] != ctx->ptrs[i]; j++)
			;
		ctx->bad += j < n;	/* handed out again: freed as that one */
		if (j == n)
			ctx->ptrs[good++] = ctx->ptrs[i];
	}
	ctx->bench->put(ctx, ctx->ptrs, good);
}

/* series: end */
/* One sample: ctx->ops ops, in stretches for a restore or irqs off. */
static void mmbench_sample(const struct mmbench_bench *b, struct mmbench_ctx *ctx,
			   struct mmbench_sample *s)
{
	int cpu = raw_smp_processor_id();
	u64 steal = READ_ONCE(kcpustat_cpu(cpu).cpustat[CPUTIME_STEAL]), t0;
	unsigned long flags = 0, switches;
	u32 ops = ctx->ops, left = ops;
	cycles_t c0;

	memset(s, 0, sizeof(*s));
/* series: cpus */
	if (b->team) {
		team_sample(ctx, s);
		return;
	}
/* series: end */
/* series: page_alloc */
	if (ctx->check) {
		mmbench_check_batch(ctx);
		return;
	}
/* series: end */
	do {
		ctx->ops = b->prep || b->restore || b->irqoff ? min(left, MMBENCH_STRETCH) : left;
		if (b->prep)
			b->prep(ctx);
		if (b->irqoff)
			local_irq_save(flags);
		/* Read inside: a switch once irqs are back on is not ours. */
		switches = current->nvcsw + current->nivcsw;
		t0 = ktime_get_ns();
		c0 = get_cycles();
		b->op(ctx);
		s->cycles += get_cycles() - c0;
		s->ns += ktime_get_ns() - t0;
		if (current->nvcsw + current->nivcsw != switches && !s->drop)
			s->drop = MMBENCH_PREEMPTED;
		if (raw_smp_processor_id() != cpu)
			s->drop = MMBENCH_MIGRATED;
		if (b->irqoff)
			local_irq_restore(flags);
		if (b->restore)
			b->restore(ctx);
		left -= ctx->ops;
	} while (left);
	ctx->ops = ops;
	if (READ_ONCE(kcpustat_cpu(cpu).cpustat[CPUTIME_STEAL]) != steal && !s->drop)
		s->drop = MMBENCH_STOLEN;
}

/* The bucket of an op of @ns: its value under 32, then (16 + i) << e for i < 16. */
static unsigned int mmbench_bucket(u64 ns)
{
	unsigned int e = ns < 32 ? 0 : ilog2(ns) - 4;

	return ns >> 24 ? MMBENCH_BUCKETS - 1 : 16 * e + (ns >> e);
}

/* series: page_alloc */
/* An op of a run of blocks taken one at a time, given back once ctx->batch are out. */
static void mmbench_take_op(struct mmbench_ctx *ctx)
{
	ctx->taken += ctx->bench->get(ctx, ctx->ptrs + ctx->taken, 1);
}

static void mmbench_give_back(struct mmbench_ctx *ctx)
{
	if (ctx->bench->put && ctx->taken)
		ctx->bench->put(ctx, ctx->ptrs, ctx->taken);
	ctx->taken = 0;
}

/* series: end */
/* Interrupts and softirqs @cpu handled so far (x86's local timer interrupt not counted). */
static unsigned long mmbench_irqs(int cpu)
{
	unsigned long n = kstat_cpu_irqs_sum(cpu);
	unsigned int i;

	for (i = 0; i < NR_SOFTIRQS; i++)
		n += kstat_softirqs_cpu(i, cpu);
	return n;
}

/*
 * Then tail_ops ops timed one at a time, to the histogram, but those dropped as a sample is,
 * with an interrupt or failed.  An allocator's op is a block of a run of ctx->batch taken:
 * the refills of the caches its path takes from are among them.
 */
static void mmbench_tail(const struct mmbench_bench *b, struct mmbench_ctx *ctx)
{
	struct mmbench_row *row = ctx->row;
	struct mmbench_sample s;
	unsigned long irqs;
	bool drop;
	u32 i;
/* series: page_alloc */
	const struct mmbench_bench take = { .op = mmbench_take_op };
	u64 failed = ctx->failed, f;
/* series: end */

/* series: cpus */
	if (b->team)
		return;
/* series: end */
/* series: page_alloc */
	if (ctx->failed)	/* the row is unsupported: its allocations fail */
		return;
	if (b->get)
		b = &take;
/* series: end */
	ctx->ops = 1;
	for (i = 0; i < mmbench_tail_ops && !READ_ONCE(mmbench_stop) &&
	     ktime_get_ns() < mmbench_deadline; i++) {
		cond_resched();
		irqs = mmbench_irqs(raw_smp_processor_id());
/* series: page_alloc */
		f = ctx->failed;
/* series: end */
		mmbench_sample(b, ctx, &s);
		drop = s.drop || mmbench_irqs(raw_smp_processor_id()) != irqs;
/* series: page_alloc */
		drop |= ctx->failed != f;
		if (ctx->taken == ctx->batch)
			mmbench_give_back(ctx);
/* series: end */
		if (drop)
			continue;
		row->hist[mmbench_bucket(s.ns)]++;
		row->slowest = max(row->slowest, s.ns);
	}
/* series: page_alloc */
	mmbench_give_back(ctx);
	ctx->failed = failed;	/* the row's samples say whether it is supported */
/* series: end */
	ctx->ops = row->ops;
}

/* Ops per sample: sample_us of them, or iterations=. */
static u32 mmbench_size(const struct mmbench_bench *b, struct mmbench_ctx *ctx)
{
	u64 target = (u64)mmbench_sample_us * NSEC_PER_USEC, ps, ops;
	struct mmbench_sample s;
	u32 least = 1;

/* series: cpus */
	if (b->team)
		least = MMBENCH_TEAM_MIN_OPS;
/* series: end */
	ctx->ops = least;
	mmbench_sample(b, ctx, &s);	/* the first warms */
	do {
		cond_resched();
		mmbench_sample(b, ctx, &s);
		ps = s.ns;	/* the lower of two: one slow first op must not size the row */
		mmbench_sample(b, ctx, &s);
		s.ns = min(s.ns, ps);
		if (s.ns >= target / 4 || ctx->ops >= MMBENCH_MAX_OPS)
			break;
		ctx->ops = min_t(u64, ctx->ops * (s.ns < target / 64 ? 16ULL : 4), MMBENCH_MAX_OPS);
	} while (ctx->row->status == MMBENCH_PASS && !READ_ONCE(mmbench_stop));
	ps = max(div_u64(s.ns * 1000, ctx->ops), 1ULL);
	ops = mmbench_iterations ?: max(div64_u64(target * 1000, ps), least);
	/* A sample lasts 100 ms at most. */
	ops = min3(ops, max(div64_u64(100000ULL * NSEC_PER_MSEC, ps), 1ULL), (u64)MMBENCH_MAX_OPS);
	return roundup((u32)ops, ctx->unit);
}

/* Set up, size, warm up, take the samples, check, tear down. */
static void mmbench_row_run(struct mmbench_row *row, struct mmbench_ctx *ctx)
{
	const struct mmbench_bench *b = row->bench;
	u32 attempts = MMBENCH_ATTEMPTS(mmbench_samples);
	int cpu = raw_smp_processor_id(), ret;
	struct mmbench_sample s;
	long delta = 0;

	row->status = MMBENCH_PASS;
	row->reason[0] = '\0';
	if (ktime_get_ns() > mmbench_deadline) {
		mmbench_set(row, MMBENCH_UNSUPPORTED, "budget_ms ran out before it started");
		return;
	}
	cpumask_set_cpu(cpu, &row->cpus);
	*ctx = (struct mmbench_ctx){
		.bench = b, .row = row, .arg = row->arg, .unit = 1,
		.size = b->size ?: row->arg, .page = mmbench_page,
		.zone = page_zone(mmbench_page), .pgdat = page_pgdat(mmbench_page),
/* series: page_alloc */
		.ptrs = mmbench_ptrs, .batch = MMBENCH_CHECK_BLOCKS,
/* series: end */
	};
	if (b->read)
		ctx->before = b->read(ctx);
	ret = b->setup ? b->setup(ctx) : 0;
	if (ret) {
		if (row->status == MMBENCH_PASS)
			mmbench_set(row, MMBENCH_ERROR, "setup failed: %d", ret);
		return;
	}
	row->ops = mmbench_size(b, ctx);
	ctx->ops = row->ops;
	mmbench_sample(b, ctx, &s);	/* a warm-up at that size */
	while (row->kept < mmbench_samples && attempts-- && row->status == MMBENCH_PASS &&
	       !READ_ONCE(mmbench_stop) && ktime_get_ns() < mmbench_deadline) {
		cond_resched();
		mmbench_sample(b, ctx, &s);
		if (s.drop) {
			row->dropped[row->nr_dropped++] = s.drop;
		} else if (row->status == MMBENCH_PASS) {	/* not one the watchdog stopped */
			row->ns[row->kept] = s.ns;
			row->cycles[row->kept++] = s.cycles;
		}
	}
	if (ctx->unit == 1 && row->status == MMBENCH_PASS)
		mmbench_tail(b, ctx);
/* series: page_alloc */
	/* A "sample" of an allocator's check, untimed: see mmbench_sample(). */
	ctx->check = b->get && row->status == MMBENCH_PASS && !READ_ONCE(mmbench_stop);
	if (ctx->check)
		mmbench_sample(b, ctx, &s);
/* series: end */
	if (b->teardown)
		b->teardown(ctx);
/* series: slab */
	kmem_cache_destroy(ctx->cache);		/* if the row made one */
/* series: end */
/* series: page_frag */
	page_frag_cache_drain(&ctx->frag);	/* if the row used it */
/* series: end */
	/* The counter back where it was; again, as per-CPU deltas fold. */
	for (ret = 0; b->read && ret < 4; ret++) {
		delta = b->read(ctx) - ctx->before;
		if (!delta)
			break;
		schedule_timeout_uninterruptible(msecs_to_jiffies(10));
	}
	if (b->read && delta)
		mmbench_set(row, MMBENCH_FAIL, "counter off by %ld", delta);
/* series: page_alloc */
	if (ctx->bad)
		mmbench_set(row, MMBENCH_FAIL, "%llu blocks lost their tag or alignment", ctx->bad);
	if (ctx->failed)
		mmbench_set(row, MMBENCH_UNSUPPORTED,
			    "%llu allocation calls failed: short of memory for this order, size or bulk",
			    ctx->failed);
/* series: end */
	if (READ_ONCE(mmbench_stop)) {
		mmbench_set(row, MMBENCH_ERROR, "stopped");
	} else if (raw_smp_processor_id() != cpu) {	/* no later row would run there */
		mmbench_set(row, MMBENCH_ERROR, "CPU %d went offline: the load stops", cpu);
		WRITE_ONCE(mmbench_stop, true);
	}
}

static int mmbench_thread(void *data)
{
/* series: memcg */
	struct mem_cgroup *old;
/* series: end */
	struct mmbench_ctx ctx;
	unsigned int i;

	/* What the rows run under: a PREEMPT_DYNAMIC kernel may switch. */
	mmbench_preempt = preempt_model_rt() ? "rt" : preempt_model_full() ? "full" :
			  preempt_model_lazy() ? "lazy" : preempt_model_voluntary() ? "voluntary" :
			  preempt_model_none() ? "none" : "unknown";
	mmbench_deadline = ktime_get_ns() + (u64)mmbench_budget_ms * NSEC_PER_MSEC;
/* series: memcg */
	old = set_active_memcg(mmbench_memcg);	/* what __GFP_ACCOUNT charges here */
/* series: end */
	for (i = 0; i < mmbench_nr_rows && !READ_ONCE(mmbench_stop); i++)
		mmbench_row_run(&mmbench_rows[i], &ctx);
/* series: memcg */
	set_active_memcg(old);
/* series: end */
	complete(&mmbench_done);
	return 0;
}

/* ---- sysfs ---- */

static struct mmbench_row *to_row(struct kobject *kobj)
{
	unsigned int i = 0;

	while (i < mmbench_nr_rows - 1 && mmbench_rows[i].kobj != kobj)
		i++;
	return &mmbench_rows[i];
}

/* A row's file: one value, or a list of @n, fmt having "%s" first. */
#define MMBENCH_SHOW(_name, n, fmt, ...)					\
static ssize_t _name##_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf) \
{										\
	const struct mmbench_row *row = to_row(kobj);				\
	int len = 0;								\
	u32 i;									\
										\
	for (i = 0; i < (n); i++)						\
		len += sysfs_emit_at(buf, len, fmt, i ? " " : "", __VA_ARGS__);	\
	return len + sysfs_emit_at(buf, len, "\n");				\
}										\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

MMBENCH_SHOW(status, 1, "%s%s", mmbench_status_names[row->status]);
MMBENCH_SHOW(reason, 1, "%s%s", row->reason);
MMBENCH_SHOW(cpus, 1, "%s%*pbl", cpumask_pr_args(&row->cpus));
MMBENCH_SHOW(context, 1, "%s%s", row->bench->irqoff ? "irqoff" : "preempt");
MMBENCH_SHOW(ops_per_sample, 1, "%s%u", row->ops);
MMBENCH_SHOW(sample_ns, row->kept, "%s%llu", row->ns[i]);
#ifdef CONFIG_X86_TSC
MMBENCH_SHOW(sample_cycles, row->kept, "%s%llu", row->cycles[i]);
#endif
MMBENCH_SHOW(samples_dropped, row->nr_dropped, "%s%s", mmbench_drop_names[row->dropped[i]]);

/* The slowest op timed alone, then each bucket's ops up to the last that has some. */
static ssize_t op_ns_hist_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	const struct mmbench_row *row = to_row(kobj);
	int len, i, last = MMBENCH_BUCKETS - 1;

	len = sysfs_emit(buf, "%llu", row->slowest);
	while (last >= 0 && !row->hist[last])
		last--;
	for (i = 0; i <= last; i++)
		len += sysfs_emit_at(buf, len, " %u", row->hist[i]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static struct kobj_attribute op_ns_hist_attr = __ATTR_RO(op_ns_hist);

static struct attribute *mmbench_row_attrs[] = {
	&status_attr.attr, &reason_attr.attr, &cpus_attr.attr, &context_attr.attr,
	&ops_per_sample_attr.attr, &sample_ns_attr.attr, &samples_dropped_attr.attr,
	&op_ns_hist_attr.attr,
#ifdef CONFIG_X86_TSC
	/* get_cycles() counts the TSC; elsewhere no CPU cycles, or 0. */
	&sample_cycles_attr.attr,
#endif
	NULL,
};

static const struct attribute_group mmbench_row_group = { .attrs = mmbench_row_attrs };

static ssize_t preempt_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", mmbench_preempt);
}

static struct kobj_attribute preempt_attr = __ATTR_RO(preempt);

/* Gone at once, readers waited for; the kobjects' release is the kernel's. */
static void mmbench_sysfs_remove(void)
{
	unsigned int i;

	for (i = 0; i < mmbench_nr_rows; i++) {
		kobject_del(mmbench_rows[i].kobj);
		kobject_put(mmbench_rows[i].kobj);
	}
	kobject_del(mmbench_kobj);
	kobject_put(mmbench_kobj);
}

/* Made once every row has run: the files never change. */
static int mmbench_sysfs_create(void)
{
	struct mmbench_row *row;
	unsigned int i;
	int ret;

	mmbench_kobj = kobject_create_and_add("mmbench", kernel_kobj);
	if (!mmbench_kobj)
		return -ENOMEM;
	ret = sysfs_create_file(mmbench_kobj, &preempt_attr.attr);
	for (i = 0; !ret && i < mmbench_nr_rows; i++) {
		row = &mmbench_rows[i];
		row->kobj = kobject_create_and_add(row->name, mmbench_kobj);
		ret = row->kobj ? sysfs_create_group(row->kobj, &mmbench_row_group) : -ENOMEM;
	}
	if (ret)
		mmbench_sysfs_remove();
	return ret;
}

/* ---- calibration and vmstat ---- */

/* Counters nothing in the kernel decides on; each row puts them back. */
#define MMBENCH_ZONE_ITEM	NR_MLOCK
#define MMBENCH_NODE_ITEM	NR_VMSCAN_IMMEDIATE
#define MMBENCH_EVENT_ITEM	UNEVICTABLE_PGSTRANDED

static struct mmbench_list mmbench_delays = {
	.vals = { 0, 50, 200, 1000, 5000 }, .nr = 5, .max = 100000, .param = "delays",
};

module_param_array_named(delays, mmbench_delays.vals, uint, &mmbench_delays.nr, 0444);
MODULE_PARM_DESC(delays,
		 "Comma-separated D in ns of the ndelay rows, up to 8, each 0..100000 (default 0,50,200,1000,5000)");

/* name_op(), the timed region: @... ctx->ops times. */
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

/* 1000 dependent ALU operations an op: a known cost to calibrate with. */
static void alu_chain_op(struct mmbench_ctx *ctx)
{
	u64 x = ctx->chain, steps = (u64)ctx->ops * 1000;

	while (steps--) {
		x = x * 3 + 1;
		OPTIMIZER_HIDE_VAR(x);
	}
	ctx->chain = x;
}

static long zone_item_read(struct mmbench_ctx *ctx)
{
	return zone_page_state_snapshot(ctx->zone, MMBENCH_ZONE_ITEM);
}

/* The node's counter with the per-CPU deltas not yet folded in. */
static long node_item_read(struct mmbench_ctx *ctx)
{
	enum node_stat_item item = MMBENCH_NODE_ITEM;
	long x = atomic_long_read(&ctx->pgdat->vm_stat[item]);
	int cpu;

	for_each_online_cpu(cpu)
		x += per_cpu_ptr(ctx->pgdat->per_cpu_nodestats, cpu)->vm_node_stat_diff[item];
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
MMBENCH_OP(__mod_zone, __mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, 1);
	   __mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, -1))
MMBENCH_OP(count_vm_event, count_vm_event(MMBENCH_EVENT_ITEM))
MMBENCH_OP(count_vm_events, count_vm_events(MMBENCH_EVENT_ITEM, ctx->unit))	/* unit: 1 */

static int vm_event_setup(struct mmbench_ctx *ctx)
{
	if (IS_ENABLED(CONFIG_VM_EVENT_COUNTERS))
		return 0;
	mmbench_set(ctx->row, MMBENCH_UNSUPPORTED, "CONFIG_VM_EVENT_COUNTERS is not set");
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

/* Events only count up; adding the negated total puts the sum back. */
static void vm_event_restore(struct mmbench_ctx *ctx)
{
	count_vm_events(MMBENCH_EVENT_ITEM, -(long)ctx->ops * ctx->unit);
}

#define MMBENCH_ZONE	.read = zone_item_read
#define MMBENCH_EVENT	.setup = vm_event_setup, .restore = vm_event_restore, .read = vm_event_read

/* The baseline is first: the kselftest judges the others against it. */
static const struct mmbench_bench mmbench_vmstat[] = {
	{ .name = "baseline", .op = baseline_op },
	{ .name = "ndelay", .list = &mmbench_delays, .op = ndelay_op },
	{ .name = "alu_chain", .op = alu_chain_op },
	{ .name = "inc_zone_page_state", .op = inc_zone_op, .restore = inc_zone_restore,
	  MMBENCH_ZONE },
	{ .name = "dec_zone_page_state", .prep = dec_zone_prep, .op = dec_zone_op, MMBENCH_ZONE },
	{ .name = "inc_dec_zone_page_state", .op = inc_dec_zone_op, MMBENCH_ZONE },
	{ .name = "mod_node_page_state", .op = mod_node_op, .read = node_item_read },
	{ .name = "__mod_zone_page_state", .irqoff = true, .op = __mod_zone_op, MMBENCH_ZONE },
	{ .name = "count_vm_event", .op = count_vm_event_op, MMBENCH_EVENT },
	{ .name = "count_vm_events", .op = count_vm_events_op, MMBENCH_EVENT },
};

/* series: page_alloc */
/* ---- page allocator ---- */

#define MMBENCH_MAX_BATCH	65536U
#define MMBENCH_MAX_BULK	1024U

static struct mmbench_list mmbench_orders = {
	.vals = { 0, 1, 2, 3, MAX_PAGE_ORDER < 9 ? MAX_PAGE_ORDER : 9 }, .param = "orders",
	.nr = MAX_PAGE_ORDER > 3 ? 5 : MAX_PAGE_ORDER + 1, .max = MAX_PAGE_ORDER, .prefix = "order",
};

static struct mmbench_list mmbench_bulk = {
	.vals = { 16, 64, 256 }, .nr = 3, .min = 1, .max = MMBENCH_MAX_BULK, .param = "bulk",
};

static unsigned int mmbench_batch = 1024;

module_param_array_named(orders, mmbench_orders.vals, uint, &mmbench_orders.nr, 0444);
MODULE_PARM_DESC(orders,
		 "Comma-separated page orders of the page allocator rows, up to 8, each 0..MAX_PAGE_ORDER (default 0,1,2,3,9)");
module_param_array_named(bulk, mmbench_bulk.vals, uint, &mmbench_bulk.nr, 0444);
MODULE_PARM_DESC(bulk,
		 "Comma-separated blocks per bulk call, up to 8, each 1..1024 (default 16,64,256)");
MMBENCH_PARAM_UINT(batch, 1, MMBENCH_MAX_BATCH);
MODULE_PARM_DESC(batch,
		 "Blocks alloc_pages_batch takes before it frees them, 1..65536, at most 16 MiB and a quarter of the free memory (default 1024)");

/* Blocks by @alloc, back by @free of @p: name_pair_op(), an op each; name_get(), name_put(). */
#define MMBENCH_BLOCKS(name, alloc, free)					\
static __always_inline void *name##_one(struct mmbench_ctx *ctx)		\
{										\
	return alloc;								\
}										\
static __always_inline void name##_free(struct mmbench_ctx *ctx, void *p)	\
{										\
	free;									\
}										\
static void __maybe_unused name##_pair_op(struct mmbench_ctx *ctx)		\
{										\
	u32 i, ops = ctx->ops;							\
	void *p;								\
										\
	for (i = 0; i < ops; i++) {						\
		p = name##_one(ctx);						\
		if (unlikely(!p))						\
			ctx->failed++;						\
		else								\
			name##_free(ctx, p);					\
	}									\
}										\
static __always_inline __maybe_unused unsigned int				\
name##_get(struct mmbench_ctx *ctx, void **p, unsigned int n)			\
{										\
	unsigned int i;								\
										\
	for (i = 0; i < n && (p[i] = name##_one(ctx)); i++)			\
		;								\
	ctx->failed += i < n;							\
	return i;								\
}										\
static __always_inline __maybe_unused void					\
name##_put(struct mmbench_ctx *ctx, void **p, unsigned int n)			\
{										\
	unsigned int i;								\
										\
	for (i = 0; i < n; i++)							\
		name##_free(ctx, p[i]);						\
}

/* name_op(): batches of ctx->unit blocks, taken then given back. */
#define MMBENCH_BATCH_OP(name, get, put)				\
static void name##_op(struct mmbench_ctx *ctx)				\
{									\
	u32 done, n;							\
									\
	for (done = 0; done < ctx->ops; done += n) {			\
		n = min(ctx->ops - done, ctx->unit);			\
		put(ctx, ctx->ptrs, get(ctx, ctx->ptrs, n));		\
	}								\
}

#define MMBENCH_GET_PUT(blocks)	.get = blocks##_get, .put = blocks##_put

MMBENCH_BLOCKS(pages, alloc_pages(MMBENCH_GFP, ctx->arg), __free_pages(p, ctx->arg))
MMBENCH_BATCH_OP(pages_batch, pages_get, pages_put)

/* The bulk API fills only the empty slots of its array: empty them. */
static __always_inline unsigned int
pages_bulk_get(struct mmbench_ctx *ctx, void **p, unsigned int n)
{
	unsigned int got;

	memset(p, 0, n * sizeof(*p));
	got = alloc_pages_bulk(MMBENCH_GFP, n, (struct page **)p);
	ctx->failed += got < n;
	return got;
}

MMBENCH_BATCH_OP(pages_bulk, pages_bulk_get, pages_put)

/* Batches within 16 MiB and a quarter of the free memory. */
static int pages_setup(struct mmbench_ctx *ctx)
{
	unsigned long room = max(global_zone_page_state(NR_FREE_PAGES) >> (ctx->arg + 2), 1UL);
	unsigned long most = max((16UL << 20) >> (PAGE_SHIFT + ctx->arg), 1UL);
	bool batch = ctx->bench->op == pages_batch_op;

	ctx->size = PAGE_SIZE << ctx->arg;
	ctx->batch = min_t(unsigned long, batch ? mmbench_batch : ctx->batch, min(most, room));
	if (batch)
		ctx->unit = ctx->batch;
	return 0;
}

/* A bulk call's blocks make a batch; pages of order 0. */
static int bulk_setup(struct mmbench_ctx *ctx)
{
	ctx->batch = ctx->arg;
	ctx->unit = ctx->arg;
	ctx->arg = 0;
	return 0;
}

static const struct mmbench_bench mmbench_page_alloc[] = {
	{ .name = "alloc_pages", .list = &mmbench_orders, .pages = true, .setup = pages_setup,
	  .op = pages_pair_op, MMBENCH_GET_PUT(pages) },
	{ .name = "alloc_pages_batch", .list = &mmbench_orders, .pages = true,
	  .setup = pages_setup, .op = pages_batch_op, MMBENCH_GET_PUT(pages) },
	{ .name = "alloc_pages_bulk", .list = &mmbench_bulk, .pages = true, .size = PAGE_SIZE,
	  .setup = bulk_setup, .op = pages_bulk_op, .get = pages_bulk_get, .put = pages_put },
};

/* series: end */
/* series: slab */
/* ---- slab allocator ---- */

#define MMBENCH_BLOCK_SIZE	256	/* where a row names none */

static struct mmbench_list mmbench_sizes = {
	.vals = { 8, 64, 96, 192, 1000, 4096, KMALLOC_MAX_CACHE_SIZE }, .nr = 7, .min = 1,
	.max = KMALLOC_MAX_CACHE_SIZE, .param = "sizes",
};

module_param_array_named(sizes, mmbench_sizes.vals, uint, &mmbench_sizes.nr, 0444);
MODULE_PARM_DESC(sizes,
		 "Comma-separated object sizes in bytes of the kmalloc and kmem_cache rows, up to 8, each 1..KMALLOC_MAX_CACHE_SIZE (default 8,64,96,192,1000,4096,KMALLOC_MAX_CACHE_SIZE)");

MMBENCH_BLOCKS(kmalloc, kmalloc(ctx->size, MMBENCH_GFP), kfree(p))
/* A constant size, as most callers have: the cache is picked at build. */
MMBENCH_BLOCKS(kmalloc256, kmalloc(MMBENCH_BLOCK_SIZE, MMBENCH_GFP), kfree(p))
MMBENCH_BLOCKS(cache, kmem_cache_alloc(ctx->cache, MMBENCH_GFP), kmem_cache_free(ctx->cache, p))

/* All or nothing. */
static __always_inline unsigned int
cache_bulk_get(struct mmbench_ctx *ctx, void **p, unsigned int n)
{
	if (likely(kmem_cache_alloc_bulk(ctx->cache, MMBENCH_GFP, n, p)))
		return n;
	ctx->failed++;
	return 0;
}

static __always_inline void cache_bulk_put(struct mmbench_ctx *ctx, void **p, unsigned int n)
{
	kmem_cache_free_bulk(ctx->cache, n, p);
}

/* kmalloc objects one by one, free them together. */
static __always_inline void kfree_bulk_put(struct mmbench_ctx *ctx, void **p, unsigned int n)
{
	kfree_bulk(n, p);
}

MMBENCH_BATCH_OP(cache_bulk, cache_bulk_get, cache_bulk_put)
MMBENCH_BATCH_OP(kfree_bulk, kmalloc256_get, kfree_bulk_put)

/* A cache of its own: SLAB_NO_MERGE keeps it from aliasing kmalloc's. */
static int cache_setup(struct mmbench_ctx *ctx)
{
	ctx->cache = kmem_cache_create("mmbench", ctx->size, 0, SLAB_NO_MERGE, NULL);
	if (!ctx->cache)
		return -ENOMEM;
	return ctx->bench->list == &mmbench_bulk ? bulk_setup(ctx) : 0;
}

static const struct mmbench_bench mmbench_slab[] = {
	{ .name = "kmalloc", .list = &mmbench_sizes, .op = kmalloc_pair_op,
	  MMBENCH_GET_PUT(kmalloc) },
	{ .name = "kmem_cache", .list = &mmbench_sizes, .setup = cache_setup, .op = cache_pair_op,
	  MMBENCH_GET_PUT(cache) },
	{ .name = "kmem_cache_bulk", .list = &mmbench_bulk, .size = MMBENCH_BLOCK_SIZE,
	  .setup = cache_setup, .op = cache_bulk_op,
	  MMBENCH_GET_PUT(cache_bulk) },
	{ .name = "kfree_bulk", .list = &mmbench_bulk, .size = MMBENCH_BLOCK_SIZE,
	  .setup = bulk_setup, .op = kfree_bulk_op, .get = kmalloc256_get, .put = kfree_bulk_put },
};

/* series: end */
/* series: page_frag */
/* ---- page_frag ---- */

#define MMBENCH_FRAG_ALIGN	64

static struct mmbench_list mmbench_frag_sizes = {
	.vals = { 64, 250, 2048 }, .nr = 3, .min = 1, .max = PAGE_SIZE, .param = "frag_sizes",
};

module_param_array_named(frag_sizes, mmbench_frag_sizes.vals, uint, &mmbench_frag_sizes.nr, 0444);
MODULE_PARM_DESC(frag_sizes,
		 "Comma-separated fragment sizes in bytes of the page_frag rows, up to 8, each 1..PAGE_SIZE (default 64,250,2048)");

MMBENCH_BLOCKS(frag, page_frag_alloc(&ctx->frag, ctx->size, MMBENCH_GFP), page_frag_free(p))
MMBENCH_BLOCKS(frag_aligned,
	       page_frag_alloc_align(&ctx->frag, ctx->size, MMBENCH_GFP, MMBENCH_FRAG_ALIGN),
	       page_frag_free(p))

static int frag_setup(struct mmbench_ctx *ctx)
{
	page_frag_cache_init(&ctx->frag);
	if (ctx->bench->op == frag_aligned_pair_op)
		ctx->align = MMBENCH_FRAG_ALIGN;
	return 0;
}

static const struct mmbench_bench mmbench_page_frag[] = {
	{ .name = "page_frag", .list = &mmbench_frag_sizes, .setup = frag_setup,
	  .op = frag_pair_op, MMBENCH_GET_PUT(frag) },
	{ .name = "page_frag_aligned", .list = &mmbench_frag_sizes, .setup = frag_setup,
	  .op = frag_aligned_pair_op, MMBENCH_GET_PUT(frag_aligned) },
};

/* series: end */
/* series: cpus */
/* ---- several CPUs ---- */

/* CPUs of the rows on several CPUs: cpus=, or those not isolcpus= at load. */
static struct cpumask mmbench_cpus_mask;
static char *mmbench_cpus_list;

/* How many CPUs of those a *_concurrent row runs on: a row per count. */
static struct mmbench_list mmbench_team_cpus = {
	.min = 1, .max = NR_CPUS, .param = "team_cpus", .prefix = "cpus",
};

module_param_named(cpus, mmbench_cpus_list, charp, 0444);
MODULE_PARM_DESC(cpus,
		 "CPUs of the rows on several CPUs, a list such as 0-3,6; a pair takes the two lowest-numbered online ones, push_cpu then pop_cpu (default: the online CPUs that isolcpus= leaves to the scheduler, at load)");
module_param_array_named(team_cpus, mmbench_team_cpus.vals, uint, &mmbench_team_cpus.nr, 0444);
MODULE_PARM_DESC(team_cpus,
		 "Comma-separated CPU counts of the *_concurrent and *_contended rows, up to 8, each 1..NR_CPUS, the lowest-numbered CPUs of cpus= taken, a row unsupported past them (default 1, 2, 4, ..., 64 below their number, and all)");

/* One CPU of a team: a bound thread that runs its part of each sample. */
struct mmbench_worker {
	struct mmbench_team *team;
	struct task_struct *task;
	struct mmbench_bench bench;	/* .op: its part */
	struct mmbench_ctx ctx;
	struct mmbench_sample s;	/* its part of the latest sample */
	int cpu;
	unsigned long seen, done;	/* @gen of the latest it started, finished */
	struct ptr_ring ring;		/* what the previous worker sends it */
};

/* The CPUs of a row: @gen starts a sample, @go releases the workers at once. */
struct mmbench_team {
	u32 nr, ops;
	bool check, stop;
	unsigned long gen, go;
	atomic_t ready, running;
	wait_queue_head_t wq;
	struct completion done;
	struct mmbench_worker w[];	/* then each worker's ptrs */
};

/* A spin of a wait on the others: no clock, the run's thread bounds it. */
static bool mmbench_spin(struct mmbench_team *t, u32 *spins)
{
	cpu_relax();
	if (!(++*spins % 1024))		/* now and then, let others run */
		cond_resched();
	return READ_ONCE(t->stop);	/* true once the team stops */
}

/* Pass @p to the next CPU; once the team stops, give it back here. */
static void ring_send(struct mmbench_ctx *ctx, void *p)
{
	u32 spins = 0;

	while (unlikely(ptr_ring_produce(ctx->tx, p)))
		if (mmbench_spin(ctx->team, &spins)) {
			if (!IS_ERR(p))
				ctx->bench->put(ctx, &p, 1);
			return;
		}
}

/* The next of the previous CPU's pointers, or NULL once the team stops. */
static void *ring_recv(struct mmbench_ctx *ctx)
{
	u32 spins = 0;
	void *p;

	while (unlikely(!(p = ptr_ring_consume(ctx->rx))) && !mmbench_spin(ctx->team, &spins))
		;
	return p;
}

/* name_push(), name_pop(): push_cpu's blocks (or errors) to pop_cpu. */
#define MMBENCH_REMOTE(name)						\
static void name##_push(struct mmbench_ctx *ctx)			\
{									\
	u32 i, ops = ctx->ops;						\
	void *p;							\
									\
	for (i = 0; i < ops && !READ_ONCE(ctx->team->stop); i++)	\
		ring_send(ctx, name##_get(ctx, &p, 1) ? p : ERR_PTR(-ENOMEM)); \
}									\
static void name##_pop(struct mmbench_ctx *ctx)			\
{									\
	u32 i, ops = ctx->ops;						\
	void *p;							\
									\
	for (i = 0; i < ops && (p = ring_recv(ctx)); i++)		\
		if (!IS_ERR(p))						\
			name##_put(ctx, &p, 1);				\
}

/* The ring alone: a pointer never dereferenced. */
MMBENCH_BLOCKS(ring, ctx, (void)p)
MMBENCH_REMOTE(pages)
MMBENCH_REMOTE(kmalloc256)
MMBENCH_REMOTE(frag)
MMBENCH_REMOTE(ring)

/* Each CPU's objects to the next CPU, which frees them, 64 ahead (of 1024: no deadlock). */
static void kmalloc256_ring(struct mmbench_ctx *ctx)
{
	u32 i, ops = ctx->ops, ahead = min(ops, 64U);

	for (ctx->ops = 1, i = 0; i < ops + ahead && !READ_ONCE(ctx->team->stop); i++) {
		if (i < ops)
			kmalloc256_push(ctx);
		if (i >= ahead)
			kmalloc256_pop(ctx);
	}
	ctx->ops = ops;
}

static int mmbench_worker_fn(void *data)
{
	struct mmbench_worker *w = data;
	struct mmbench_team *t = w->team;
	u32 spins = 0;

	for (;;) {
		wait_event_idle(t->wq, READ_ONCE(t->gen) != w->seen || kthread_should_stop());
		if (kthread_should_stop())
			return 0;
		/* Pairs with team_sample(): what it set before @gen. */
		WRITE_ONCE(w->seen, smp_load_acquire(&t->gen));
		if (atomic_inc_return(&t->ready) == t->nr)
			smp_store_release(&t->go, w->seen); /* the last: all go */
		/* Pairs with the smp_store_release() above. */
		while (smp_load_acquire(&t->go) != w->seen && !mmbench_spin(t, &spins))
			;
		w->ctx.ops = t->ops;
		/* A check, of what the ops' frees left, on all but pop_cpu. */
		w->ctx.check = t->check && w->bench.op == w->ctx.bench->op;
		if (!READ_ONCE(t->stop) && (w->ctx.check || !t->check))
			mmbench_sample(&w->bench, &w->ctx, &w->s);
		if (raw_smp_processor_id() != w->cpu)	/* it went offline */
			w->s.drop = MMBENCH_MIGRATED;
		WRITE_ONCE(w->done, w->seen);
		if (atomic_dec_and_test(&t->running))
			complete(&t->done);
	}
}

/* A sample: ctx->ops ops on each CPU at once, timed as the slowest. */
static void team_sample(struct mmbench_ctx *ctx, struct mmbench_sample *s)
{
	struct mmbench_team *t = ctx->team;
	unsigned int i = 0, j;
	bool all;

	if (READ_ONCE(t->stop))
		return;
	t->ops = ctx->ops;
	t->check = ctx->check;
	atomic_set(&t->ready, 0);
	atomic_set(&t->running, t->nr);
	reinit_completion(&t->done);
	/* Pairs with mmbench_worker_fn(): all of the above before @gen. */
	smp_store_release(&t->gen, t->gen + 1);
	wake_up_all(&t->wq);
	/* The watchdog: a worker that does not end its part stops the row. */
	if (!wait_for_completion_timeout(&t->done, 2 * HZ)) {
		all = atomic_read(&t->ready) == t->nr;	/* else blame one that never started */
		while (i < t->nr - 1 && READ_ONCE(*(all ? &t->w[i].done : &t->w[i].seen)) == t->gen)
			i++;
		for (j = t->nr; all && j-- > i;)	/* rather one behind, blocks in its ring */
			if (READ_ONCE(t->w[j].done) != t->gen && !__ptr_ring_empty(&t->w[j].ring))
				i = j;
		WRITE_ONCE(t->stop, true);
		mmbench_set(ctx->row, MMBENCH_ERROR, "no progress on CPU %d in 2 s", t->w[i].cpu);
		return;
	}
	for (i = 0; i < t->nr; i++) {
		if (t->w[i].s.ns > s->ns)
			*s = (struct mmbench_sample){ t->w[i].s.ns, t->w[i].s.cycles, s->drop };
		s->drop = max(s->drop, t->w[i].s.drop);
	}
}

static void team_teardown(struct mmbench_ctx *ctx)
{
	struct mmbench_team *t = ctx->team;
	unsigned int i;
	void *p;

	WRITE_ONCE(t->stop, true);
	for (i = 0; i < t->nr && t->w[i].task; i++)
		mmbench_stop_thread(t->w[i].task);
	for (i = 0; i < t->nr; i++) {	/* what the workers' ops counted, and left */
		ctx->failed += t->w[i].ctx.failed;
		ctx->bad += t->w[i].ctx.bad;
		page_frag_cache_drain(&t->w[i].ctx.frag);
		while (t->w[i].ring.queue && (p = ptr_ring_consume(&t->w[i].ring)))
			if (!IS_ERR(p))
				ctx->bench->put(ctx, &p, 1);
		ptr_ring_cleanup(&t->w[i].ring, NULL);
	}
	kvfree(t);
	ctx->team = NULL;
}

/* A thread on each CPU of the team; they wait for team_sample(). */
static int team_setup(struct mmbench_ctx *ctx)
{
	const struct mmbench_bench *b = ctx->bench;
	struct cpumask *cpus = &ctx->row->cpus;
	struct task_struct *task;
	struct mmbench_worker *w;
	struct mmbench_team *t;
	unsigned int i = 0, want = b->pop ? 2 : ctx->row->arg;	/* a row's value: its CPUs */
	unsigned int nr_ptrs = max(ctx->batch, ctx->unit);
	int cpu;

	cpumask_clear(cpus);
	for_each_cpu_and(cpu, &mmbench_cpus_mask, cpu_online_mask)
		if (cpumask_weight(cpus) < want)
			cpumask_set_cpu(cpu, cpus);
	if (cpumask_weight(cpus) < want) {
		mmbench_set(ctx->row, MMBENCH_UNSUPPORTED, "needs %u online CPUs in cpus=%*pbl",
			    want, cpumask_pr_args(&mmbench_cpus_mask));
		return -EOPNOTSUPP;
	}
	ctx->arg = 0;	/* the workers' blocks: order 0, or the bench's size */
	t = kvzalloc(size_add(struct_size(t, w, want), array3_size(want, nr_ptrs, sizeof(void *))),
		     GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->nr = want;
	init_waitqueue_head(&t->wq);
	init_completion(&t->done);
	ctx->team = t;
	for_each_cpu(cpu, cpus) {
		w = &t->w[i++];
		w->team = t;
		w->cpu = cpu;
		w->ctx = *ctx;
		w->ctx.ptrs = (void **)&t->w[want] + (i - 1) * nr_ptrs;
		w->ctx.tx = &t->w[i % want].ring;
		w->ctx.rx = &w->ring;
		page_frag_cache_init(&w->ctx.frag);
		w->bench.op = b->pop && i == 2 ? b->pop : b->op;
		task = ptr_ring_init(&w->ring, 1024, GFP_KERNEL) ? ERR_PTR(-ENOMEM) :
		       kthread_run_on_cpu(mmbench_worker_fn, w, cpu, "mmbench_w/%u");
		if (IS_ERR(task)) {
			team_teardown(ctx);
			return PTR_ERR(task);
		}
		w->task = get_task_struct(task);
	}
	return 0;
}

/* Pages of the run's zone, for every CPU: one zone lock; the numa rows' of another node. */
MMBENCH_BLOCKS(pages_node, alloc_pages_node(ctx->node, MMBENCH_GFP | __GFP_THISNODE, ctx->arg),
	       __free_pages(p, ctx->arg))
MMBENCH_BATCH_OP(pages_node_batch, pages_node_get, pages_node_put)

/* What a CPU's lists may hold past their high mark: a refill of each list, a THP block. */
#define MMBENCH_PCP_SLACK(pcp)	(NR_PCP_LISTS * READ_ONCE((pcp)->batch) + MAX_ORDER_NR_PAGES)

/* Batches of the high mark and twice its slack on each CPU: refills and drains, zone locked. */
static int contended_setup(struct mmbench_ctx *ctx)
{
	struct per_cpu_pages *pcp = raw_cpu_ptr(ctx->zone->per_cpu_pageset);
	unsigned long room = min(zone_page_state(ctx->zone, NR_FREE_PAGES) * 3 / 4 / ctx->row->arg,
				 (unsigned long)MMBENCH_MAX_BATCH);

	ctx->node = zone_to_nid(ctx->zone);
	ctx->high = READ_ONCE(pcp->high_max);
	ctx->unit = ctx->high + 2 * MMBENCH_PCP_SLACK(pcp);
	if (ctx->unit <= room)
		return team_setup(ctx);
	mmbench_set(ctx->row, MMBENCH_UNSUPPORTED, "batches past high mark %d: %u pages, over %lu",
		    ctx->high, ctx->unit, room);
	return -EOPNOTSUPP;
}

/* Past the high mark a CPU's frees drain its lists: they keep that mark and its slack. */
static void contended_teardown(struct mmbench_ctx *ctx)
{
	struct per_cpu_pages *pcp;
	int cpu, count;

	team_teardown(ctx);
	for_each_cpu(cpu, &ctx->row->cpus) {
		pcp = per_cpu_ptr(ctx->zone->per_cpu_pageset, cpu);
		count = READ_ONCE(pcp->count);
		if (count > max(ctx->high, READ_ONCE(pcp->high_max)) + MMBENCH_PCP_SLACK(pcp))
			mmbench_set(ctx->row, MMBENCH_FAIL, "CPU %d's lists: %d pages", cpu, count);
	}
	if (ctx->row->status == MMBENCH_PASS)
		mmbench_set(ctx->row, MMBENCH_PASS, "batches of %u pages, past the high mark %d",
			    ctx->unit, ctx->high);
}

#define MMBENCH_TEAM(blocks)	.team = true, .setup = team_setup, .teardown = team_teardown, \
				MMBENCH_GET_PUT(blocks)

static const struct mmbench_bench mmbench_cpus[] = {
	{ .name = "alloc_pages_concurrent", .list = &mmbench_team_cpus, MMBENCH_TEAM(pages),
	  .pages = true, .size = PAGE_SIZE, .op = pages_pair_op },
	{ .name = "kmalloc_concurrent", .list = &mmbench_team_cpus, MMBENCH_TEAM(kmalloc256),
	  .size = MMBENCH_BLOCK_SIZE, .op = kmalloc256_pair_op },
	{ .name = "page_frag_concurrent", .list = &mmbench_team_cpus, MMBENCH_TEAM(frag),
	  .size = MMBENCH_BLOCK_SIZE, .op = frag_pair_op },
	{ .name = "alloc_pages_contended", .list = &mmbench_team_cpus, .team = true,
	  .setup = contended_setup, .teardown = contended_teardown, MMBENCH_GET_PUT(pages_node),
	  .pages = true, .size = PAGE_SIZE, .op = pages_node_batch_op },
	{ .name = "kmalloc_contended", .list = &mmbench_team_cpus, MMBENCH_TEAM(kmalloc256),
	  .size = MMBENCH_BLOCK_SIZE, .op = kmalloc256_ring },
	{ .name = "alloc_pages_remote_free", MMBENCH_TEAM(pages), .pages = true,
	  .size = PAGE_SIZE, .op = pages_push, .pop = pages_pop },
	{ .name = "kmalloc_remote_free", MMBENCH_TEAM(kmalloc256), .size = MMBENCH_BLOCK_SIZE,
	  .op = kmalloc256_push, .pop = kmalloc256_pop },
	{ .name = "page_frag_remote_free", MMBENCH_TEAM(frag), .size = MMBENCH_BLOCK_SIZE,
	  .op = frag_push, .pop = frag_pop },
	/* The ring alone: the allocator's share of the others is the rest. */
	{ .name = "ptr_ring_remote", .team = true, .setup = team_setup,
	  .teardown = team_teardown, .op = ring_push, .pop = ring_pop, .put = ring_put },
};

/* series: end */
/* series: memcg */
/* ---- memory cgroup charging ---- */

MMBENCH_BLOCKS(pages_account, alloc_pages(MMBENCH_GFP | __GFP_ACCOUNT, ctx->arg),
	       __free_pages(p, ctx->arg))
MMBENCH_BLOCKS(kmalloc_account, kmalloc(ctx->size, MMBENCH_GFP | __GFP_ACCOUNT), kfree(p))

/* Charged to the loader's memory cgroup, not the root (the one with no parent); SLAB_ACCOUNT. */
static int account_setup(struct mmbench_ctx *ctx)
{
	long slack;

	if (!mmbench_memcg || !parent_mem_cgroup(mmbench_memcg) || !memcg_kmem_online()) {
		mmbench_set(ctx->row, MMBENCH_UNSUPPORTED, "%s", !mmbench_memcg ?
			    "no memory cgroups: CONFIG_MEMCG off, or cgroup_disable=memory" :
			    !parent_mem_cgroup(mmbench_memcg) ?
			    "loaded from the root memory cgroup, which is not charged" :
			    "kernel memory is not charged: cgroup.memory=nokmem");
		return -EOPNOTSUPP;
	}
	if (ctx->bench->op == cache_pair_op) {
		ctx->cache = kmem_cache_create("mmbench", ctx->size, 0,
					       SLAB_NO_MERGE | SLAB_ACCOUNT, NULL);
		if (!ctx->cache)
			return -ENOMEM;
	}
	if (ctx->bench->pages)
		pages_setup(ctx);
	ctx->usage = mmbench_usage(&slack);
	return 0;
}

/*
 * All given back, but for its CPU's precharge: usage no higher (others' drained stocks lower
 * it).  The kselftest loads the module from a cgroup of its own: no other task charges it.
 */
static void account_teardown(struct mmbench_ctx *ctx)
{
	long slack, off = mmbench_usage(&slack) - ctx->usage;

	if (!mem_cgroup_online(mmbench_memcg))
		mmbench_set(ctx->row, MMBENCH_ERROR, "the memory cgroup was removed meanwhile");
	else if (ctx->uncharged)
		mmbench_set(ctx->row, MMBENCH_FAIL, "%ld %s held not charged to the memory cgroup",
			    ctx->uncharged, ctx->bench->pages ? "blocks" : "batches");
	else if (off > slack)
		mmbench_set(ctx->row, MMBENCH_FAIL,
			    "memory cgroup usage up %ld pages after the row (limit %ld)",
			    off, slack);
}

#define MMBENCH_ACCOUNT	.account = true, .setup = account_setup, .teardown = account_teardown

static const struct mmbench_bench mmbench_account[] = {
	{ .name = "alloc_pages_account", .list = &mmbench_orders, .pages = true, MMBENCH_ACCOUNT,
	  .op = pages_account_pair_op, MMBENCH_GET_PUT(pages_account) },
	{ .name = "kmalloc_account", .list = &mmbench_sizes, MMBENCH_ACCOUNT,
	  .op = kmalloc_account_pair_op, MMBENCH_GET_PUT(kmalloc_account) },
	{ .name = "kmem_cache_account", .list = &mmbench_sizes, MMBENCH_ACCOUNT,
	  .op = cache_pair_op, MMBENCH_GET_PUT(cache) },
};

/* series: end */
/* series: numa */
/* ---- a remote node ---- */

MMBENCH_BLOCKS(kmalloc_remote, kmalloc_node(ctx->size, MMBENCH_GFP | __GFP_THISNODE, ctx->node),
	       kfree(p))

/* Blocks of the node after this CPU's memory node, of those slab takes from, freed here. */
static int node_setup(struct mmbench_ctx *ctx)
{
	int here = numa_mem_id();

	ctx->node = next_node_in(here, node_states[N_NORMAL_MEMORY]);
	if (ctx->node == here || ctx->node >= MAX_NUMNODES) {
		mmbench_set(ctx->row, MMBENCH_UNSUPPORTED, "one node with memory: none remote");
		return -EOPNOTSUPP;
	}
	return ctx->bench->pages ? pages_setup(ctx) : 0;
}

/* A block off the node fails, unless it lost its memory; later kmalloc()s get a local slab. */
static void node_teardown(struct mmbench_ctx *ctx)
{
	int here = numa_mem_id();

	if (!ctx->bench->pages)
		kfree(kmalloc_node(ctx->size, MMBENCH_GFP | __GFP_THISNODE, here));
	if (!node_state(ctx->node, N_NORMAL_MEMORY))
		mmbench_set(ctx->row, MMBENCH_ERROR, "node %d lost its memory", ctx->node);
	else if (ctx->elsewhere)
		mmbench_set(ctx->row, MMBENCH_FAIL, "%llu blocks not on node %d",
			    ctx->elsewhere, ctx->node);
	else if (ctx->row->status == MMBENCH_PASS)
		mmbench_set(ctx->row, MMBENCH_PASS, "from node %d, freed on node %d (distance %d)",
			    ctx->node, here, node_distance(here, ctx->node));
}

#define MMBENCH_NODE	.remote = true, .setup = node_setup, .teardown = node_teardown

static const struct mmbench_bench mmbench_numa[] = {
	{ .name = "alloc_pages_remote_node", .list = &mmbench_orders, .pages = true, MMBENCH_NODE,
	  .op = pages_node_pair_op, MMBENCH_GET_PUT(pages_node) },
	{ .name = "kmalloc_remote_node", .list = &mmbench_sizes, MMBENCH_NODE,
	  .op = kmalloc_remote_pair_op, MMBENCH_GET_PUT(kmalloc_remote) },
};

/* series: end */
/* ---- the load ---- */

/* Each family's table, first and past the last, in the order their rows run. */
static const struct mmbench_bench *mmbench_families[][2] = {
	{ mmbench_vmstat, mmbench_vmstat + ARRAY_SIZE(mmbench_vmstat) },
/* series: page_alloc */
	{ mmbench_page_alloc, mmbench_page_alloc + ARRAY_SIZE(mmbench_page_alloc) },
/* series: end */
/* series: slab */
	{ mmbench_slab, mmbench_slab + ARRAY_SIZE(mmbench_slab) },
/* series: end */
/* series: page_frag */
	{ mmbench_page_frag, mmbench_page_frag + ARRAY_SIZE(mmbench_page_frag) },
/* series: end */
/* series: cpus */
	{ mmbench_cpus, mmbench_cpus + ARRAY_SIZE(mmbench_cpus) },
/* series: end */
/* series: memcg */
	{ mmbench_account, mmbench_account + ARRAY_SIZE(mmbench_account) },
/* series: end */
/* series: numa */
	{ mmbench_numa, mmbench_numa + ARRAY_SIZE(mmbench_numa) },
/* series: end */
};

static DECLARE_BITMAP(mmbench_found, ARRAY_SIZE(mmbench_names));

/* How many names of benchmarks= are @b's ("all" is); marks them found. */
static unsigned int mmbench_named(const struct mmbench_bench *b)
{
	unsigned int i, n = 0;

	for (i = 0; i < mmbench_nr_names; i++) {
		if (strcmp(mmbench_names[i], b->name) && strcmp(mmbench_names[i], "all"))
			continue;
		__set_bit(i, mmbench_found);
		n++;
	}
	return b == mmbench_vmstat ? 1 : n;	/* the baseline always runs */
}

/* The values of @l are in its range, each once; else -EINVAL. */
static int mmbench_check_list(const struct mmbench_list *l)
{
	unsigned int i, j;

	for (i = 0; i < l->nr; i++) {
		for (j = 0; j < i && l->vals[j] != l->vals[i]; j++)
			;
		if (j < i)
			pr_err("%s: %u given twice\n", l->param, l->vals[i]);
		else if (l->vals[i] < l->min || l->vals[i] > l->max)
			pr_err("%s: '%u' is not a number from %u to %u\n", l->param, l->vals[i],
			       l->min, l->max);
		else
			continue;
		return -EINVAL;
	}
	return 0;
}

/* The rows of the benchmarks chosen, into @rows if not NULL; how many. */
static int mmbench_walk(struct mmbench_row *rows)
{
	const struct mmbench_bench *b;
	unsigned int f, v, n = 0;
	struct mmbench_row *row;

	for (f = 0; f < ARRAY_SIZE(mmbench_families); f++) {
		for (b = mmbench_families[f][0]; b < mmbench_families[f][1]; b++) {
			if (b->list && mmbench_check_list(b->list))
				return -EINVAL;
			if (mmbench_named(b) > 1) {
				pr_err("benchmarks: %s given twice\n", b->name);
				return -EINVAL;
			}
			for (v = 0; mmbench_named(b) && v < (b->list ? b->list->nr : 1); v++, n++) {
				row = rows ? &rows[n] : NULL;
				if (!row)
					continue;
				row->bench = b;
				row->arg = b->list ? b->list->vals[v] : 0;
				if (b->list)
					snprintf(row->name, sizeof(row->name), "%s_%s%u", b->name,
						 b->list->prefix ?: "", row->arg);
				else
					strscpy(row->name, b->name);
				mmbench_set(row, MMBENCH_ERROR, "not run");
			}
		}
	}
	return n;
}

static void mmbench_free(void)
{
	kvfree(mmbench_rows);
/* series: page_alloc */
	kvfree(mmbench_ptrs);
/* series: end */
	if (mmbench_page)
		__free_page(mmbench_page);
}

/* Check the parameters, run every row on the chosen CPU, then show them. */
static int __init test_mmbench_init(void)
{
	unsigned long most = msecs_to_jiffies(mmbench_budget_ms + 10000);
	struct task_struct *task;
	int n, cpu = mmbench_cpu;
	unsigned int i;
	long ret;

/* series: cpus */
	if (mmbench_cpus_list && (cpulist_parse(mmbench_cpus_list, &mmbench_cpus_mask) ||
				  cpumask_empty(&mmbench_cpus_mask) ||
				  !cpumask_subset(&mmbench_cpus_mask, cpu_online_mask))) {
		pr_err("cpus: '%s' is not a list of online CPUs (%*pbl)\n", mmbench_cpus_list,
		       cpumask_pr_args(cpu_online_mask));
		return -EINVAL;
	}
/* series: end */
	rcu_read_lock();	/* newer kernels change it at run time */
	if (cpu == -1)
		cpu = cpumask_first_and(cpu_online_mask, housekeeping_cpumask(HK_TYPE_DOMAIN));
/* series: cpus */
	if (!mmbench_cpus_list)
		cpumask_and(&mmbench_cpus_mask, cpu_online_mask,
			    housekeeping_cpumask(HK_TYPE_DOMAIN));
/* series: end */
	rcu_read_unlock();
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("cpu: %d is not an online CPU, nor -1\n", mmbench_cpu);
		return -EINVAL;
	}
/* series: cpus */
	n = cpumask_weight(&mmbench_cpus_mask);
	kernel_param_lock(THIS_MODULE);		/* what its file reads */
	if (!mmbench_team_cpus.nr) {	/* 1, 2, 4, ..., 64 below n, and n */
		for (i = 1; i < n && mmbench_team_cpus.nr < 7; i *= 2)
			mmbench_team_cpus.vals[mmbench_team_cpus.nr++] = i;
		mmbench_team_cpus.vals[mmbench_team_cpus.nr++] = n;
	}
	kernel_param_unlock(THIS_MODULE);
/* series: end */
	n = mmbench_walk(NULL);
	if (n < 0)
		return n;
	i = find_first_zero_bit(mmbench_found, mmbench_nr_names);
	if (i < mmbench_nr_names) {
		pr_err("benchmarks: unknown benchmark '%s'\n", mmbench_names[i]);
		return -EINVAL;
	}
	ret = -ENOMEM;
	mmbench_rows = kvcalloc(n, sizeof(*mmbench_rows), GFP_KERNEL);
	mmbench_page = alloc_page(GFP_KERNEL);
/* series: page_alloc */
	mmbench_ptrs = kvcalloc(max(mmbench_batch, MMBENCH_MAX_BULK), sizeof(void *), GFP_KERNEL);
	if (!mmbench_ptrs)
		goto out;
/* series: end */
	if (!mmbench_rows || !mmbench_page)
		goto out;
	mmbench_nr_rows = mmbench_walk(mmbench_rows);
	task = kthread_create_on_cpu(mmbench_thread, NULL, cpu, "mmbench/%u");
	ret = PTR_ERR_OR_ZERO(task);
	if (ret)
		goto out;
/* series: memcg */
	mmbench_memcg = get_mem_cgroup_from_mm(current->mm);
/* series: end */
	wake_up_process(get_task_struct(task));
	/* Killable, and bounded: a run that hangs stops, with its rows. */
	ret = wait_for_completion_killable_timeout(&mmbench_done, most);
	WRITE_ONCE(mmbench_stop, true);
	mmbench_stop_thread(task);
/* series: memcg */
	mem_cgroup_put(mmbench_memcg);
	mmbench_memcg = NULL;
/* series: end */
	if (!ret)
		pr_warn("the run did not end in budget_ms and 10 s: stopped\n");
	ret = ret < 0 ? -EINTR : mmbench_sysfs_create();
out:
	if (ret)
		mmbench_free();
	return ret;
}

static void __exit test_mmbench_exit(void)
{
	mmbench_sysfs_remove();
	mmbench_free();
}

module_init(test_mmbench_init);
module_exit(test_mmbench_exit);

MODULE_DESCRIPTION("Benchmarks of memory-management hot paths");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
