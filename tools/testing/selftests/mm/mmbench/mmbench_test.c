// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench_test - load test_mmbench, read back what it measured, judge it
 *
 * While it loads, test_mmbench times the rows of the benchmarks selected and
 * publishes what each ran and measured under /sys/kernel/mmbench/ (see
 * Documentation/ABI/testing/sysfs-kernel-mmbench).  It judges nothing: every
 * statistic and verdict is this program's.
 *
 * mmbench.<benchmark>.run loads it with that benchmark (the baseline always
 * runs).  For each row it computes from sample_ns the ns per op of each
 * sample, their min, median, MAD and noise (MAD / median), the net cost (the
 * median less the baseline's) and, from sample_cycles, the net cycles per op.
 * A row fails when the module's check failed (a block lost its tag; a vmstat
 * counter was left off, and is again in a second load), when it could not
 * run to its end (error) or ran on another CPU than the run's.  It is skipped
 * when the machine lacks what it needs (unsupported) or spoiled its figures
 * (every sample dropped, samples too short for the clock's step).  Else it
 * passes, and its median is held to its ceiling where that is enforced: over
 * it, it fails if over for sure (median less MAD, shrunk by the baseline's
 * drift to a second load, still over), else the case skips naming the
 * figures.  A case whose rows are all skipped skips.
 * context.fingerprint prints what the figures depend on, as user space and
 * the module's preempt file tell.  ndelay.slope checks the clock: the costs
 * of ndelay(D) differ by what the delays differ by.
 * Each figure is printed as a "# <row>.<key>=<value>" line.
 *
 * Environment: MMBENCH_MODULE, a test_mmbench.ko to load instead of "modprobe
 * test_mmbench"; MMBENCH_PARAMS, more module parameters (a benchmarks= there
 * skips the cases it leaves out); MMBENCH_CEILINGS, a ceilings file to read
 * first (default: "ceilings" beside this program); MMBENCH_CEILING_<NAME>,
 * the ceiling in ns/op of a row or benchmark, NAME in upper case;
 * MMBENCH_ENFORCE, 1 to enforce the ceilings even with debug options, 0 to
 * enforce none (unset: those the two above set are, and the default ones
 * unless debug options inflate costs); MMBENCH_DELAY_TOLERANCE, the ndelay
 * slope's in percent (10, or 60 emulated).
 *
 * Skips when not root, when the module is not installed, refused by the
 * kernel (signature, lockdown) or older than the test (it lacks a benchmark,
 * parameter or row the test asks for); any other failed load fails.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __x86_64__
#include <cpuid.h>
#endif

#include "../../kselftest_harness.h"

#define MODNAME		"test_mmbench"
#define SYSFS_DIR	"/sys/kernel/mmbench"
#define PARAMS_DIR	"/sys/module/" MODNAME "/parameters"
#define VAL_LEN		256
#define WHY_LEN		2048
#define MAX_SAMPLES	250	/* the most a row keeps */
#define MAX_ROWS	24	/* the baseline, a benchmark's rows, one more */
#define UNKNOWN		1000000000000000LL	/* a MAD not known */
#define CASE_BUDGET_MS	15000	/* a load runs at most that and 10 s */
/*
 * Time limits in s: a case's load (and a short one to recheck a counter or
 * measure the drift); the clock case's CLOCK_RUNS loads.  The settings
 * file's timeout holds them all.
 */
#define CASE_TIMEOUT	40
#define CLOCK_TIMEOUT	150
#define CLOCK_RUNS	5
#define CLOCK_STEPS	100	/* a sample lasts at least this many steps of the clock */
#define NDELAY_ROUNDING_PCT	17	/* ndelay() may wait up to 16.4 % more on x86 */
#define NDELAY_RESOLVED	4	/* a pair is judged this many delay loop steps apart */

/* A row as the module published it, and what the test computes of it. */
struct row {
	char name[64], status[16], reason[512], cpus[64], context[16];
	char dropped[4096];		/* why each sample dropped was */
	long long ops, kept, nr_dropped, shortest;	/* shortest: ns of a sample */
	long long ns[MAX_SAMPLES], cycles[MAX_SAMPLES];	/* per op, in 1/1000 */
	bool has_cycles;
	long long min, median, mad, noise, net, net_cycles;	/* 1/1000; noise in %, -1 unknown */
};

static struct row rows[MAX_ROWS];
/*
 * The case's load is in.  Before 6.4 (372b304c1e51) the harness ran the body
 * after a SKIP() in FIXTURE_SETUP: a body returns at once when it is not.
 */
static bool loaded;
static char withheld[512];		/* a ceiling verdict the case withheld */
static long long drift = LLONG_MIN;	/* the baseline's to a second load, 1/1000 % */

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int row_str(const char *row, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), SYSFS_DIR "/%.100s/%s", row, file);
	return read_str(path, buf, len);
}

/* A module parameter as a number, or @def. */
static long long param(const char *name, long long def)
{
	char path[PATH_MAX], val[VAL_LEN];

	snprintf(path, sizeof(path), PARAMS_DIR "/%s", name);
	return read_str(path, val, sizeof(val)) ? def : strtoll(val, NULL, 10);
}

/* Thousandths as a decimal, "-1.250", in one of eight rotating buffers. */
static const char *fixed(long long v)
{
	static char bufs[8][32];
	static unsigned int next;
	char *buf = bufs[next++ % 8];

	snprintf(buf, 32, "%s%lld.%03lld", v < 0 ? "-" : "", llabs(v) / 1000, llabs(v) % 1000);
	return buf;
}

static long long env_ll(const char *name, long long def)
{
	const char *val = getenv(name);
	long long v;
	char *end;

	if (!val || !*val)
		return def;
	errno = 0;
	v = strtoll(val, &end, 10);
	if (!errno && !*end && v >= 0)
		return v;
	ksft_print_msg("ignoring %s='%s': not a whole number\n", name, val);
	return def;
}

static int ll_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (of the middle two when even); their least, their MAD. */
static long long median_of(const long long *in, int n, long long *min, long long *mad)
{
	long long v[MAX_SAMPLES], mid;
	int i;

	memcpy(v, in, n * sizeof(*v));
	qsort(v, n, sizeof(*v), ll_cmp);
	mid = n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (min)
		*min = v[0];
	for (i = 0; mad && i < n; i++)
		v[i] = llabs(in[i] - mid);
	if (mad)
		*mad = median_of(v, n, NULL, NULL);
	return mid;
}

/* Is @cpu in the CPU list @list ("0-3,6")?  For @cpu -1: how many it has. */
static int cpu_in(const char *list, int cpu)
{
	int lo, hi, len, n = 0;

	while (sscanf(list, "%d%n", &lo, &len) == 1) {
		list += len;
		hi = lo;
		if (*list == '-' && sscanf(list + 1, "%d%n", &hi, &len) == 1)
			list += len + 1;
		if (cpu >= lo && cpu <= hi)
			return 1;
		n += hi - lo + 1;
		if (*list++ != ',')
			break;
	}
	return cpu < 0 ? n : 0;
}

/* A boolean @key= of the kernel's command line, as kstrtobool() reads it; -1 if absent. */
static int cmdline(const char *key)
{
	char line[4096], *p = line;
	size_t n = strlen(key);

	if (read_str("/proc/cmdline", line, sizeof(line)))
		return -1;
	for (p += strspn(p, " "); *p; p += strspn(p, " ")) {
		if (!strncmp(p, key, n) && p[n] == '=')
			return (p[n + 1] && strchr("yY1", p[n + 1])) || !strncasecmp(p + n + 1, "on", 2);
		p += strcspn(p, " ");
	}
	return -1;
}

