// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench_test - load test_mmbench, read back what it measured, judge it
 *
 * The module times its rows as it loads and publishes the raw figures under
 * /sys/kernel/mmbench/; every statistic and verdict is this program's.  Each
 * mmbench.<benchmark>.run loads it with that benchmark (and the baseline),
 * computes each row's ns per op, min, median, MAD, noise and net cost, and
 * judges it: FAIL when the module's functional check failed or the row could
 * not run; SKIP when the machine lacks what it needs or spoiled the figures;
 * else PASS, its median held to its ceiling where that is enforced.  Each
 * figure is a "# <row>.<key>=<value>" line.  Environment: MMBENCH_MODULE (a
 * .ko to load), MMBENCH_PARAMS (module parameters), MMBENCH_CEILINGS (a
 * ceilings file read first), MMBENCH_CEILING_<ROW or BENCHMARK>=<ns>,
 * MMBENCH_ENFORCE (1: enforce the default ceilings even with debug options;
 * 0: enforce none).
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
#include <sys/mount.h>
#include <sys/stat.h>
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
#define VAL_LEN		256
#define WHY_LEN		2048
#define MAX_SAMPLES	250	/* the most a row keeps */
#define MAX_ROWS	24	/* the baseline and a benchmark's rows */
#define CASE_BUDGET_MS	15000	/* a load runs at most that and 10 s, a case CASE_TIMEOUT s */
#define CASE_TIMEOUT	40
#define CLOCK_STEPS	100	/* a sample lasts at least this many steps of the clock */

/* A row as the module published it, and what the test makes of it: 1/1000 ns (cycles). */
struct row {
	char name[64], status[16], reason[512], cpus[64], context[16];
	char dropped[4096];		/* why each sample dropped was */
	long long ops, kept, nr_dropped, shortest;	/* shortest: ns of a sample */
	long long by_cause[3];	/* dropped for preempt, migrate, steal */
	long long ns[MAX_SAMPLES], cycles[MAX_SAMPLES];	/* per op */
	bool has_cycles;
	long long min, median, mad, noise, net, net_cycles;	/* noise: 1/1000 %, -1 unknown */
	long long alone, tail[5];	/* ops timed alone; their p50, p90, p99, p99.9, max */
};

static struct row rows[MAX_ROWS];
static bool loaded;	/* the case's load is in (pre-6.4 harnesses run a body after a SKIP) */
static char withheld[512];		/* a ceiling verdict the case withheld */
static bool over_ceiling;		/* a row of the case failed its ceiling */
static long long want = 9;		/* samples= of the case's load, not of a reload */
static long long drift = LLONG_MIN;	/* the baseline's to a second load, 1/1000 % */

/* Read @path into @buf, without its newline: 0, -ENOENT if it does not exist, -EIO. */
static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return fd < 0 && errno == ENOENT ? -ENOENT : -EIO;
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

/* The next record of the kernel log open at @fd, its text in @msg; false at the end. */
static bool kmsg_next(int fd, char *msg, size_t len)
{
	static char rec[8192];
	int tries = 0;
	ssize_t n;

	while (fd >= 0 && tries++ < 100000) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			return false;
		rec[n] = '\0';
		if (strchr(rec, ';'))
			return snprintf(msg, len, "%.*s", (int)strcspn(strchr(rec, ';') + 1, "\n"),
					strchr(rec, ';') + 1) >= 0;
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
 * The ceiling of @name: MMBENCH_CEILING_<NAME>, its line in MMBENCH_CEILINGS
 * or (alone if @defaults) in the ceilings file beside this program; who set
 * it in @set_by ("" for that file); why not in @why.
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
		else if (*key != '#' && *p && p - key == (long)strlen(name) &&
			 !strncmp(key, name, p - key))
			ret = parse_ceilings(p, emul, ceiling);
		if (ret && ret != -ENOENT)
			snprintf(why, len, "%.200s:%d: %s", file, lineno, ret == -E2BIG ?
				 "line too long" : "want '<row> <ns> [<emulated ns>]'");
	}
	if (f)
		fclose(f);
	if (ret == -ENOENT)
		snprintf(why, len, "no ceiling for %s in %.200s, %s not set", name, file, env);
	return f ? ret : -EIO;
}

/* ---- a memory cgroup of the load's own, for the accounted rows ---- */

static char cg_root[PATH_MAX];		/* where cgroup v2 is mounted */
static bool cg_mounted, cg_enabled;	/* by this test: the mount, +memory at its root */
static char cg_dir[PATH_MAX + 32];	/* the load's cgroup, "" if none */
static char cg_procs[PATH_MAX + 64];	/* its cgroup.procs, "" if none */

