// SPDX-License-Identifier: GPL-2.0
/*
 * test_mmbench.c - time memory-management hot paths from inside the kernel
 *
 * Each benchmark runs a loop of ops on one CPU, in a kernel thread bound to
 * that CPU, and is timed with get_cycles() and ktime_get_ns() around each
 * sample of ops.  One warm-up sample is discarded, then the requested number
 * of samples is kept.  After the last sample a functional check proves that
 * the path did what it should (for vmstat: every counter is back where it
 * started).
 *
 * Results are published atomically, as a whole run, under
 * /sys/kernel/mmbench/ (see Documentation/ABI/testing/sysfs-kernel-mmbench)
 * and stay readable until the module is removed.  Writing 1 to
 * /sys/kernel/mmbench/run runs the selected benchmarks again.
 *
 * The kselftest in tools/testing/selftests/mm/mmbench/ loads this module,
 * reads the results back and decides pass or fail.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timex.h>
#include <linux/vmstat.h>

/*
 * Counters the vmstat benchmarks update.  Each is shown in /proc but nothing
 * in the kernel makes a decision on it, and every benchmark leaves it where
 * it found it.
 */
#define MMBENCH_ZONE_ITEM	NR_MLOCK
#define MMBENCH_NODE_ITEM	NR_VMSCAN_IMMEDIATE
#ifdef CONFIG_VM_EVENT_COUNTERS
#define MMBENCH_EVENT_ITEM	UNEVICTABLE_PGSTRANDED
#endif

#define MMBENCH_MAX_ITERATIONS	1000000U
#define MMBENCH_MAX_SAMPLES	1000U
/* Stop taking samples of one benchmark once it has run this long. */
#define MMBENCH_BENCH_BUDGET_NS	(10ULL * NSEC_PER_SEC)
#define MMBENCH_REASON_LEN	96

/**
 * struct mmbench_ctx - state of one benchmark while it runs
 * @page: a page allocated for the run; its zone and node are the ones updated
 * @zone: page_zone(@page)
 * @pgdat: page_pgdat(@page)
 * @ops: ops per sample
 * @delta: 1, hidden from the compiler so that count_vm_events() takes a
 *	variable delta as its callers do
 * @before: counter value read before setup, for the functional check
 */
struct mmbench_ctx {
	struct page *page;
	struct zone *zone;
	struct pglist_data *pgdat;
	u32 ops;
	long delta;
	long before;
};

/**
 * struct mmbench_bench - one benchmark
 * @name: name in sysfs and in the benchmarks= parameter
 * @group: family of paths, e.g. "vmstat"
 * @unit: what one op is, for the log
 * @setup: prepare @ctx once, untimed; 0, -EOPNOTSUPP (reported
 *	"unsupported", with the reason written to @reason) or another error
 * @prep: before each sample, untimed: give the ops what they consume
 * @op: run @n ops; this is the timed region
 * @restore: after each sample, untimed: undo what the ops left behind
 * @read: read the counter the benchmark updates, for the functional check
 */
struct mmbench_bench {
	const char *name;
	const char *group;
	const char *unit;
	int (*setup)(struct mmbench_ctx *ctx, char *reason);
	void (*prep)(struct mmbench_ctx *ctx);
	void (*op)(struct mmbench_ctx *ctx, u32 n);
	void (*restore)(struct mmbench_ctx *ctx);
	long (*read)(struct mmbench_ctx *ctx);
};

enum mmbench_status {
	MMBENCH_NOT_RUN,
	MMBENCH_PASS,
	MMBENCH_FAIL,
	MMBENCH_UNSUPPORTED,
	MMBENCH_ERROR,
};

static const char * const mmbench_status_names[] = {
	[MMBENCH_NOT_RUN] = "not_run",
	[MMBENCH_PASS] = "pass",
	[MMBENCH_FAIL] = "fail",
	[MMBENCH_UNSUPPORTED] = "unsupported",
	[MMBENCH_ERROR] = "error",
};