/* The next record of the kernel log open at @fd, its text in @msg; false at the end. */
static bool kmsg_next(int fd, char *msg, size_t len)
{
	static char rec[8192];
	int tries = 0;
	ssize_t n;
	char *p;

	while (fd >= 0 && tries++ < 100000) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			return false;
		rec[n] = '\0';
		p = strchr(rec, ';');
		if (p)
			return snprintf(msg, len, "%.*s", (int)strcspn(p + 1, "\n"), p + 1) >= 0;
	}
	return false;
}

/* A record of the kernel log with @needle, from the oldest kept: into @line. */
static bool kmsg_find(const char *needle, char *line, size_t len)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	bool found = false;

	while (!found && kmsg_next(fd, line, len))
		found = strstr(line, needle);
	if (fd >= 0)
		close(fd);
	return found;
}

/* ---- ceilings ---- */

/* "<ns> [<emulated ns>] [# ...]": a real or an @emul machine's ceiling, in 1/1000 ns. */
static int parse_ceilings(const char *p, bool emul, long long *ceiling)
{
	double v[2];
	char *end;
	int n;

	for (n = 0; n < 2; n++, p = end) {
		p += strspn(p, " \t\n");
		if (!*p || *p == '#')
			break;
		v[n] = strtod(p, &end);
		if (end == p || !(v[n] > 0 && v[n] < 1e12) || !strchr(" \t\n#", *end))
			return -EINVAL;
	}
	p += strspn(p, " \t\n");
	if (!n || (*p && *p != '#'))
		return -EINVAL;
	*ceiling = v[emul && n == 2] * 1000 + 0.5;
	return 0;
}

/*
 * The ceiling of @name: MMBENCH_CEILING_<NAME>, else its line in
 * MMBENCH_CEILINGS or the ceilings file beside this program (that alone if
 * @defaults).  0, with what set it in @set_by ("" for the default file);
 * -ENOENT when none has it; another error, saying why in @why.
 */
static int find_ceiling(const char *name, bool emul, bool defaults, long long *ceiling,
			char *set_by, size_t set_len, char *why, size_t len)
{
	char env[VAL_LEN] = "MMBENCH_CEILING_", path[PATH_MAX], line[1024], *p, *key;
	const char *val, *file = defaults ? NULL : getenv("MMBENCH_CEILINGS");
	int i, lineno = 0, ret = -ENOENT;
	ssize_t n;
	FILE *f;

	for (i = 0; name[i] && i < 200; i++)
		env[16 + i] = toupper((unsigned char)name[i]);
	val = defaults ? NULL : getenv(env);
	snprintf(set_by, set_len, "%s%.200s", val ? "" : file ? "MMBENCH_CEILINGS=" : "",
		 val ? env : file ?: "");
	if (val && parse_ceilings(val, false, ceiling))
		snprintf(why, len, "%s='%.200s' is not a number of ns over 0", env, val);
	if (val)
		return parse_ceilings(val, false, ceiling);
	if (!file) {
		n = readlink("/proc/self/exe", path, sizeof(path) - sizeof("ceilings"));
		path[n < 0 ? 0 : n] = '\0';
		p = strrchr(path, '/');
		snprintf(p ? p + 1 : path, sizeof("ceilings"), "ceilings");
		file = path;
	}
	f = fopen(file, "re");
	if (!f)
		snprintf(why, len, "cannot open ceilings file %.200s: %s", file, strerror(errno));
	while (f && ret == -ENOENT && fgets(line, sizeof(line), f)) {
		lineno++;
		key = line + strspn(line, " \t");
		p = key + strcspn(key, " \t\n");
		if (!strchr(line, '\n') && !feof(f))
			ret = -E2BIG;
		else if (*key != '#' && *p && p - key == (long)strlen(name) && !strncmp(key, name, p - key))
			ret = parse_ceilings(p, emul, ceiling);
		if (ret && ret != -ENOENT)
			snprintf(why, len, "%.200s:%d: %s", file, lineno,
				 ret == -E2BIG ? "line too long" : "want '<row> <ns> [<emulated ns>]'");
	}
	if (f)
		fclose(f);
	if (ret == -ENOENT)
		snprintf(why, len, "no ceiling for %s in %.200s and %s is not set", name, file, env);
	return f ? ret : -EIO;
}

/* ---- loading the module ---- */

/* Is test_mmbench in this kernel's modules.dep? */
static bool module_installed(void)
{
	char path[PATH_MAX], line[1024];
	bool found = false;
	struct utsname u;
	FILE *f;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, ":")] = '\0';
		found = strstr(line, "/" MODNAME ".ko");
	}
	if (f)
		fclose(f);
	return found;
}

/* Is @name in the comma-separated @list, or is it "all"? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return !strcmp(list, "all");
}

/* Copy to @dst what is quoted after @start in @msg, if it is there. */
static void quoted(const char *msg, const char *start, char *dst, size_t len)
{
	const char *p = strstr(msg, start);

	if (p)
		snprintf(dst, len, "%.*s", (int)strcspn(p + strlen(start), "'"), p + strlen(start));
}

enum load_result { LOADED, LOAD_SKIP, LOAD_BAD_PARAM, LOAD_FAIL };

/*
 * Load the module with @params, whose benchmarks= is the test's own @ours:
 * by finit_module() of MMBENCH_MODULE, else by modprobe, whose output is
 * printed as "# " lines so as not to break the KTAP.  Not installed, refused
 * by the kernel (signature, lockdown) or older than the test (no budget_ms,
 * or no benchmark of @ours): skip.  A parameter refused, or any other
 * failure: fail.  @why says why, with modprobe's words and the kernel log's
 * records of the load.
 */
static enum load_result load_module(const char *params, const char *ours, char *why, size_t len)
{
	char out[512] = "", msg[1024], param[64] = "", bench[64] = "", lock[VAL_LEN] = "";
	const char *ko = getenv("MMBENCH_MODULE"), *refused = NULL;
	size_t pre = strlen(MODNAME ": "), off = 0;
	int fd, kmsg, ret, err = 0;
	bool bad = false, lockdown = false;
	FILE *f;