/* Is @word one of the words of @list? */
static bool in_words(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	ret = fd < 0 || write(fd, val, strlen(val)) < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Remove the load's cgroup (its loaders have exited), undo what was done for it. */
static void remove_memcg(void)
{
	char path[PATH_MAX + 64];

	if (cg_dir[0] && rmdir(cg_dir))
		ksft_print_msg("cannot remove cgroup %s: %s\n", cg_dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg_root);
	if (cg_enabled)
		write_str(path, "-memory");	/* refused while others use it: theirs now */
	if (cg_mounted && (umount(cg_root) || rmdir(cg_root)))
		ksft_print_msg("cannot unmount cgroup v2 at %s: %s\n", cg_root, strerror(errno));
	cg_dir[0] = '\0';
	cg_procs[0] = '\0';
	cg_mounted = false;
	cg_enabled = false;
}

/*
 * Make a child of cgroup v2's root with the memory controller (mounting cgroup v2 if
 * the system has not), for the loader of the module: 0, or -1 with why not in @why.
 */
static int make_memcg(char *why, size_t len)
{
	char line[PATH_MAX + 128], type[32], path[PATH_MAX + 64];
	FILE *f = fopen("/proc/self/mounts", "re");

	cg_root[0] = '\0';
	while (f && !cg_root[0] && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %31s", cg_root, type) != 2 || strcmp(type, "cgroup2"))
			cg_root[0] = '\0';
	if (f)
		fclose(f);
	if (!cg_root[0]) {
		snprintf(cg_root, sizeof(cg_root), "/tmp/mmbench_cgroup.XXXXXX");
		cg_mounted = mkdtemp(cg_root) && !mount("none", cg_root, "cgroup2", 0, NULL);
		if (!cg_mounted) {
			snprintf(why, len, "cgroup v2 is not mounted and cannot be: %s",
				 strerror(errno));
			rmdir(cg_root);
			return -1;
		}
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", cg_root);
	if (read_str(path, line, sizeof(line)) || !in_words(line, "memory")) {
		snprintf(why, len, "cgroup v2 at %.200s has no memory controller: %s", cg_root,
			 "CONFIG_MEMCG off, cgroup_disable=memory, or it is cgroup v1's");
		remove_memcg();
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg_root);
	errno = 0;
	cg_enabled = !read_str(path, line, sizeof(line)) && !in_words(line, "memory");
	if (cg_enabled && write_str(path, "+memory")) {
		snprintf(why, len, "cannot enable the memory controller in %.200s: %s", path,
			 strerror(errno));
		cg_enabled = false;
		remove_memcg();
		return -1;
	}
	snprintf(cg_dir, sizeof(cg_dir), "%s/mmbench_test.%d", cg_root, getpid());
	if (mkdir(cg_dir, 0755)) {
		snprintf(why, len, "cannot make cgroup %.200s: %s", cg_dir, strerror(errno));
		cg_dir[0] = '\0';
		remove_memcg();
		return -1;
	}
	snprintf(cg_procs, sizeof(cg_procs), "%s/cgroup.procs", cg_dir);
	return 0;
}

/* finit_module() of @fd from a child that moves into the cgroup of @procs: 0 or -errno. */
static int finit_in(const char *procs, int fd, const char *params)
{
	pid_t pid = fork();
	int status;

	if (!pid)
		_exit(write_str(procs, "0") ? 255 :
		      syscall(__NR_finit_module, fd, params, 0) ? errno : 0);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -EIO;
	return -WEXITSTATUS(status);
}

/* ---- loading the module ---- */

enum load_result { LOADED, LOAD_SKIP, LOAD_BAD_PARAM, LOAD_FAIL };

/*
 * Load the module by finit_module() of MMBENCH_MODULE, else by modprobe (its
 * output as "# " lines, not to break the KTAP), from the cgroup of cg_procs if
 * any.  @why has what modprobe and the kernel log said: skip if not installed or
 * the kernel refuses modules.
 */
static enum load_result load_module(const char *params, char *why, size_t len)
{
	const char *ko = getenv("MMBENCH_MODULE"), *mod = MODNAME ": ", *refused = NULL;
	int fd = ko ? open(ko, O_RDONLY | O_CLOEXEC) : -1, kmsg, ret, err = 0;
	char out[512] = "", msg[1100], lock[VAL_LEN] = "";
	bool bad = false, lockdown = false;
	size_t n, off = 0, pre = strlen(mod);
	FILE *f;

	why[0] = '\0';
	if (ko && fd < 0)
		return snprintf(why, len, "cannot open MMBENCH_MODULE=%.200s: %s", ko,
				strerror(errno)) ? LOAD_SKIP : LOAD_SKIP;
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	if (ko) {
		err = cg_procs[0] ? -finit_in(cg_procs, fd, params) :
		      syscall(__NR_finit_module, fd, params, 0) ? errno : 0;
		ret = err ? -1 : 0;
		close(fd);
		if (ret)
			off = snprintf(why, len, "loading %.200s failed: %s", ko, strerror(err));
	} else {
		snprintf(msg, sizeof(msg), "%s%.200s%sLC_ALL=C modprobe %s %.700s 2>&1",
			 cg_procs[0] ? "echo 0 >'" : "", cg_procs, cg_procs[0] ? "' && " : "",
			 MODNAME, params);
		fflush(NULL);
		f = popen(msg, "re");
		while (f && fgets(msg, sizeof(msg), f)) {
			msg[strcspn(msg, "\n")] = '\0';
			ksft_print_msg("%s\n", msg);
			if (off < sizeof(out))
				off += snprintf(out + off, sizeof(out) - off, "%s%s",
						off ? " / " : "", msg);
		}
		ret = f ? pclose(f) : -1;
		ret = WIFEXITED(ret) ? WEXITSTATUS(ret) : 128;
		off = ret ? snprintf(why, len, "modprobe %s %.500s failed with status %d (%s)",
				     MODNAME, params, ret, out) : 0;
	}
	/* The records of the load: the module's, lockdown's, signature checking's. */
	while (off < len && kmsg_next(kmsg, msg, sizeof(msg))) {
		lockdown |= !strncmp(msg, "Lockdown: ", 10) && strstr(msg, "module");
		if (strncmp(msg, mod, pre) && !strstr(msg, "module is rejected") && !lockdown)
			continue;
		/* The kernel's words for a parameter, or the module's "<param>: ..." */
		n = strcspn(msg + pre, ":");
		bad |= strstr(msg, "invalid for parameter") || strstr(msg, "unknown parameter") ||
		       (!strncmp(msg, mod, pre) && msg[pre + n] &&
			strspn(msg + pre, "abcdefghijklmnopqrstuvwxyz_") == n);
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
		refused = "module not installed (CONFIG_TEST_MMBENCH=m, or MMBENCH_MODULE=<.ko>)";
	if (refused) {
		snprintf(msg, sizeof(msg), "%.900s", why);
		snprintf(why, len, "%s: %s", refused, msg);
	}
	return bad ? LOAD_BAD_PARAM : !ret ? LOADED : refused ? LOAD_SKIP : LOAD_FAIL;
}

static int unload_module(void)
{
	loaded = false;
	return syscall(__NR_delete_module, MODNAME, O_NONBLOCK) ? -errno : 0;
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

/* budget_ms, MMBENCH_PARAMS but benchmarks=, @ours: 0 if that leaves @filter out. */
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
		else
			off += snprintf(out + off, len - off, "%s ", tok);
		if (off >= len)
			return -E2BIG;
	}
	return (size_t)snprintf(out + off, len - off, "%s", ours) >= len - off ? -E2BIG : wanted;
}

/* Load the module for a case selected by @filter, with @ours: skip or fail if it cannot. */
static void load_for_case(struct __test_metadata *_metadata, const char *filter, const char *ours,
			  bool memcg)
{
	char params[1024], why[WHY_LEN];
	int ret;

	loaded = false;
	if (geteuid())
		SKIP(return, "must be run as root to load %s", MODNAME);
	ret = build_params(filter, ours, params, sizeof(params));
	ASSERT_LE(0, ret) {
		TH_LOG("MMBENCH_PARAMS and the case's own: over %zu bytes", sizeof(params) - 1);
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
	/* The accounted rows charge the memory cgroup of the task that loads them. */
	if (memcg && make_memcg(why, sizeof(why)))
		SKIP(return, "%.1000s", why);
	ret = load_module(params, why, sizeof(why));
	remove_memcg();
	if (ret != LOADED && !access("/sys/module/" MODNAME, F_OK))
		unload_module();	/* loaded with a parameter ignored */
	ASSERT_TRUE(ret == LOADED || ret == LOAD_SKIP) {
		TH_LOG("%s%s%s%s", ret == LOAD_FAIL ? "" : "parameters '",
		       ret == LOAD_FAIL ? "" : params, ret == LOAD_FAIL ? "" : "' refused: ", why);
	}
	if (ret == LOAD_SKIP)
		SKIP(return, "%.1000s", why);
	loaded = true;
	if (!read_str("/sys/module/" MODNAME "/parameters/samples", why, sizeof(why)))
		want = strtoll(why, NULL, 10);
}

/* ---- the machine and the kernel, as user space sees them ---- */

/* The value of the first "@key : value" line of the CPU information, or "". */
static const char *cpu_field(const char *key, char *val, size_t len)
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
 * Possibly emulated?  A hypervisor CPUID names is not, but TCG; the bit with
 * no name is TCG; QEMU without the bit (arm64, riscv virt) may be: "unknown".
 */
static bool emulated(void)
{
	static const char * const known[] = {
		"KVMKVMKVM", "kvm", "TCGTCGTCGTCG", "tcg", "Microsoft Hv", "hyperv",
		"VMwareVMware", "vmware", "XenVMMXenVMM", "xen", "VBoxVBoxVBox", "virtualbox",
		"bhyve bhyve ", "bhyve", "ACRNACRNACRN", "acrn", " lrpepyh  vr", "parallels",
		"QNXQVMBSQG", "qnx", "Jailhouse", "jailhouse",
	};
	unsigned int sig[4] = { 0 };
#ifdef __x86_64__
	unsigned int eax = 0, ebx, ecx = 0, edx;
#endif
	char flags[4096], val[VAL_LEN], *hv = mach.hv, *text = (char *)sig;
	bool bit, qemu;
	size_t i;

	if (mach.emulated)
		return strcmp(mach.emulated, "no");
	if (!cpu_field("model name", mach.cpu, 128)[0] && !cpu_field("uarch", mach.cpu, 128)[0])
		snprintf(mach.cpu, 128, "CPU part %s", cpu_field("CPU part", val, VAL_LEN));
	if (read_str("/sys/class/dmi/id/sys_vendor", mach.system, 128) &&
	    read_str("/proc/device-tree/compatible", mach.system, 128))
		snprintf(mach.system, 128, "unknown");
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
	bit = strstr(cpu_field("flags", flags, sizeof(flags)), "hypervisor");
	qemu = strstr(mach.system, "QEMU") || strstr(mach.system, "dummy-virt") ||
	       strstr(mach.system, "riscv-virtio");
	if (!strcmp(hv, "tcg") ||
	    (!hv[0] && (strstr(mach.cpu, "QEMU Virtual") || strstr(mach.cpu, "TCG"))))
		mach.emulated = "yes";
	else
		mach.emulated = hv[0] ? "no" : text[0] || (!bit && qemu) ? "unknown" :
				bit ? "yes" : "no";
	if (!hv[0])
		snprintf(hv, 64, "%s%s%s", text[0] ? "cpuid " : "", text,
			 text[0] ? "" : qemu ? "qemu" : bit ? "unknown" : "none");
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

/* Options that inflate costs: the config's word, else what the kernel shows. */
static const char * const debug_opts[][3] = {
	{ "KASAN", "kasan", "KernelAddressSanitizer initialized" },
	{ "KMSAN", "kmsan", "Starting KernelMemorySanitizer" },
	{ "KCSAN", "kcsan", "kcsan: enabled early" },
	{ "DEBUG_KMEMLEAK", "kmemleak", "memory leak detector initialized" },
	{ "LOCKDEP", "lockdep", "/proc/lockdep" }, { "DEBUG_PREEMPT", "debug_preempt", "" },
	{ "DEBUG_VM", "debug_vm", "" }, { "SLUB_DEBUG_ON", "slub_debug_on", "" },
};

/* Append @word to the space-separated list in @buf. */
static void add_word(char *buf, size_t len, const char *word)
{
	size_t off = strlen(buf);

	snprintf(buf + off, len - off, "%s%s", off ? " " : "", word);
}

/* "debug": the options above; "init_on_alloc", "init_on_free"; "kconfig": read? */
static const char *kernel_fact(const char *key)
{
	static char debug[256], cfg[1 << 20], log[VAL_LEN];
	static const char *found, *on[2];
	static const char * const what[] = { "heap alloc:on", "heap free:on" };
	char opt[64], val[4096];
	const char *shows;
	size_t i;
	FILE *f;

	if (!found) {	/* the config, from /boot or from /proc */
		f = popen("{ cat /boot/config-$(uname -r) || zcat /proc/config.gz; } 2>&-", "re");
		cfg[0] = '\n';
		found = f && fread(cfg + 1, 1, sizeof(cfg) - 2, f) ? "yes" : "none";
		if (f)
			pclose(f);
		for (i = 0; i < ARRAY_SIZE(debug_opts); i++) {
			snprintf(opt, sizeof(opt), "\nCONFIG_%s=y\n", debug_opts[i][0]);
			shows = debug_opts[i][2];	/* a file of it, or its line in the log */
			if (strstr(cfg, opt) || (found[0] == 'n' && shows[0] &&
						 (shows[0] == '/' ? !access(shows, F_OK) :
						  kmsg_find(shows, val, sizeof(val)))))
				add_word(debug, sizeof(debug), debug_opts[i][1]);
		}
		read_str("/proc/cmdline", val, sizeof(val));
		if (strstr(val, "debug_pagealloc=on") || strstr(val, "debug_pagealloc=1"))
			add_word(debug, sizeof(debug), "debug_pagealloc");
		/* "mem auto-init: stack:off, heap alloc:on, heap free:off" */
		if (!kmsg_find("mem auto-init: stack:", log, sizeof(log)))
			log[0] = '\0';
		for (i = 0; i < 2; i++)
			on[i] = !log[0] ? "unknown" : strstr(log, what[i]) ? "1" : "0";
	}
	return !strcmp(key, "debug") ? (*debug ? debug : "none") :
	       !strcmp(key, "init_on_alloc") ? on[0] : !strcmp(key, "init_on_free") ? on[1] : found;
}

/* Is a ceiling enforced: one the user set, a default one unless costs are inflated? */
static bool ceiling_enforced(const char *set_by, char *why, size_t len)
{
	const char *force = getenv("MMBENCH_ENFORCE") ?: "", *debug = kernel_fact("debug");
	struct utsname u;
	bool x86 = !uname(&u) && (!strcmp(u.machine, "x86_64") ||
				  strstr("i386 i486 i586 i686", u.machine));

	if (!strcmp(force, "0"))
		return !snprintf(why, len, "MMBENCH_ENFORCE=0");
	if (set_by[0])
		return snprintf(why, len, "set by %s", set_by);
	if (atoi(force) > 0)
		return snprintf(why, len, "MMBENCH_ENFORCE=%.20s", force);
	if (strcmp(debug, "none") || slub_debug_active())
		return !snprintf(why, len, "%s%s", strcmp(debug, "none") ? "debug options: " :
				 "slub_debug is on", strcmp(debug, "none") ? debug : "");
	if (emulated() && (!strcmp(mach.emulated, "unknown") || !x86))
		return !snprintf(why, len, "%s: no ceiling calibrated for it", x86 ?
				 "a machine that may be emulated (fingerprint.emulated=unknown)" :
				 "an emulated machine other than x86");
	return snprintf(why, len, "default for %s",
			emulated() ? "an emulated machine" : "real hardware or KVM");
}

/* The least step of CLOCK_MONOTONIC, the clock ktime_get_ns() reads, in ns. */
static long long clock_step(void)
{
	long long step = 1000000000, t, u;	/* no step in 10^7 reads: call it a second */
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

/* The samples in @file of @r, per op; how many, or -1. */
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

static const char * const tail_keys[] = { "p50", "p90", "p99", "p99_9", "max" };
static const long long per_mille[] = { 500, 900, 990, 999 };

/* The least ns of op_ns_hist's bucket @i, as lib/test_mmbench.c's mmbench_bucket() fills it. */
static long long bucket_low(int i)
{
	return i < 32 ? i : (long long)(i % 16 + 16) << (i / 16 - 1);
}

/*
 * The ops of @r timed alone: how many; p50, p90, p99, p99.9 (each where the bucket
 * that holds it is 1 ns wide, else interpolated within it, never past the slowest), max.
 */
static void read_tail(struct row *r)
{
	long long n[400], seen = 0, top, at, lo, hi;
	char buf[4096], *p, *end;
	int i, k = 0, nr = 0;

	if (row_str(r->name, "op_ns_hist", buf, sizeof(buf)))
		return;
	top = strtoull(buf, &p, 10) < 1ULL << 40 ? strtoull(buf, NULL, 10) : 1LL << 40;
	r->tail[4] = top * 1000;
	for (; nr < 400 && (n[nr] = strtoll(p, &end, 10), end != p); p = end)
		r->alone += n[nr++];
	for (i = 0; i < nr; seen += n[i++]) {
		lo = bucket_low(i);
		hi = i < 32 ? lo : bucket_low(i + 1) < top ? bucket_low(i + 1) : top;
		for (; k < 4 && n[i] && (seen + n[i]) * 1000 >= per_mille[k] * r->alone; k++) {
			at = per_mille[k] * r->alone - seen * 1000 - 500;	/* 1/1000 op */
			r->tail[k] = lo * 1000 + (hi - lo) * (at > 0 ? at : 0) / n[i];
		}
	}
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
	read_tail(r);
	for (p = r->dropped + strspn(r->dropped, " "); *p; p += strspn(p, " ")) {
		r->nr_dropped++;
		r->by_cause[*p == 'p' ? 0 : *p == 'm' ? 1 : 2]++;
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

	snprintf(reason, sizeof(reason), "%.250s%s%.250s", why, *r->reason ? "; " : "", r->reason);
	memcpy(r->reason, reason, sizeof(reason));
	snprintf(r->status, sizeof(r->status), "%s", status);
}

enum verdict { PASSED, SKIPPED, FAILED };

/*
 * FAILED: the module's check failed or the row could not run.  SKIPPED: the
 * machine lacks what it needs, or every sample dropped, or samples too short.
 */
static enum verdict judge(struct row *r, long long step)
{
	char why[VAL_LEN];

	if (r->kept > want || r->kept + r->nr_dropped > 2 * want + 8)
		set_status(r, "error", "the module took more samples than samples= allows");
	if (strcmp(r->status, "pass"))
		return strcmp(r->status, "unsupported") && strcmp(r->status, "noisy") ?
		       FAILED : SKIPPED;
	snprintf(why, sizeof(why),
		 "no sample kept: %lld dropped (%lld preempted, %lld migrated, %lld with steal time), at most 2 x samples + 8 = %lld taken",
		 r->nr_dropped, r->by_cause[0], r->by_cause[1], r->by_cause[2], 2 * want + 8);
	if (!r->kept)
		set_status(r, "noisy", r->nr_dropped ? why :
			   "budget_ms ran out before a sample was kept");
	snprintf(why, sizeof(why),
		 "ktime_get_ns() steps by %lld ns: a sample of %lld ns is under %d steps",
		 step, r->shortest, CLOCK_STEPS);
	if (r->kept && r->shortest < CLOCK_STEPS * step)
		set_status(r, "unsupported", why);
	if (strcmp(r->status, "pass"))
		return SKIPPED;
	snprintf(why, sizeof(why), "%lld of %lld samples kept: %s", r->kept, want,
		 r->kept + r->nr_dropped >= 2 * want + 8 ?
		 "too many dropped, limit 2 x samples + 8 taken" : "budget_ms ran out");
	if (r->kept < want)
		set_status(r, "pass", why);
	return PASSED;
}

/* Print the row, of @group, as "# <row>.<key>=<value>" lines: the keys the tooling reads. */
static void report_row(const struct row *r, const char *group)
{
	const char *s = r->name;
	char list[MAX_SAMPLES * 16];
	int i, off = 0;

	ksft_print_msg("%s.status=%s\n", s, r->status);
	ksft_print_msg("%s.reason=%s\n", s, r->reason);
	ksft_print_msg("%s.group=%s\n", s, group);
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
		off += snprintf(list + off, sizeof(list) - off, " %.3f", r->ns[i] / 1000.0);
	ksft_print_msg("%s.sample_ns=%s\n", s, list + 1);
	ksft_print_msg("%s.ns_per_op_min=%.3f\n", s, r->min / 1000.0);
	ksft_print_msg("%s.ns_per_op_median=%.3f\n", s, r->median / 1000.0);
	ksft_print_msg("%s.ns_per_op_mad=%.3f\n", s, r->mad / 1000.0);
	if (r->noise >= 0)
		ksft_print_msg("%s.noise_pct=%.3f\n", s, r->noise / 1000.0);
	ksft_print_msg("%s.net_ns_per_op=%.3f\n", s, r->net / 1000.0);
	if (r->has_cycles)
		ksft_print_msg("%s.net_cycles_per_op=%.3f\n", s, r->net_cycles / 1000.0);
	if (r->alone)
		ksft_print_msg("%s.op_ns_alone=%lld\n", s, r->alone);
	/* A percentile with an op past it; net of the clock's reads, but the baseline's. */
	for (i = 0; r->alone && i < 5; i++)
		if (i == 4 || r->alone * (1000 - per_mille[i]) >= 1000)
			ksft_print_msg("%s.op_ns_%s=%.3f\n", s, tail_keys[i],
				       (r->tail[i] - (r == rows ? 0 : rows->tail[0])) / 1000.0);
}

/* Load the module again with benchmarks=@row (every row was read), read @row into @r. */
static const char *load_again(const char *row, struct row *r)
{
	char params[1024], ours[VAL_LEN];
	static char why[WHY_LEN];

	unload_module();
	snprintf(ours, sizeof(ours), "benchmarks=%s budget_ms=1000", row);
	if (build_params(NULL, ours, params, sizeof(params)) < 0)
		return "its parameters are too long";
	loaded = load_module(params, why, sizeof(why)) == LOADED;
	if (loaded && read_row(r, row))
		return "its row cannot be read";
	return loaded ? r->status : why;
}

/*
 * Another task may write a vmstat row's counter: a row that left it off
 * fails if a second load of it leaves it off too; else it is noisy.
 */
static void recheck_counter(struct row *r)
{
	char first[sizeof(r->reason)];
	const char *again;
	struct row r2;

	if (strcmp(r->status, "fail") || strncmp(r->reason, "counter off by", 14))
		return;
	snprintf(first, sizeof(first), "%.200s", r->reason);
	again = load_again(r->name, &r2);
	if (strcmp(again, "pass"))
		snprintf(r->reason, sizeof(r->reason), "%.200s; in a second load: %.100s%s%.150s",
			 first, again, again == r2.status ? ", " : "",
			 again == r2.status ? r2.reason : "");
	else
		snprintf(r->status, sizeof(r->status), "noisy");
	if (!strcmp(again, "pass"))
		snprintf(r->reason, sizeof(r->reason),
			 "%.200s in a first load, back in a second: another task writes it", first);
}

/* Is @r over @ceiling for sure: its median less MAD, over 1 + the baseline's drift? */
static bool over_for_sure(const struct row *r, long long ceiling, char *why, size_t len)
{
	const char *again = "pass";
	struct row base;
	long long low;

	if (r->noise < 0)
		return !snprintf(why, len, "%.60s: too few samples to know its noise", r->name);
	if (drift == LLONG_MIN)
		again = load_again("baseline", &base);
	if (strcmp(again, "pass") || (drift == LLONG_MIN && (!base.kept || rows[0].median <= 0)))
		return !snprintf(why, len, "the baseline's drift is unknown: %.500s", again);
	if (drift == LLONG_MIN) {
		drift = (median_of(base.ns, base.kept, NULL, NULL) - rows[0].median) * 100000 /
			rows[0].median;
		ksft_print_msg("run2.baseline_drift_pct=%.3f\n", drift / 1000.0);
	}
	low = (r->median - r->mad) * 100000 / (100000 + llabs(drift));
	return low > ceiling ||
	       !snprintf(why, len,
			 "median %.3f less MAD %.3f, with the baseline's drift of %.3f %%, is %.3f ns, not over the ceiling",
			 r->median / 1000.0, r->mad / 1000.0, drift / 1000.0, low / 1000.0);
}

/* The median of @r under its ceiling (else @bench's): a failure if over for sure. */
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
	ksft_print_msg("%s.ceiling_ns=%.3f\n", r->name, ceiling / 1000.0);
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
		TH_LOG("%s: median %.3f ns/op is over the ceiling of %.3f ns/op (%s)", r->name,
		       r->median / 1000.0, ceiling / 1000.0, why);
		over_ceiling = true;	/* a SKIP after would hide the failure */
	}
}

/* ---- the cases ---- */

FIXTURE(mmbench) {};

FIXTURE_VARIANT(mmbench) {
	const char *name, *group;
};

FIXTURE_VARIANT_ADD(mmbench, alu_chain) { "alu_chain", "calibration" };
FIXTURE_VARIANT_ADD(mmbench, inc_zone_page_state) { "inc_zone_page_state", "vmstat" };
FIXTURE_VARIANT_ADD(mmbench, dec_zone_page_state) { "dec_zone_page_state", "vmstat" };
FIXTURE_VARIANT_ADD(mmbench, inc_dec_zone_page_state) { "inc_dec_zone_page_state", "vmstat" };
FIXTURE_VARIANT_ADD(mmbench, mod_node_page_state) { "mod_node_page_state", "vmstat" };
FIXTURE_VARIANT_ADD(mmbench, __mod_zone_page_state) { "__mod_zone_page_state", "vmstat" };
FIXTURE_VARIANT_ADD(mmbench, count_vm_event) { "count_vm_event", "vmstat" };
FIXTURE_VARIANT_ADD(mmbench, count_vm_events) { "count_vm_events", "vmstat" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages) { "alloc_pages", "page_alloc" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_batch) { "alloc_pages_batch", "page_alloc" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_bulk) { "alloc_pages_bulk", "page_alloc" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc) { "kmalloc", "slab" };
FIXTURE_VARIANT_ADD(mmbench, kmem_cache) { "kmem_cache", "slab" };
FIXTURE_VARIANT_ADD(mmbench, kmem_cache_bulk) { "kmem_cache_bulk", "slab" };
FIXTURE_VARIANT_ADD(mmbench, kfree_bulk) { "kfree_bulk", "slab" };
FIXTURE_VARIANT_ADD(mmbench, page_frag) { "page_frag", "page_frag" };
FIXTURE_VARIANT_ADD(mmbench, page_frag_aligned) { "page_frag_aligned", "page_frag" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_concurrent) { "alloc_pages_concurrent", "page_alloc" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc_concurrent) { "kmalloc_concurrent", "slab" };
FIXTURE_VARIANT_ADD(mmbench, page_frag_concurrent) { "page_frag_concurrent", "page_frag" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_contended) { "alloc_pages_contended", "page_alloc" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc_contended) { "kmalloc_contended", "slab" };
FIXTURE_VARIANT_ADD(mmbench, ptr_ring_remote) { "ptr_ring_remote", "calibration" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_remote_free) { "alloc_pages_remote_free", "page_alloc" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc_remote_free) { "kmalloc_remote_free", "slab" };
FIXTURE_VARIANT_ADD(mmbench, page_frag_remote_free) { "page_frag_remote_free", "page_frag" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_account) { "alloc_pages_account", "memcg" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc_account) { "kmalloc_account", "memcg" };
FIXTURE_VARIANT_ADD(mmbench, kmem_cache_account) { "kmem_cache_account", "memcg" };
FIXTURE_VARIANT_ADD(mmbench, alloc_pages_remote_node) { "alloc_pages_remote_node", "numa" };
FIXTURE_VARIANT_ADD(mmbench, kmalloc_remote_node) { "kmalloc_remote_node", "numa" };

FIXTURE_SETUP(mmbench)
{
	char ours[VAL_LEN];

	snprintf(ours, sizeof(ours), "benchmarks=%s", variant->name);
	load_for_case(_metadata, variant->name, ours, !strcmp(variant->group, "memcg"));
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
	       (!strncmp(row, bench, n) && row[n] == '_' && !strchr(row + n + 1, '_') &&
		isdigit((unsigned char)row[strlen(row) - 1]));
}

static int name_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct row *)a)->name, ((const struct row *)b)->name);
}

TEST_F_TIMEOUT(mmbench, run, CASE_TIMEOUT)
{
	int n = 1, i, ret, passed = 0, failed = 0;
	long long step = clock_step();
	char why[WHY_LEN] = "";
	struct row *r = rows;
	struct dirent *de;
	enum verdict v;
	DIR *dir;

	if (!loaded)
		return;
	ksft_print_msg("run1.clock_step_ns=%lld\n", step);
	/* The baseline, then the benchmark's rows in their numbers' order. */
	ret = read_row(r, "baseline");
	dir = opendir(SYSFS_DIR);
	while (!ret && dir && (de = readdir(dir)) && n < MAX_ROWS)
		if (row_of(de->d_name, variant->name))
			ret = read_row(&rows[n++], de->d_name);
	if (dir)
		closedir(dir);
	ASSERT_NE(-EINVAL, ret) {
		TH_LOG("a row's file in %s cannot be read or parsed", SYSFS_DIR);
	}
	if (ret || n == 1)
		SKIP(return, "%s published no row %s: the module is older than this test", MODNAME,
		     ret ? "baseline" : variant->name);
	qsort(rows + 1, n - 1, sizeof(rows[0]), name_cmp);
	for (i = 0; i < n; i++)
		row_stats(&rows[i], i ? rows : NULL);
	/* Without a baseline that passed, nothing here can be judged. */
	v = judge(r, step);
	report_row(r, "calibration");
	ASSERT_NE(FAILED, v) {
		TH_LOG("baseline: %s: %s", r->status, r->reason);
	}
	if (v == SKIPPED)
		SKIP(return, "baseline %.16s: %.500s", r->status, r->reason);
	for (i = 1; i < n; i++) {
		r = &rows[i];
		if (!strcmp(variant->group, "vmstat"))
			recheck_counter(r);
		v = judge(r, step);
		report_row(r, variant->group);
		if (v == SKIPPED && !why[0])
			snprintf(why, sizeof(why), "%s %s: %.500s", r->name, r->status, r->reason);
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
	if (!passed && !failed)
		SKIP(return, "%.1000s", why);
	if (!failed && !over_ceiling && withheld[0])
		SKIP(return, "%s", withheld);
}

FIXTURE(context) {};

FIXTURE_SETUP(context)
{
	load_for_case(_metadata, NULL, "benchmarks=baseline", false);
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
	ksft_print_msg("fingerprint.preempt=%s\n", val);
	ASSERT_TRUE(val[0] && strstr("none voluntary full lazy rt", val));	/* not "unknown" */
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