/* Per-op figures are fixed point: 1/1000 of a ns (ps) or of a cycle. */
struct mmbench_stat {
	u64 min;
	u64 median;
	u64 max;
};

/**
 * struct mmbench_result - what one benchmark measured in one run
 * @status: outcome, see mmbench_status_names
 * @reason: why the status is not "pass", or empty
 * @cpu: CPU the samples ran on
 * @ops: ops per sample
 * @samples: samples kept (the warm-up sample is not counted)
 * @cycles_valid: get_cycles() advanced during the samples
 * @ns: ns/op over the samples, in ps
 * @cycles: cycles/op over the samples, in 1/1000 cycle
 * @counter_delta: counter value after the run minus before; 0 when the path
 *	left the counter where it found it
 */
struct mmbench_result {
	enum mmbench_status status;
	char reason[MMBENCH_REASON_LEN];
	int cpu;
	u32 ops;
	u32 samples;
	bool cycles_valid;
	struct mmbench_stat ns;
	struct mmbench_stat cycles;
	long counter_delta;
};

/* ---- vmstat benchmarks ---- */

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

static void inc_zone_op(struct mmbench_ctx *ctx, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		inc_zone_page_state(ctx->page, MMBENCH_ZONE_ITEM);
}

static void inc_zone_restore(struct mmbench_ctx *ctx)
{
	mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, -(long)ctx->ops);
}

/*
 * Add, untimed, what the decrements will take away, so that the counter
 * never drops below where it started.
 */
static void dec_zone_prep(struct mmbench_ctx *ctx)
{
	mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, ctx->ops);
}

static void dec_zone_op(struct mmbench_ctx *ctx, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		dec_zone_page_state(ctx->page, MMBENCH_ZONE_ITEM);
}

static void inc_dec_zone_op(struct mmbench_ctx *ctx, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		inc_zone_page_state(ctx->page, MMBENCH_ZONE_ITEM);
		dec_zone_page_state(ctx->page, MMBENCH_ZONE_ITEM);
	}
}

static void mod_node_op(struct mmbench_ctx *ctx, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		mod_node_page_state(ctx->pgdat, MMBENCH_NODE_ITEM, 1);
		mod_node_page_state(ctx->pgdat, MMBENCH_NODE_ITEM, -1);
	}
}

/* The __ variant is for callers that already have irqs disabled. */
static void __mod_zone_op(struct mmbench_ctx *ctx, u32 n)
{
	unsigned long flags;
	u32 i;

	local_irq_save(flags);
	for (i = 0; i < n; i++) {
		__mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, 1);
		__mod_zone_page_state(ctx->zone, MMBENCH_ZONE_ITEM, -1);
	}
	local_irq_restore(flags);
}

#ifdef CONFIG_VM_EVENT_COUNTERS
static int vm_event_setup(struct mmbench_ctx *ctx, char *reason)
{
	return 0;
}

/* Sum over possible CPUs: a CPU that went offline keeps a folded zero. */
static long vm_event_read(struct mmbench_ctx *ctx)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[MMBENCH_EVENT_ITEM];
	return (long)sum;
}

static void count_vm_event_op(struct mmbench_ctx *ctx, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		count_vm_event(MMBENCH_EVENT_ITEM);
}

static void count_vm_events_op(struct mmbench_ctx *ctx, u32 n)
{
	long delta = ctx->delta;
	u32 i;

	for (i = 0; i < n; i++)
		count_vm_events(MMBENCH_EVENT_ITEM, delta);
}

/* Events only count up; adding the negated total puts the sum back. */
static void vm_event_restore(struct mmbench_ctx *ctx)
{
	count_vm_events(MMBENCH_EVENT_ITEM, -(long)ctx->ops * ctx->delta);
}
#else
static int vm_event_setup(struct mmbench_ctx *ctx, char *reason)
{
	strscpy(reason, "CONFIG_VM_EVENT_COUNTERS is not set",
		MMBENCH_REASON_LEN);
	return -EOPNOTSUPP;
}