	fd = ko ? open(ko, O_RDONLY | O_CLOEXEC) : -1;
	if (ko && fd < 0)
		snprintf(why, len, "cannot open MMBENCH_MODULE=%.200s: %s", ko, strerror(errno));
	else if (!ko && !module_installed())
		snprintf(why, len, "module %s is not installed for this kernel (CONFIG_TEST_MMBENCH=m, or set MMBENCH_MODULE)",
			 MODNAME);
	if ((ko && fd < 0) || (!ko && !module_installed()))
		return LOAD_SKIP;
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	if (ko) {
		ret = syscall(__NR_finit_module, fd, params, 0);
		err = ret ? errno : 0;
		close(fd);
		if (ret)
			off = snprintf(why, len, "loading %.200s failed: %s:", ko, strerror(err));
	} else {
		snprintf(msg, sizeof(msg), "LC_ALL=C modprobe %s %s 2>&1", MODNAME, params);
		fflush(NULL);
		f = popen(msg, "re");
		while (f && fgets(msg, sizeof(msg), f)) {
			msg[strcspn(msg, "\n")] = '\0';
			ksft_print_msg("%s\n", msg);
			if (off < sizeof(out))
				off += snprintf(out + off, sizeof(out) - off, "%s%s", off ? " / " : "", msg);
		}
		ret = f ? pclose(f) : -1;
		ret = WIFEXITED(ret) ? WEXITSTATUS(ret) : 128;
		off = ret ? snprintf(why, len, "modprobe %s %.500s failed with status %d (%s):", MODNAME,
				     params, ret, out) : 0;
	}
	/* The records of the load: the module's, lockdown's, signature checking's. */
	while (off < len && kmsg_next(kmsg, msg, sizeof(msg))) {
		lockdown |= !strncmp(msg, "Lockdown: ", 10) && strstr(msg, "module");
		if (strncmp(msg, MODNAME ": ", pre) && !strstr(msg, "module is rejected") && !lockdown)
			continue;
		/* The kernel's words for a parameter, or the module's "<param>: ..." */
		bad |= strstr(msg, "invalid for parameter") || strstr(msg, "unknown parameter") ||
		       (!strncmp(msg, MODNAME ": ", pre) && msg[pre + strcspn(msg + pre, ":")] &&
			strspn(msg + pre, "abcdefghijklmnopqrstuvwxyz_") == strcspn(msg + pre, ":"));
		quoted(msg, "unknown parameter '", param, sizeof(param));
		quoted(msg, "unknown benchmark '", bench, sizeof(bench));
		off += snprintf(why + off, len - off, " [%s]", msg);
	}
	if (kmsg >= 0)
		close(kmsg);
	read_str("/sys/kernel/security/lockdown", lock, sizeof(lock));
	if (ret && (err == EKEYREJECTED || err == ENOKEY ||
		    strstr(out, strerror(EKEYREJECTED)) || strstr(out, strerror(ENOKEY))))
		refused = "the kernel does not accept the module's signature";
	else if (ret && (err == EPERM || strstr(out, strerror(EPERM))) &&
		 (lockdown || (lock[0] && !strstr(lock, "[none]"))))
		refused = "kernel lockdown refuses modules";
	else if (ret && !ko && strstr(out, "not found"))
		refused = "modprobe does not find the module";
	if (refused) {
		snprintf(msg, sizeof(msg), "%s", why);
		snprintf(why, len, "%s: %s", refused, msg);
	}
	if (!strcmp(param, "budget_ms") || (bench[0] && in_list(ours + 11, bench))) {
		snprintf(why, len, "%s has no %s '%s': the module is older than this test", MODNAME,
			 bench[0] ? "benchmark" : "parameter", bench[0] ? bench : param);
		return LOAD_SKIP;
	}
	return bad ? LOAD_BAD_PARAM : !ret ? LOADED : refused ? LOAD_SKIP : LOAD_FAIL;
}

static int unload_module(void)
{
	loaded = false;
	return syscall(__NR_delete_module, MODNAME, O_NONBLOCK) ? -errno : 0;
}

/*
 * A load's parameters: budget_ms, MMBENCH_PARAMS but its benchmarks=, then
 * @ours.  0 when that benchmarks= leaves @filter out, 1, or -E2BIG.
 */
static int build_params(const char *filter, const char *ours, char *out, size_t len)
{
	const char *extra = getenv("MMBENCH_PARAMS");
	size_t off = snprintf(out, len, "budget_ms=%d ", CASE_BUDGET_MS);
	char copy[1024], *tok, *save;
	bool wanted = true;

	if ((size_t)snprintf(copy, sizeof(copy), "%s", extra ?: "") >= sizeof(copy))
		return -E2BIG;
	for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(tok, "benchmarks=", 11))
			wanted = !filter || in_list(tok + 11, filter);
		else if ((off += snprintf(out + off, len - off, "%s ", tok)) >= len)
			return -E2BIG;
	}
	return (size_t)snprintf(out + off, len - off, "%s", ours) >= len - off ? -E2BIG : wanted;
}

/* Load the module for a case selected by @filter, with @ours: skip or fail if it cannot. */
static void load_for_case(struct __test_metadata *_metadata, const char *filter, const char *ours)
{
	char params[1024], why[WHY_LEN];
	int ret;

	loaded = false;
	if (geteuid())
		SKIP(return, "must be run as root to load %s", MODNAME);
	ret = build_params(filter, ours, params, sizeof(params));
	ASSERT_LE(0, ret) {
		TH_LOG("MMBENCH_PARAMS with the case's own: over %zu characters", sizeof(params) - 1);
	}
	if (!ret)
		SKIP(return, "%s is not in the benchmarks= of MMBENCH_PARAMS", filter);
	/* A copy left loaded has parameters of its own: never reuse it. */
	if (!access("/sys/module/" MODNAME, F_OK)) {
		ret = unload_module();
		if (ret)
			SKIP(return, "%s is already loaded and cannot be removed: %s", MODNAME,
			     strerror(-ret));
		ksft_print_msg("removed a %s that was already loaded\n", MODNAME);
	}
	ret = load_module(params, ours, why, sizeof(why));
	if (ret != LOADED && !access("/sys/module/" MODNAME, F_OK))
		unload_module();	/* loaded with a parameter ignored */
	ASSERT_NE(LOAD_BAD_PARAM, ret) {
		TH_LOG("parameters '%s' refused: %s", params, why);
	}
	ASSERT_NE(LOAD_FAIL, ret) {
		TH_LOG("%s", why);
	}
	if (ret == LOAD_SKIP)
		SKIP(return, "%.1000s", why);
	loaded = true;
}

/* ---- the machine and the kernel, as user space sees them ---- */

/* The value of the first "@key : value" line of /proc/cpuinfo, or "". */
static const char *cpuinfo(const char *key, char *val, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096], *colon;
	size_t n = strlen(key);

	val[0] = '\0';
	while (f && !val[0] && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (colon && !strncmp(line, key, n) && line + n + strspn(line + n, " \t") == colon)
			snprintf(val, len, "%.*s", (int)strcspn(colon + 2, "\n"), colon + 2);
	}
	if (f)
		fclose(f);
	return val;
}

static struct {
	char cpu[128], hv[64], system[128];
	const char *emulated;	/* "yes", "no" or "unknown" */
} mach;

/*
 * Possibly emulated, where costs are inflated and uneven?  A hypervisor
 * named (CPUID, /sys/hypervisor, x86's boot log) is not but QEMU's TCG; the
 * hypervisor bit without a name is TCG; a QEMU machine without the bit
 * (arm64, riscv virt) may be KVM or TCG: "unknown", taken as emulated.
 */
static bool emulated(void)
{
	static const char * const known[] = {
		"KVMKVMKVM", "kvm", "TCGTCGTCGTCG", "tcg", "Microsoft Hv", "hyperv",
		"VMwareVMware", "vmware", "XenVMMXenVMM", "xen", "VBoxVBoxVBox", "virtualbox",
	};
	unsigned int sig[4] = { 0 }, eax = 0, ebx, ecx = 0, edx;
	char flags[4096], val[VAL_LEN], part[VAL_LEN], *hv = mach.hv, *text = (char *)sig;
	bool named, bit, qemu;
	size_t i;

	if (mach.emulated)
		return strcmp(mach.emulated, "no");
	if (!cpuinfo("model name", mach.cpu, 128)[0] && !cpuinfo("uarch", mach.cpu, 128)[0])
		snprintf(mach.cpu, 128, "implementer %.40s part %.40s",
			 cpuinfo("CPU implementer", val, VAL_LEN), cpuinfo("CPU part", part, VAL_LEN));
	if (read_str("/sys/class/dmi/id/sys_vendor", val, VAL_LEN) ||
	    read_str("/sys/class/dmi/id/product_name", part, VAL_LEN))
		snprintf(mach.system, 128, "%s", read_str("/proc/device-tree/compatible", val,
							  VAL_LEN) ? "unknown" : val);
	else
		snprintf(mach.system, 128, "%.60s %.60s", val, part);
#ifdef __x86_64__
	__get_cpuid(1, &eax, &ebx, &ecx, &edx);
	if (ecx & (1U << 31))
		__cpuid(0x40000000, eax, sig[0], sig[1], sig[2]);
#endif
	for (i = 0; text[0] && i < ARRAY_SIZE(known); i += 2)
		if (!strcmp(text, known[i]))
			snprintf(hv, 64, "%s", known[i + 1]);
	for (i = 0; !hv[0] && text[i]; i++)
		text[i] = isprint((unsigned char)text[i]) ? text[i] : '?';
	if (!hv[0] && text[0])
		snprintf(hv, 64, "cpuid '%s'", text);
	named = hv[0] && strncmp(hv, "cpuid ", 6);
	if (!named && !read_str("/sys/hypervisor/type", val, VAL_LEN) && val[0])
		named = snprintf(hv, 64, "%.60s", val);
	if (!named && kmsg_find("Hypervisor detected: ", val, VAL_LEN))
		named = snprintf(hv, 64, "%.60s", strstr(val, ": ") + 2);
	bit = strstr(cpuinfo("flags", flags, sizeof(flags)), "hypervisor");
	qemu = strstr(mach.system, "QEMU") || strstr(mach.system, "dummy-virt") ||
	       strstr(mach.system, "riscv-virtio");
	if (!strcmp(hv, "tcg") || (!named && (strstr(mach.cpu, "QEMU Virtual") || strstr(mach.cpu, "TCG"))))
		mach.emulated = "yes";
	else
		mach.emulated = named ? "no" : hv[0] || (!bit && qemu) ? "unknown" : bit ? "yes" : "no";
	if (!hv[0])
		snprintf(hv, 64, "%s", qemu ? "qemu" : bit ? "unknown" : "none");
	return strcmp(mach.emulated, "no");
}

/* Slab debugging at run time (slub_debug=), seen on a kmalloc cache. */
static bool slub_debug_active(void)
{
	static const char * const flags[] = { "sanity_checks", "red_zone", "poison", "store_user" };
	char path[PATH_MAX], val[VAL_LEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/kmalloc-64/%s", flags[i]);
		if (!read_str(path, val, sizeof(val)) && !strcmp(val, "1"))
			return true;
	}
	return false;
}

/* Options that inflate costs: the config's word, else what the kernel shows of them. */
static const char * const debug_opts[][4] = {
	{ "KASAN", "kasan", "KernelAddressSanitizer initialized" },
	{ "KMSAN", "kmsan", "Starting KernelMemorySanitizer" },
	{ "KCSAN", "kcsan", NULL, "/sys/kernel/debug/kcsan" },
	{ "DEBUG_KMEMLEAK", "kmemleak", "memory leak detector initialized", "/sys/kernel/debug/kmemleak" },
	{ "LOCKDEP", "lockdep", NULL, "/proc/lockdep" },
	{ "DEBUG_PREEMPT", "debug_preempt" }, { "DEBUG_VM", "debug_vm" },
	{ "SLUB_DEBUG_ON", "slub_debug_on" },
};

/*
 * The kernel's fingerprint: "debug", the options above and debug_pagealloc=;
 * "init_on_alloc", "init_on_free", as the boot log's "mem auto-init" line or
 * the command line say; "kconfig", where the config was read, or "none".
 */
static const char *kernel_fact(const char *key)
{
	static char debug[256], from[PATH_MAX], log[VAL_LEN], on[2][16];
	char line[256], val[VAL_LEN], *what[] = { "alloc", "free" };
	bool set[ARRAY_SIZE(debug_opts)] = { false }, gz = false;
	const char * const *o;
	size_t i, off = 0;
	struct utsname u;
	FILE *f;

	uname(&u);
	snprintf(from, sizeof(from), "/boot/config-%s", u.release);
	f = fopen(from, "re");
	if (!f && !access("/proc/config.gz", R_OK)) {
		snprintf(from, sizeof(from), "/proc/config.gz");
		f = popen("gzip -dc /proc/config.gz 2>/dev/null", "re");
		gz = true;
	}
	while (f && fgets(line, sizeof(line), f))
		for (i = 0; i < ARRAY_SIZE(debug_opts); i++)
			set[i] |= !strncmp(line, "CONFIG_", 7) && strstr(line, "=y\n") &&
				  (size_t)(strstr(line, "=y\n") - line) == 7 + strlen(debug_opts[i][0]) &&
				  !strncmp(line + 7, debug_opts[i][0], strlen(debug_opts[i][0]));
	if (!f || (gz ? pclose(f) : fclose(f)))
		snprintf(from, sizeof(from), "none");
	for (i = 0; i < ARRAY_SIZE(debug_opts); i++) {
		o = debug_opts[i];
		if (!strcmp(from, "none"))
			set[i] = (o[2] && kmsg_find(o[2], val, sizeof(val))) || (o[3] && !access(o[3], F_OK));
		if (set[i])
			off += snprintf(debug + off, sizeof(debug) - off, "%s%s", off ? " " : "", o[1]);
	}
	if (cmdline("debug_pagealloc") > 0)
		off += snprintf(debug + off, sizeof(debug) - off, "%sdebug_pagealloc", off ? " " : "");
	snprintf(debug + off, sizeof(debug) - off, "%s", off ? "" : "none");
	/* "mem auto-init: stack:off, heap alloc:on, heap free:off" */
	if (!kmsg_find("mem auto-init: stack:", log, sizeof(log)))
		log[0] = '\0';
	for (i = 0; i < 2; i++) {
		snprintf(val, sizeof(val), log[0] ? "heap %s:on" : "init_on_%s", what[i]);
		snprintf(on[i], 16, "%s", log[0] ? strstr(log, val) ? "1" : "0" :
			 cmdline(val) < 0 ? "unknown" : cmdline(val) ? "1" : "0");
	}
	return !strcmp(key, "debug") ? debug : !strcmp(key, "init_on_alloc") ? on[0] :
	       !strcmp(key, "init_on_free") ? on[1] : from;
}

/*
 * Is a ceiling enforced?  One the user set (@set_by not empty) is; the
 * default ones are not with debug options (costs inflated), nor where none
 * is calibrated (an emulated machine other than x86, or one that may be
 * emulated).  MMBENCH_ENFORCE=1 enforces them all, =0 none.
 */
static bool ceiling_enforced(const char *set_by, char *why, size_t len)
{
	long long force = env_ll("MMBENCH_ENFORCE", -1);
	const char *debug = kernel_fact("debug");
	struct utsname u;

	uname(&u);
	if (!force)
		return !snprintf(why, len, "MMBENCH_ENFORCE=0");
	if (set_by[0])
		return snprintf(why, len, "set by %s", set_by);
	if (force > 0)
		return snprintf(why, len, "MMBENCH_ENFORCE=%lld", force);
	if (strcmp(debug, "none"))
		return !snprintf(why, len, "debug options: %s", debug);
	if (slub_debug_active())
		return !snprintf(why, len, "slub_debug is on");
	if (emulated() && !strcmp(mach.emulated, "unknown"))
		return !snprintf(why, len,
				 "a machine that may be emulated (fingerprint.emulated=unknown): no ceiling calibrated for it");
	if (emulated() && strcmp(u.machine, "x86_64") && !strstr("i386 i486 i586 i686", u.machine))
		return !snprintf(why, len, "an emulated machine other than x86: no ceiling calibrated for it");
	return snprintf(why, len, "default for %s",
			emulated() ? "an emulated machine" : "real hardware or KVM");
}