static long vm_event_read(struct mmbench_ctx *ctx)
{
	return 0;
}

#define count_vm_event_op	NULL
#define count_vm_events_op	NULL
#define vm_event_restore	NULL
#endif

static const struct mmbench_bench mmbench_benches[] = {
	{
		.name = "inc_zone_page_state", .group = "vmstat",
		.unit = "one call", .op = inc_zone_op,
		.restore = inc_zone_restore, .read = zone_item_read,
	}, {
		.name = "dec_zone_page_state", .group = "vmstat",
		.unit = "one call", .prep = dec_zone_prep, .op = dec_zone_op,
		.read = zone_item_read,
	}, {
		.name = "inc_dec_zone_page_state", .group = "vmstat",
		.unit = "an inc and a dec", .op = inc_dec_zone_op,
		.read = zone_item_read,
	}, {
		.name = "mod_node_page_state", .group = "vmstat",
		.unit = "a +1 and a -1", .op = mod_node_op,
		.read = node_item_read,
	}, {
		.name = "__mod_zone_page_state", .group = "vmstat",
		.unit = "a +1 and a -1, irqs off", .op = __mod_zone_op,
		.read = zone_item_read,
	}, {
		.name = "count_vm_event", .group = "vmstat",
		.unit = "one call", .setup = vm_event_setup,
		.op = count_vm_event_op, .restore = vm_event_restore,
		.read = vm_event_read,
	}, {
		.name = "count_vm_events", .group = "vmstat",
		.unit = "one call", .setup = vm_event_setup,
		.op = count_vm_events_op, .restore = vm_event_restore,
		.read = vm_event_read,
	},
};

#define MMBENCH_NR	ARRAY_SIZE(mmbench_benches)

/* ---- parameters ---- */

static DECLARE_BITMAP(mmbench_selected, MMBENCH_NR);
static char mmbench_selected_str[256] = "all";
static unsigned int mmbench_iterations = 100000;
static unsigned int mmbench_samples = 9;
static int mmbench_cpu = -1;
static bool run_on_load = true;

static int mmbench_find(const char *name, size_t len)
{
	int i;

	for (i = 0; i < MMBENCH_NR; i++)
		if (strlen(mmbench_benches[i].name) == len &&
		    !strncmp(mmbench_benches[i].name, name, len))
			return i;
	return -ENOENT;
}

static int benchmarks_set(const char *val, const struct kernel_param *kp)
{
	DECLARE_BITMAP(sel, MMBENCH_NR);
	char buf[sizeof(mmbench_selected_str)];
	const char *p;
	size_t len;
	int i;

	len = strscpy(buf, val, sizeof(buf));
	if ((ssize_t)len < 0) {
		pr_err("%s: list longer than %zu characters\n", kp->name,
		       sizeof(buf) - 1);
		return -EINVAL;
	}
	strim(buf);
	if (!strcmp(buf, "all")) {
		bitmap_fill(mmbench_selected, MMBENCH_NR);
		strscpy(mmbench_selected_str, buf);
		return 0;
	}

	bitmap_zero(sel, MMBENCH_NR);
	for (p = buf; ; p += len + 1) {
		len = strcspn(p, ",");
		if (!len) {
			pr_err("%s: empty name in '%s'\n", kp->name, buf);
			return -EINVAL;
		}
		i = mmbench_find(p, len);
		if (i < 0) {
			pr_err("%s: unknown benchmark '%.*s'\n", kp->name,
			       (int)len, p);
			return -EINVAL;
		}
		__set_bit(i, sel);
		if (!p[len])
			break;
	}
	bitmap_copy(mmbench_selected, sel, MMBENCH_NR);
	strscpy(mmbench_selected_str, buf);
	return 0;
}

static int benchmarks_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", mmbench_selected_str);
}

static const struct kernel_param_ops benchmarks_ops = {
	.set = benchmarks_set,
	.get = benchmarks_get,
};