/* The least step of CLOCK_MONOTONIC, the clock ktime_get_ns() reads, in ns. */
static long long clock_step(void)
{
	long long step = LLONG_MAX, t, u;
	struct timespec ts;
	int i, n;

	for (i = 0; i < 3; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		for (n = 0, u = t; u == t && n < 10000000; n++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			u = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		}
		step = u != t && u - t < step ? u - t : step;
	}
	return step;
}

/* ---- rows: reading, statistics, verdicts ---- */

/* A list of samples in @file of @r, per op in 1/1000; how many, or -1. */
static int read_samples(struct row *r, const char *file, long long *v)
{
	char buf[8192], *p = buf, *end;
	long long x;
	int n = 0;

	if (row_str(r->name, file, buf, sizeof(buf)))
		return -1;
	for (x = strtoll(p, &end, 10); end != p; x = strtoll(p, &end, 10)) {
		if (n == MAX_SAMPLES || r->ops <= 0)
			return -1;
		if (v == r->ns && (!n || x < r->shortest))
			r->shortest = x;
		v[n++] = (x * 1000 + r->ops / 2) / r->ops;
		p = end;
	}
	return *p ? -1 : n;
}

/* Read row @name into @r: 0, -ENOENT if there is none, else -EINVAL. */
static int read_row(struct row *r, const char *name)
{
	char val[VAL_LEN], *p;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	if (row_str(name, "status", r->status, sizeof(r->status)) == -ENOENT)
		return -ENOENT;
	if (row_str(name, "reason", r->reason, sizeof(r->reason)) ||
	    row_str(name, "cpus", r->cpus, sizeof(r->cpus)) ||
	    row_str(name, "context", r->context, sizeof(r->context)) ||
	    row_str(name, "samples_dropped", r->dropped, sizeof(r->dropped)) ||
	    row_str(name, "ops_per_sample", val, sizeof(val)))
		return -EINVAL;
	r->ops = strtoll(val, NULL, 10);
	r->kept = read_samples(r, "sample_ns", r->ns);
	r->has_cycles = read_samples(r, "sample_cycles", r->cycles) == r->kept;
	for (p = r->dropped + strspn(r->dropped, " "); *p; p += strspn(p, " ")) {
		r->nr_dropped++;
		p += strcspn(p, " ");
	}
	return r->kept < 0 ? -EINVAL : 0;
}

/* min, median, MAD, noise; the net cost over @base's, in ns and cycles. */
static void row_stats(struct row *r, const struct row *base)
{
	if (!r->kept)
		return;
	r->median = median_of(r->ns, r->kept, &r->min, &r->mad);
	r->noise = r->kept >= 3 && r->median > 0 ? r->mad * 100000 / r->median : -1;
	if (base && base->kept)
		r->net = r->median - base->median;
	if (base && base->kept && r->has_cycles && base->has_cycles)
		r->net_cycles = median_of(r->cycles, r->kept, NULL, NULL) -
				median_of(base->cycles, base->kept, NULL, NULL);
}

/* The test's own verdict on @r: its status, and why, before the module's reason. */
static void set_status(struct row *r, const char *status, const char *why)
{
	char reason[sizeof(r->reason)];

	snprintf(reason, sizeof(reason), "%.250s%s%.250s", why, r->reason[0] ? "; " : "", r->reason);
	memcpy(r->reason, reason, sizeof(reason));
	snprintf(r->status, sizeof(r->status), "%s", status);
}

enum verdict { PASSED, SKIPPED, FAILED };

/*
 * FAILED: the module's check failed or the row could not run (fail, error),
 * or it ran on another CPU than the run's.  SKIPPED: the machine lacks what
 * it needs (unsupported) or spoiled its figures (every sample dropped:
 * noisy; samples under CLOCK_STEPS steps of the clock: unsupported).  Else
 * PASSED, with a remark when it kept fewer samples than asked.
 */
static enum verdict judge(struct row *r, long long step)
{
	char online[VAL_LEN] = "", isolated[VAL_LEN] = "", why[VAL_LEN];
	long long cpu = param("cpu", -1), want = param("samples", 9);
	int i;

	if (strcmp(r->status, "pass"))
		return strcmp(r->status, "unsupported") && strcmp(r->status, "noisy") ? FAILED : SKIPPED;
	snprintf(why, sizeof(why), "no sample kept: %lld dropped (%.100s), at most 2 x samples + 8 = %lld taken",
		 r->nr_dropped, r->dropped, 2 * want + 8);
	if (!r->kept)
		set_status(r, "noisy", r->nr_dropped ? why : "budget_ms ran out before a sample was kept");
	snprintf(why, sizeof(why), "ktime_get_ns() steps by %lld ns: a sample of %lld ns is under %d steps",
		 step, r->shortest, CLOCK_STEPS);
	if (r->kept && r->shortest < CLOCK_STEPS * step)
		set_status(r, "unsupported", why);
	if (strcmp(r->status, "pass"))
		return SKIPPED;
	/* Its one CPU: cpu=, or the first online one that isolcpus= leaves. */
	read_str("/sys/devices/system/cpu/online", online, sizeof(online));
	read_str("/sys/devices/system/cpu/isolated", isolated, sizeof(isolated));
	for (i = 0; cpu < 0 && i < 8192; i++)
		cpu = cpu_in(online, i) && !cpu_in(isolated, i) ? i : -1;
	snprintf(why, sizeof(why), "ran on CPU %s, not on CPU %lld", r->cpus, cpu);
	if (cpu_in(r->cpus, -1) == 1 && !cpu_in(r->cpus, cpu)) {
		set_status(r, "fail", why);
		return FAILED;
	}
	snprintf(why, sizeof(why), "%lld of %lld samples kept: %s", r->kept, want,
		 r->kept + r->nr_dropped >= 2 * want + 8 ?
		 "too many dropped, limit 2 x samples + 8 taken" : "budget_ms ran out");
	if (r->kept < want)
		set_status(r, "pass", why);
	return PASSED;
}

/* The group of a row, by its benchmark's name. */
static const char *group_of(const char *row)
{
	if (strstr(row, "page_state") || strstr(row, "vm_event"))
		return "vmstat";
	if (!strncmp(row, "page_frag", 9) || !strncmp(row, "alloc_pages", 11))
		return row[0] == 'p' ? "page_frag" : "page_alloc";
	if (!strncmp(row, "kmalloc", 7) || !strncmp(row, "kmem_cache", 10) || !strncmp(row, "kfree", 5))
		return "slab";
	return "calibration";
}

/* Print the row as "# <row>.<key>=<value>" lines: the keys the tooling reads. */
static void report_row(const struct row *r)
{
	const char *s = r->name;
	char list[MAX_SAMPLES * 16];
	int i, off = 0;

	ksft_print_msg("%s.status=%s\n", s, r->status);
	ksft_print_msg("%s.reason=%s\n", s, r->reason);
	ksft_print_msg("%s.group=%s\n", s, group_of(s));
	if (cpu_in(r->cpus, -1) > 1)
		ksft_print_msg("%s.team_cpus=%d\n", s, cpu_in(r->cpus, -1));
	else
		ksft_print_msg("%s.cpu=%s\n", s, r->cpus);
	ksft_print_msg("%s.context=%s\n", s, r->context);
	ksft_print_msg("%s.ops_per_sample=%lld\n", s, r->ops);
	ksft_print_msg("%s.samples=%lld\n", s, r->kept);
	ksft_print_msg("%s.samples_dropped=%lld\n", s, r->nr_dropped);
	if (r->nr_dropped)
		ksft_print_msg("%s.samples_dropped_why=%s\n", s, r->dropped);
	if (!r->kept)
		return;
	for (i = 0; i < r->kept; i++)
		off += snprintf(list + off, sizeof(list) - off, "%s%s", i ? " " : "", fixed(r->ns[i]));
	ksft_print_msg("%s.sample_ns=%s\n", s, list);
	ksft_print_msg("%s.ns_per_op_min=%s\n", s, fixed(r->min));
	ksft_print_msg("%s.ns_per_op_median=%s\n", s, fixed(r->median));
	ksft_print_msg("%s.ns_per_op_mad=%s\n", s, fixed(r->mad));
	if (r->noise >= 0)
		ksft_print_msg("%s.noise_pct=%s\n", s, fixed(r->noise));
	ksft_print_msg("%s.net_ns_per_op=%s\n", s, fixed(r->net));
	if (r->has_cycles)
		ksft_print_msg("%s.net_cycles_per_op=%s\n", s, fixed(r->net_cycles));
}

/* Load the module once more, with @ours (every row was read): loaded, or @why not. */
static bool load_again(const char *ours, char *why, size_t len)
{
	char params[1024];

	unload_module();
	if (build_params(NULL, ours, params, sizeof(params)) < 0)
		return !snprintf(why, len, "its parameters are too long");
	loaded = load_module(params, ours, why, len) == LOADED;
	return loaded;
}

/*
 * Another task may write a vmstat row's counter: a row that left it off
 * fails if a second load of its benchmark leaves it off too; else noisy.
 */
static void recheck_counter(struct row *r)
{
	char ours[VAL_LEN], why[WHY_LEN], first[sizeof(r->reason)];
	struct row again;

	if (strcmp(group_of(r->name), "vmstat") || strcmp(r->status, "fail") ||
	    strncmp(r->reason, "counter off by", 14))
		return;
	snprintf(first, sizeof(first), "%.200s", r->reason);
	snprintf(ours, sizeof(ours), "benchmarks=%s", r->name);
	if (!load_again(ours, why, sizeof(why)))
		snprintf(r->reason, sizeof(r->reason), "%s; a second load failed: %.250s", first, why);
	else if (read_row(&again, r->name) || strcmp(again.status, "pass"))
		snprintf(r->reason, sizeof(r->reason), "%s; in a second load: %s, %.250s", first,
			 again.status, again.reason);
	else
		snprintf(r->reason, sizeof(r->reason),
			 "%s in a first load, back in a second: another task writes it", first);
	if (strstr(r->reason, "another task writes it"))
		snprintf(r->status, sizeof(r->status), "noisy");
}

/*
 * Is @r's median over @ceiling whatever the noise: its median less its MAD,
 * divided by 1 + the baseline's drift from this load to a second one (a
 * machine that slowed by d % may have made the row d % dearer), still over?
 */
static bool over_for_sure(const struct row *r, long long ceiling, char *why, size_t len)
{
	char load_why[WHY_LEN];
	struct row base;
	long long low;

	if (r->noise < 0)
		return !snprintf(why, len, "%.60s: too few samples to know its noise", r->name);
	if (drift == LLONG_MIN && !load_again("benchmarks=baseline", load_why, sizeof(load_why)))
		return !snprintf(why, len, "the baseline's drift is unknown: %.500s", load_why);
	if (drift == LLONG_MIN && (read_row(&base, "baseline") || strcmp(base.status, "pass") ||
				   !base.kept || rows[0].median <= 0))
		return !snprintf(why, len, "the baseline's drift is unknown: a second load's is %s",
				 base.status);
	if (drift == LLONG_MIN) {
		drift = (median_of(base.ns, base.kept, NULL, NULL) - rows[0].median) * 100000 /
			rows[0].median;
		ksft_print_msg("run2.baseline_drift_pct=%s\n", fixed(drift));
	}
	low = (r->median - r->mad) * 100000 / (100000 + llabs(drift));
	return low > ceiling ||
	       !snprintf(why, len,
			 "median %s less MAD %s, with the baseline's drift of %s %%, is %s ns, not over the ceiling",
			 fixed(r->median), fixed(r->mad), fixed(drift), fixed(low));
}

/*
 * The median of a passed row @r under its ceiling (its own, else its
 * benchmark @bench's) where that is enforced; over it, a failure only if
 * over_for_sure(), else the case skips.
 */
static void ceiling_verdict(struct __test_metadata *_metadata, const struct row *r,
			    const char *bench)
{
	char why[WHY_LEN], set_by[VAL_LEN];
	long long ceiling;
	int ret = -ENOENT, i;

	/* A file of the user's that lacks the row: the default ceilings. */
	for (i = 0; ret == -ENOENT && i < (getenv("MMBENCH_CEILINGS") ? 4 : 2); i++)
		ret = find_ceiling(i & 1 ? bench : r->name, emulated(), i >= 2, &ceiling, set_by,
				   sizeof(set_by), why, sizeof(why));
	ASSERT_EQ(0, ret) {
		TH_LOG("%s", why);
	}
	ksft_print_msg("%s.ceiling_ns=%s\n", r->name, fixed(ceiling));
	if (!ceiling_enforced(set_by, why, sizeof(why))) {
		ksft_print_msg("%s.ceiling=informational (%s)%s\n", r->name, why,
			       r->median > ceiling ? ": median is over it" : "");
		return;
	}
	ksft_print_msg("%s.ceiling=enforced (%s)\n", r->name, why);
	if (r->median > ceiling && !over_for_sure(r, ceiling, why, sizeof(why))) {
		ksft_print_msg("%s.ceiling=not judged (%s): median is over it\n", r->name, why);
		snprintf(withheld, sizeof(withheld), "%.60s over its ceiling, not judged: %.400s",
			 r->name, why);
		return;
	}
	EXPECT_LE(r->median, ceiling) {
		TH_LOG("%s: median %s ns/op is over the ceiling of %s ns/op (%s)", r->name,
		       fixed(r->median), fixed(ceiling), why);
	}
}

/* ---- the cases ---- */

FIXTURE(mmbench) {};

FIXTURE_VARIANT(mmbench) {
	const char *name;
	const char *also;	/* run beside it, to compare with */
};