module_param_cb(benchmarks, &benchmarks_ops, NULL, 0444);
MODULE_PARM_DESC(benchmarks,
		 "Comma-separated benchmark names, or \"all\" (default all)");

/**
 * struct mmbench_uint_param - an unsigned parameter with a range
 * @value: where the value is stored
 * @min: smallest accepted value
 * @max: largest accepted value
 */
struct mmbench_uint_param {
	unsigned int *value;
	unsigned int min;
	unsigned int max;
};

static int uint_range_set(const char *val, const struct kernel_param *kp)
{
	const struct mmbench_uint_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 0, &v)) {
		pr_err("%s: '%s' is not an unsigned integer\n", kp->name, val);
		return -EINVAL;
	}
	if (v < p->min || v > p->max) {
		pr_err("%s=%u is out of range [%u, %u]\n", kp->name, v,
		       p->min, p->max);
		return -EINVAL;
	}
	*p->value = v;
	return 0;
}

static int uint_range_get(char *buffer, const struct kernel_param *kp)
{
	const struct mmbench_uint_param *p = kp->arg;

	return sysfs_emit(buffer, "%u\n", *p->value);
}

static const struct kernel_param_ops uint_range_ops = {
	.set = uint_range_set,
	.get = uint_range_get,
};

static struct mmbench_uint_param iterations_param = {
	.value = &mmbench_iterations, .min = 1, .max = MMBENCH_MAX_ITERATIONS,
};
module_param_cb(iterations, &uint_range_ops, &iterations_param, 0444);
MODULE_PARM_DESC(iterations,
		 "Ops per sample, 1..1000000 (default 100000)");

static struct mmbench_uint_param samples_param = {
	.value = &mmbench_samples, .min = 1, .max = MMBENCH_MAX_SAMPLES,
};
module_param_cb(samples, &uint_range_ops, &samples_param, 0444);
MODULE_PARM_DESC(samples,
		 "Timed samples per benchmark after one warm-up, 1..1000 (default 9)");

static int cpu_set(const char *val, const struct kernel_param *kp)
{
	int v;

	if (kstrtoint(val, 0, &v)) {
		pr_err("%s: '%s' is not an integer\n", kp->name, val);
		return -EINVAL;
	}
	if (v < -1 || v >= (int)nr_cpu_ids || (v >= 0 && !cpu_online(v))) {
		pr_err("%s=%d is not an online CPU (online: %*pbl), nor -1\n",
		       kp->name, v, cpumask_pr_args(cpu_online_mask));
		return -EINVAL;
	}
	mmbench_cpu = v;
	return 0;
}

static const struct kernel_param_ops cpu_ops = {
	.set = cpu_set,
	.get = param_get_int,
};

module_param_cb(cpu, &cpu_ops, &mmbench_cpu, 0444);
MODULE_PARM_DESC(cpu,
		 "CPU to run on, or -1 for the first online CPU (default -1)");

module_param(run_on_load, bool, 0444);
MODULE_PARM_DESC(run_on_load,
		 "Run the selected benchmarks when the module loads (default Y)");

/* ---- timing engine ---- */

enum mmbench_state {
	MMBENCH_IDLE,
	MMBENCH_RUNNING,
	MMBENCH_DONE,
};

static const char * const mmbench_state_names[] = {
	[MMBENCH_IDLE] = "idle",
	[MMBENCH_RUNNING] = "running",
	[MMBENCH_DONE] = "done",
};

/*
 * mmbench_lock protects the published results, the state and the sequence
 * number.  A run works on mmbench_pending, which only its thread touches,
 * and publishes it whole.
 */
static DEFINE_MUTEX(mmbench_lock);
static enum mmbench_state mmbench_state;
static u64 mmbench_seq;
static struct mmbench_result mmbench_results[MMBENCH_NR];
static struct mmbench_result mmbench_pending[MMBENCH_NR];
/* The thread of the latest run, pinned so that it can be reaped. */
static struct task_struct *mmbench_task;
static DECLARE_COMPLETION(mmbench_run_done);