FIXTURE_VARIANT_ADD(mmbench, alu_chain) { .name = "alu_chain" };
FIXTURE_VARIANT_ADD(mmbench, inc_zone_page_state) { .name = "inc_zone_page_state" };
FIXTURE_VARIANT_ADD(mmbench, dec_zone_page_state) { .name = "dec_zone_page_state" };
FIXTURE_VARIANT_ADD(mmbench, inc_dec_zone_page_state) { .name = "inc_dec_zone_page_state" };
FIXTURE_VARIANT_ADD(mmbench, mod_node_page_state) { .name = "mod_node_page_state" };
FIXTURE_VARIANT_ADD(mmbench, __mod_zone_page_state) { .name = "__mod_zone_page_state" };
FIXTURE_VARIANT_ADD(mmbench, count_vm_event) { .name = "count_vm_event" };
FIXTURE_VARIANT_ADD(mmbench, count_vm_events) { .name = "count_vm_events" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages) { .name = "alloc_pages" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_batch) { .name = "alloc_pages_batch" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_bulk) { .name = "alloc_pages_bulk" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc) { .name = "kmalloc" };
FIXTURE_VARIANT_ADD(mmbench, kmem_cache) { .name = "kmem_cache" };
FIXTURE_VARIANT_ADD(mmbench, kmem_cache_bulk) { .name = "kmem_cache_bulk" };
FIXTURE_VARIANT_ADD(mmbench, kfree_bulk) { .name = "kfree_bulk" };
FIXTURE_VARIANT_ADD(mmbench, page_frag) { .name = "page_frag" };
FIXTURE_VARIANT_ADD(mmbench, page_frag_aligned) { .name = "page_frag_aligned" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_concurrent) { .name = "alloc_pages_concurrent" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc_concurrent) { .name = "kmalloc_concurrent" };
FIXTURE_VARIANT_ADD(mmbench, page_frag_concurrent) { .name = "page_frag_concurrent" };
FIXTURE_VARIANT_ADD(mmbench, ptr_ring_remote) { .name = "ptr_ring_remote" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_remote_free) {
	.name = "alloc_pages_remote_free", .also = "ptr_ring_remote" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc_remote_free) {
	.name = "kmalloc_remote_free", .also = "ptr_ring_remote" };
FIXTURE_VARIANT_ADD(mmbench, page_frag_remote_free) {
	.name = "page_frag_remote_free", .also = "ptr_ring_remote" };

FIXTURE_SETUP(mmbench)
{
	char ours[VAL_LEN];

	snprintf(ours, sizeof(ours), "benchmarks=%s%s%s", variant->name, variant->also ? "," : "",
		 variant->also ?: "");
	load_for_case(_metadata, variant->name, ours);
}

FIXTURE_TEARDOWN(mmbench)
{
	if (loaded)
		EXPECT_EQ(0, unload_module());
}

/* Is @row one of @bench's rows: @bench, or @bench_<prefix><value> (kmalloc_64)? */
static bool row_of(const char *row, const char *bench)
{
	size_t n = strlen(bench);

	return !strcmp(row, bench) ||
	       (!strncmp(row, bench, n) && row[n] == '_' && isdigit((unsigned char)row[strlen(row) - 1]) &&
		strspn(row + n + 1, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen(row + n + 1));
}

static int name_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct row *)a)->name, ((const struct row *)b)->name);
}

/*
 * The baseline into rows[0], @bench's rows after it in their numbers'
 * order, then @also; how many, 0 when one is missing (@why says which), or
 * -EINVAL when a file cannot be read or parsed.
 */
static int read_rows(const char *bench, const char *also, char *why, size_t len)
{
	int n = 1, ret = read_row(&rows[0], "baseline");
	const char *missing = "baseline";
	DIR *dir = opendir(SYSFS_DIR);
	struct dirent *de;

	while (!ret && dir && (de = readdir(dir)) && n < MAX_ROWS - 1)
		if (row_of(de->d_name, bench))
			ret = read_row(&rows[n++], de->d_name);
	if (dir)
		closedir(dir);
	qsort(rows + 1, n - 1, sizeof(rows[0]), name_cmp);
	if (!ret && n == 1)
		missing = bench;
	if (!ret && n > 1 && also)
		ret = read_row(&rows[n++], missing = also);
	if (ret == -ENOENT || n == 1)
		return !snprintf(why, len, "%s published no row %s: the module is older than this test",
				 MODNAME, missing);
	snprintf(why, len, "a row's file in %s cannot be read or parsed", SYSFS_DIR);
	return ret ?: n;
}

TEST_F_TIMEOUT(mmbench, run, CASE_TIMEOUT)
{
	int n, i, passed = 0, failed = 0;
	long long step = clock_step();
	char why[WHY_LEN] = "";
	struct row *r = rows;
	enum verdict v;

	if (!loaded)
		return;
	ksft_print_msg("run1.clock_step_ns=%lld\n", step);
	n = read_rows(variant->name, variant->also, why, sizeof(why));
	ASSERT_LE(0, n) {
		TH_LOG("%s", why);
	}
	if (!n)
		SKIP(return, "%s", why);
	for (i = 0; i < n; i++)
		row_stats(&rows[i], i ? rows : NULL);
	/* Without a baseline that passed, nothing here can be judged. */
	v = judge(r, step);
	report_row(r);
	ASSERT_NE(FAILED, v) {
		TH_LOG("baseline: %s: %s", r->status, r->reason);
	}
	if (v == SKIPPED)
		SKIP(return, "baseline %s: %s", r->status, r->reason);
	for (why[0] = '\0', i = 1; i < n; i++) {
		r = &rows[i];
		recheck_counter(r);
		v = judge(r, step);
		report_row(r);
		if (variant->also && !strcmp(r->name, variant->also))
			break;		/* judged in its own case */
		if (v == SKIPPED && !why[0])
			snprintf(why, sizeof(why), "%s %s: %s", r->name, r->status, r->reason);
		if (v == SKIPPED)
			ksft_print_msg("%s: %s here: %s\n", r->name, r->status, r->reason);
		failed += v == FAILED;
		EXPECT_NE(FAILED, v) {
			TH_LOG("%s: %s: %s", r->name, r->status, r->reason);
		}
		passed += v == PASSED;
		if (v == PASSED)
			ceiling_verdict(_metadata, r, variant->name);
	}
	/* A remote free less the ring alone: what the allocator adds.  Not judged. */
	if (variant->also && passed && !strcmp(r->status, "pass") && r->kept)
		ksft_print_msg("%s.allocator_share_ns=%s\n", variant->name,
			       fixed(rows[1].median - r->median));
	if (!passed && !failed)
		SKIP(return, "%.1000s", why);
	if (!failed && withheld[0])
		SKIP(return, "%s", withheld);
}

FIXTURE(context) {};

FIXTURE_SETUP(context)
{
	load_for_case(_metadata, NULL, "benchmarks=baseline");
}

FIXTURE_TEARDOWN(context)
{
	if (loaded)
		EXPECT_EQ(0, unload_module());
}

/* What the figures depend on, and whether the default ceilings are enforced. */
TEST_F_TIMEOUT(context, fingerprint, CASE_TIMEOUT)
{
	static const char * const facts[] = { "debug", "init_on_alloc", "init_on_free", "kconfig" };
	char val[4096], why[WHY_LEN];
	struct utsname u;
	size_t i;

	if (!loaded)
		return;
	uname(&u);
	ksft_print_msg("fingerprint.release=%s\n", u.release);
	/* The model as the rows ran; a PREEMPT_DYNAMIC kernel's as it is now. */
	ASSERT_EQ(0, read_str(SYSFS_DIR "/preempt", val, sizeof(val)));
	ASSERT_NE(0UL, strlen(val));
	ksft_print_msg("fingerprint.preempt=%s\n", val);
	if (!read_str("/sys/kernel/debug/sched/preempt", val, sizeof(val)) && strchr(val, '('))
		ksft_print_msg("fingerprint.preempt_now=%.*s\n",
			       (int)strcspn(strchr(val, '(') + 1, ")"), strchr(val, '(') + 1);
	for (i = 0; i < ARRAY_SIZE(facts); i++)
		ksft_print_msg("fingerprint.%s=%s\n", facts[i], kernel_fact(facts[i]));
	ksft_print_msg("fingerprint.slub_debug=%d\n", slub_debug_active());
	if (!read_str("/sys/devices/system/clocksource/clocksource0/current_clocksource", val,
		      sizeof(val)))
		ksft_print_msg("fingerprint.clocksource=%s\n", val);
	ksft_print_msg("fingerprint.clock_step_ns=%lld\n", clock_step());
	if (!read_str("/proc/cmdline", val, sizeof(val)))
		ksft_print_msg("fingerprint.cmdline=%s\n", val);
	emulated();
	ksft_print_msg("fingerprint.cpu_model=%s\n", mach.cpu);
	ksft_print_msg("fingerprint.machine=%s\n", mach.system);
	ksft_print_msg("fingerprint.hypervisor=%s\n", mach.hv);
	ksft_print_msg("fingerprint.emulated=%s\n", mach.emulated);
	ksft_print_msg("fingerprint.ceilings=%s (%s)\n",
		       ceiling_enforced("", why, sizeof(why)) ? "enforced" : "informational", why);
}