static int u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void mmbench_summarise(u64 *v, u32 n, struct mmbench_stat *st)
{
	sort(v, n, sizeof(*v), u64_cmp, NULL);
	st->min = v[0];
	st->max = v[n - 1];
	st->median = n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Time @nr samples of ctx->ops ops after one warm-up sample.  Per-op figures
 * go to @ps and @mcyc, in 1/1000 ns and 1/1000 cycle.  Returns the number of
 * samples kept: fewer than @nr when the time budget ran out.
 */
static u32 mmbench_time(const struct mmbench_bench *b, struct mmbench_ctx *ctx,
			u32 nr, u64 *ps, u64 *mcyc)
{
	u64 start = ktime_get_ns();
	u32 kept = 0;
	int s;

	for (s = -1; s < (int)nr; s++) {
		u64 t0, t1;
		cycles_t c0, c1;

		if (b->prep)
			b->prep(ctx);
		t0 = ktime_get_ns();
		c0 = get_cycles();
		b->op(ctx, ctx->ops);
		c1 = get_cycles();
		t1 = ktime_get_ns();
		if (b->restore)
			b->restore(ctx);

		if (s >= 0) {
			ps[kept] = div_u64((t1 - t0) * 1000, ctx->ops);
			mcyc[kept] = div_u64((u64)(c1 - c0) * 1000, ctx->ops);
			kept++;
		}
		cond_resched();
		if (kept && t1 - start > MMBENCH_BENCH_BUDGET_NS)
			break;
	}
	return kept;
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

static void mmbench_one(const struct mmbench_bench *b, struct mmbench_ctx *ctx,
			struct mmbench_result *r, u64 *ps, u64 *mcyc)
{
	u32 kept;
	int ret;

	r->cpu = raw_smp_processor_id();
	r->ops = ctx->ops;
	ctx->delta = 1;
	ctx->before = b->read(ctx);

	ret = b->setup ? b->setup(ctx, r->reason) : 0;
	if (ret) {
		r->status = ret == -EOPNOTSUPP ? MMBENCH_UNSUPPORTED :
						 MMBENCH_ERROR;
		if (!r->reason[0])
			snprintf(r->reason, sizeof(r->reason),
				 "setup failed: %d", ret);
		return;
	}

	kept = mmbench_time(b, ctx, mmbench_samples, ps, mcyc);
	r->samples = kept;
	mmbench_summarise(ps, kept, &r->ns);
	mmbench_summarise(mcyc, kept, &r->cycles);
	r->cycles_valid = r->cycles.max != 0;
	r->counter_delta = mmbench_counter_delta(b, ctx);

	if (r->counter_delta) {
		r->status = MMBENCH_FAIL;
		snprintf(r->reason, sizeof(r->reason),
			 "counter off by %ld after the run", r->counter_delta);
	} else if (raw_smp_processor_id() != r->cpu) {
		r->status = MMBENCH_FAIL;
		snprintf(r->reason, sizeof(r->reason),
			 "moved from CPU %d to CPU %d (offlined?)", r->cpu,
			 raw_smp_processor_id());
	} else {
		r->status = MMBENCH_PASS;
		if (kept < mmbench_samples)
			snprintf(r->reason, sizeof(r->reason),
				 "time budget: %u of %u samples", kept,
				 mmbench_samples);
	}
}

static void mmbench_log(const struct mmbench_bench *b,
			const struct mmbench_result *r)
{
	if (r->status != MMBENCH_PASS) {
		pr_info("%s: %s: %s\n", b->name,
			mmbench_status_names[r->status], r->reason);
		return;
	}
	pr_info("%s: median %llu.%03llu ns (min %llu.%03llu, max %llu.%03llu), %llu.%03llu cycles per op (%s), %u samples of %u ops on CPU %d\n",
		b->name, r->ns.median / 1000, r->ns.median % 1000,
		r->ns.min / 1000, r->ns.min % 1000,
		r->ns.max / 1000, r->ns.max % 1000,
		r->cycles.median / 1000, r->cycles.median % 1000, b->unit,
		r->samples, r->ops, r->cpu);
}

static int mmbench_thread(void *unused)
{
	struct mmbench_ctx ctx = { .ops = mmbench_iterations };
	u64 *ps, *mcyc;
	int i;

	memset(mmbench_pending, 0, sizeof(mmbench_pending));
	ps = kcalloc(mmbench_samples, sizeof(*ps), GFP_KERNEL);
	mcyc = kcalloc(mmbench_samples, sizeof(*mcyc), GFP_KERNEL);
	ctx.page = alloc_page(GFP_KERNEL);
	if (!ps || !mcyc || !ctx.page) {
		for (i = 0; i < MMBENCH_NR; i++) {
			if (!test_bit(i, mmbench_selected))
				continue;
			mmbench_pending[i].status = MMBENCH_ERROR;
			strscpy(mmbench_pending[i].reason, "out of memory");
		}
		goto publish;
	}
	ctx.zone = page_zone(ctx.page);
	ctx.pgdat = page_pgdat(ctx.page);

	for (i = 0; i < MMBENCH_NR; i++) {
		if (!test_bit(i, mmbench_selected))
			continue;
		mmbench_one(&mmbench_benches[i], &ctx, &mmbench_pending[i],
			    ps, mcyc);
		mmbench_log(&mmbench_benches[i], &mmbench_pending[i]);
	}

publish:
	if (ctx.page)
		__free_page(ctx.page);
	kfree(mcyc);
	kfree(ps);

	mutex_lock(&mmbench_lock);
	memcpy(mmbench_results, mmbench_pending, sizeof(mmbench_results));
	mmbench_seq++;
	mmbench_state = MMBENCH_DONE;
	mutex_unlock(&mmbench_lock);

	complete_all(&mmbench_run_done);
	return 0;
}

/*
 * Wait until the thread of the latest run has exited, and release it.  The
 * caller makes sure no other run can start meanwhile.
 */
static void mmbench_reap(void)
{
	if (!mmbench_task)
		return;
	kthread_stop(mmbench_task);
	put_task_struct(mmbench_task);
	mmbench_task = NULL;
}

/*
 * Start a run in a thread bound to the chosen CPU.  Returns 0 once started,
 * -EBUSY if a run is in flight, or an error if the CPU is offline or the
 * thread could not be created.
 */
static int mmbench_start(void)
{
	struct task_struct *task;
	int cpu, ret = 0;

	mutex_lock(&mmbench_lock);
	if (mmbench_state == MMBENCH_RUNNING) {
		ret = -EBUSY;
		goto out;
	}
	cpu = mmbench_cpu >= 0 ? mmbench_cpu : cpumask_first(cpu_online_mask);
	if (!cpu_online(cpu)) {
		pr_err("cpu=%d is no longer online\n", cpu);
		ret = -EINVAL;
		goto out;
	}
	mmbench_reap();
	task = kthread_create_on_cpu(mmbench_thread, NULL, cpu, "mmbench/%u");
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto out;
	}
	mmbench_task = get_task_struct(task);
	reinit_completion(&mmbench_run_done);
	mmbench_state = MMBENCH_RUNNING;
	wake_up_process(task);
out:
	mutex_unlock(&mmbench_lock);
	return ret;
}

/* ---- sysfs ---- */

enum mmbench_field {
	F_STATUS, F_REASON, F_GROUP, F_CPU, F_OPS, F_SAMPLES,
	F_NS_MIN, F_NS_MEDIAN, F_NS_MAX,
	F_CYC_MIN, F_CYC_MEDIAN, F_CYC_MAX,
	F_COUNTER_DELTA,
};

struct mmbench_attr {
	struct kobj_attribute attr;
	enum mmbench_field field;
};

static ssize_t emit_fixed(char *buf, u64 v)
{
	return sysfs_emit(buf, "%llu.%03llu\n", v / 1000, v % 1000);
}

static ssize_t emit_cycles(char *buf, const struct mmbench_result *r, u64 v)
{
	if (!r->cycles_valid)
		return sysfs_emit(buf, "unsupported\n");
	return emit_fixed(buf, v);
}

static ssize_t result_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	enum mmbench_field f = container_of(attr, struct mmbench_attr,
					    attr)->field;
	const char *name = kobject_name(kobj);
	const struct mmbench_result *r;
	ssize_t ret;
	int i;

	i = mmbench_find(name, strlen(name));
	if (i < 0)
		return -ENOENT;
	if (f == F_GROUP)
		return sysfs_emit(buf, "%s\n", mmbench_benches[i].group);

	mutex_lock(&mmbench_lock);
	r = &mmbench_results[i];
	switch (f) {
	case F_STATUS:
		ret = sysfs_emit(buf, "%s\n", mmbench_status_names[r->status]);
		break;
	case F_REASON:
		ret = sysfs_emit(buf, "%s\n", r->reason);
		break;
	case F_CPU:
		ret = sysfs_emit(buf, "%d\n", r->cpu);
		break;
	case F_OPS:
		ret = sysfs_emit(buf, "%u\n", r->ops);
		break;
	case F_SAMPLES:
		ret = sysfs_emit(buf, "%u\n", r->samples);
		break;
	case F_NS_MIN:
		ret = emit_fixed(buf, r->ns.min);
		break;
	case F_NS_MEDIAN:
		ret = emit_fixed(buf, r->ns.median);
		break;
	case F_NS_MAX:
		ret = emit_fixed(buf, r->ns.max);
		break;
	case F_CYC_MIN:
		ret = emit_cycles(buf, r, r->cycles.min);
		break;
	case F_CYC_MEDIAN:
		ret = emit_cycles(buf, r, r->cycles.median);
		break;
	case F_CYC_MAX:
		ret = emit_cycles(buf, r, r->cycles.max);
		break;
	case F_COUNTER_DELTA:
		ret = sysfs_emit(buf, "%ld\n", r->counter_delta);
		break;
	default:
		ret = -EINVAL;
	}
	mutex_unlock(&mmbench_lock);
	return ret;
}

#define MMBENCH_ATTR(_name, _field)					\
	static struct mmbench_attr mmbench_attr_##_name = {		\
		.attr = __ATTR(_name, 0444, result_show, NULL),		\
		.field = _field,					\
	}

MMBENCH_ATTR(status, F_STATUS);
MMBENCH_ATTR(reason, F_REASON);
MMBENCH_ATTR(group, F_GROUP);
MMBENCH_ATTR(cpu, F_CPU);
MMBENCH_ATTR(ops_per_sample, F_OPS);
MMBENCH_ATTR(samples, F_SAMPLES);
MMBENCH_ATTR(ns_per_op_min, F_NS_MIN);
MMBENCH_ATTR(ns_per_op_median, F_NS_MEDIAN);
MMBENCH_ATTR(ns_per_op_max, F_NS_MAX);
MMBENCH_ATTR(cycles_per_op_min, F_CYC_MIN);
MMBENCH_ATTR(cycles_per_op_median, F_CYC_MEDIAN);
MMBENCH_ATTR(cycles_per_op_max, F_CYC_MAX);
MMBENCH_ATTR(counter_delta, F_COUNTER_DELTA);

static struct attribute *mmbench_result_attrs[] = {
	&mmbench_attr_status.attr.attr,
	&mmbench_attr_reason.attr.attr,
	&mmbench_attr_group.attr.attr,
	&mmbench_attr_cpu.attr.attr,
	&mmbench_attr_ops_per_sample.attr.attr,
	&mmbench_attr_samples.attr.attr,
	&mmbench_attr_ns_per_op_min.attr.attr,
	&mmbench_attr_ns_per_op_median.attr.attr,
	&mmbench_attr_ns_per_op_max.attr.attr,
	&mmbench_attr_cycles_per_op_min.attr.attr,
	&mmbench_attr_cycles_per_op_median.attr.attr,
	&mmbench_attr_cycles_per_op_max.attr.attr,
	&mmbench_attr_counter_delta.attr.attr,
	NULL,
};