FIXTURE(ndelay) {};

FIXTURE_SETUP(ndelay)
{
	load_for_case(_metadata, "ndelay", "benchmarks=ndelay");
}

FIXTURE_TEARDOWN(ndelay)
{
	if (loaded)
		EXPECT_EQ(0, unload_module());
}

/*
 * The clock against ndelay(): between two delays the cost rises by the
 * nominal difference.  ndelay() has a fixed cost of its own, so differences
 * are judged, between the rows' fastest samples (a busy host only adds
 * time), and only where the measurement can tell: the delay loop resolves
 * the pair (its granularity, what the shortest non-zero delay costs beyond
 * its length and ndelay(0), and at least the clock's step, is at most
 * 1/NDELAY_RESOLVED of their difference); the median error over CLOCK_RUNS
 * loads, give or take the larger of the rows' noise (MADs summed, as a share
 * of the nominal rise) and the errors' spread between the loads, lies wholly
 * inside the tolerance (pass) or wholly outside it (fail).  A pair that
 * fails one of these is not judged; the case skips when none is.
 */
TEST_F_TIMEOUT(ndelay, slope, CLOCK_TIMEOUT)
{
	long long d[8], fast[CLOCK_RUNS][8], mad[CLOCK_RUNS][8], v[CLOCK_RUNS], w[CLOCK_RUNS];
	long long step = clock_step() * 1000, gran, rise, err, noise, tol, lo, hi;
	char list[VAL_LEN], name[64], skipped[WHY_LEN] = "", *tok, *save;
	int n = 0, i, r, judged = 0, first, off;
	struct row *row = rows;
	bool in, out;

	if (!loaded)
		return;
	ASSERT_EQ(0, read_str(PARAMS_DIR "/delays", list, sizeof(list)));
	for (tok = strtok_r(list, ",", &save); tok && n < 8; tok = strtok_r(NULL, ",", &save))
		d[n++] = strtoll(tok, NULL, 10);
	qsort(d, n, sizeof(d[0]), ll_cmp);
	first = n && !d[0];
	if (n - first < 2)
		SKIP(return, "a slope needs two delays other than 0");
	for (r = 0; r < CLOCK_RUNS; r++) {
		if (r)
			load_for_case(_metadata, "ndelay", "benchmarks=ndelay");
		if (!loaded)
			return;
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "ndelay_%lld", d[i]);
			if (read_row(row, name) == -ENOENT)
				SKIP(return, "%s published no row %s: the module is older than this test",
				     MODNAME, name);
			row_stats(row, NULL);
			ASSERT_NE(FAILED, judge(row, step / 1000)) {
				TH_LOG("%s: %s: %s", name, row->status, row->reason);
			}
			if (!r)
				report_row(row);
			if (strcmp(row->status, "pass"))
				SKIP(return, "%s %s: %s", name, row->status, row->reason);
			fast[r][i] = row->min;	/* a busy host only adds time */
			mad[r][i] = row->noise < 0 ? UNKNOWN : row->mad;
		}
	}
	for (r = 0; r < CLOCK_RUNS; r++)
		v[r] = fast[r][first] - (first ? fast[r][0] : 0) - d[first] * 1000;
	gran = median_of(v, CLOCK_RUNS, NULL, NULL);
	gran = gran < step ? step : gran;	/* it polls that clock */
	tol = env_ll("MMBENCH_DELAY_TOLERANCE", emulated() ? 60 : 10);
	lo = -tol * 10;
	hi = (tol + NDELAY_ROUNDING_PCT) * 10;
	ksft_print_msg("ndelay.granularity_ns=%s\n", fixed(gran));
	ksft_print_msg("ndelay.tolerance_pct=%lld\n", tol);
	ksft_print_msg("ndelay.rounding_allowance_pct=%d\n", NDELAY_ROUNDING_PCT);
	for (i = first + 1; i < n; i++) {
		rise = (d[i] - d[i - 1]) * 1000;
		off = strlen(skipped);
		if (rise < NDELAY_RESOLVED * gran) {
			snprintf(skipped + off, sizeof(skipped) - off,
				 "%sndelay(%lld)-ndelay(%lld): %lld ns apart, under %d x the delay's granularity of %s ns",
				 off ? "; " : "", d[i], d[i - 1], d[i] - d[i - 1], NDELAY_RESOLVED,
				 fixed(gran));
			continue;
		}
		for (r = 0; r < CLOCK_RUNS; r++) {
			v[r] = (fast[r][i] - fast[r][i - 1] - rise) * 1000 / rise;
			w[r] = (mad[r][i] + mad[r][i - 1]) * 1000 / rise;
		}
		err = median_of(v, CLOCK_RUNS, NULL, &noise);	/* noise: the loads' spread */
		if (noise < median_of(w, CLOCK_RUNS, NULL, NULL))
			noise = median_of(w, CLOCK_RUNS, NULL, NULL);
		snprintf(name, sizeof(name), "%s%s", noise > 1000000000LL ? "" : fixed(noise * 100),
			 noise > 1000000000LL ? "unknown (a row has under 3 samples)" : " %");
		ksft_print_msg("ndelay.slope_%lld_%lld.error_pct=%s\n", d[i - 1], d[i], fixed(err * 100));
		ksft_print_msg("ndelay.slope_%lld_%lld.noise=%s\n", d[i - 1], d[i], name);
		in = err - noise >= lo && err + noise <= hi;
		out = err + noise < lo || err - noise > hi;
		judged += in || out;
		EXPECT_FALSE(out) {
			TH_LOG("ndelay(%lld)-ndelay(%lld): %s %% +/- %s, limits %s..%s %%, %d loads",
			       d[i], d[i - 1], fixed(err * 100), name, fixed(lo * 100), fixed(hi * 100),
			       CLOCK_RUNS);
		}
		if (!in && !out)
			snprintf(skipped + off, sizeof(skipped) - off,
				 "%sndelay(%lld)-ndelay(%lld) noisy: %s %% off +/- %s (MADs, spread of loads) straddles %s..%s %%",
				 off ? "; " : "", d[i], d[i - 1], fixed(err * 100), name, fixed(lo * 100),
				 fixed(hi * 100));
	}
	if (skipped[0])
		ksft_print_msg("ndelay.not_judged=%s\n", skipped);
	if (!judged)
		SKIP(return, "%.1000s", skipped);
}

/* Every test skipped (not root, module missing): exit KSFT_SKIP, not 0. */
static void exit_skip_if_all_skipped(void)
{
	if (ksft_plan && ksft_get_xskip_cnt() == (int)ksft_plan) {
		fflush(NULL);
		_exit(KSFT_SKIP);
	}
}

int main(int argc, char **argv)
{
	atexit(exit_skip_if_all_skipped);
	return test_harness_run(argc, argv);
}