static const struct attribute_group mmbench_result_group = {
	.attrs = mmbench_result_attrs,
};

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	ssize_t ret;

	mutex_lock(&mmbench_lock);
	ret = sysfs_emit(buf, "%s\n", mmbench_state_names[mmbench_state]);
	mutex_unlock(&mmbench_lock);
	return ret;
}

static ssize_t seq_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	ssize_t ret;

	mutex_lock(&mmbench_lock);
	ret = sysfs_emit(buf, "%llu\n", mmbench_seq);
	mutex_unlock(&mmbench_lock);
	return ret;
}

/*
 * Writing a true value runs the selected benchmarks again and returns when
 * the run is over; a fatal signal stops the wait, not the run.
 */
static ssize_t run_store(struct kobject *kobj, struct kobj_attribute *attr,
			 const char *buf, size_t count)
{
	bool go;
	int ret;

	ret = kstrtobool(buf, &go);
	if (ret || !go)
		return -EINVAL;
	ret = mmbench_start();
	if (ret)
		return ret;
	ret = wait_for_completion_killable(&mmbench_run_done);
	return ret ? ret : count;
}

static struct kobj_attribute mmbench_attr_state = __ATTR_RO(state);
static struct kobj_attribute mmbench_attr_seq = __ATTR_RO(seq);
static struct kobj_attribute mmbench_attr_run = __ATTR_WO(run);

static struct attribute *mmbench_top_attrs[] = {
	&mmbench_attr_state.attr,
	&mmbench_attr_seq.attr,
	&mmbench_attr_run.attr,
	NULL,
};

static const struct attribute_group mmbench_top_group = {
	.attrs = mmbench_top_attrs,
};

static struct kobject *mmbench_kobj;
static struct kobject *mmbench_bench_kobj[MMBENCH_NR];

static void mmbench_sysfs_remove(void)
{
	int i;

	for (i = 0; i < MMBENCH_NR; i++)
		kobject_put(mmbench_bench_kobj[i]);
	kobject_put(mmbench_kobj);
}

static int mmbench_sysfs_create(void)
{
	int i, ret;

	mmbench_kobj = kobject_create_and_add("mmbench", kernel_kobj);
	if (!mmbench_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(mmbench_kobj, &mmbench_top_group);
	if (ret)
		goto err;
	for (i = 0; i < MMBENCH_NR; i++) {
		mmbench_bench_kobj[i] =
			kobject_create_and_add(mmbench_benches[i].name,
					       mmbench_kobj);
		if (!mmbench_bench_kobj[i]) {
			ret = -ENOMEM;
			goto err;
		}
		ret = sysfs_create_group(mmbench_bench_kobj[i],
					 &mmbench_result_group);
		if (ret)
			goto err;
	}
	return 0;
err:
	mmbench_sysfs_remove();
	return ret;
}

static int __init test_mmbench_init(void)
{
	int ret;

	/* The parameter's default "all" is not parsed at load. */
	if (!strcmp(mmbench_selected_str, "all"))
		bitmap_fill(mmbench_selected, MMBENCH_NR);

	ret = mmbench_sysfs_create();
	if (ret)
		return ret;

	if (run_on_load) {
		ret = mmbench_start();
		if (ret) {
			mmbench_sysfs_remove();
			return ret;
		}
		/* A run is bounded in time; do not count it as a hung task. */
		wait_for_completion_state(&mmbench_run_done, TASK_IDLE);
	}
	return 0;
}

static void __exit test_mmbench_exit(void)
{
	/* Remove the trigger first so that no new run can start. */
	mmbench_sysfs_remove();
	/* No lock: a running thread takes it to publish. */
	mmbench_reap();
}

module_init(test_mmbench_init);
module_exit(test_mmbench_exit);

MODULE_DESCRIPTION("Benchmarks of memory-management hot paths");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
