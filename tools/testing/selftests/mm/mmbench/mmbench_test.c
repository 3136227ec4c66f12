// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench_test - run the test_mmbench module and judge what it measured
 *
 * mmbench.<benchmark>.run: the fixture loads test_mmbench with only that
 * benchmark selected, which runs it while it loads, and the test reads back
 * every row of the benchmark (one per order, size, ...).  It
 * asserts that each path worked (status "pass"; counter or blocks back
 * where they were; pages back to the page allocator; samples taken on the
 * right CPU) and expects the median ns/op to stay under a sanity ceiling.
 * A row unsupported here (an order that cannot be served, a benchmark that
 * needs two CPUs) is reported; a case all of whose rows are unsupported
 * skips.
 * context.fingerprint: prints what the figures depend on, the kernel's as
 * the module sees it and the machine's as found in user space (CPU model,
 * hypervisor, emulated or not), and whether the default ceilings are
 * enforced: not with cost-inflating debug options, unless MMBENCH_ENFORCE=1.
 * An emulated machine has ceilings of its own, enforced.
 * ndelay.slope: the measured costs of ndelay(D) for the delays differ by what
 * the delays differ by, within a tolerance.
 *
 * Every figure is printed as a "# <row>.<key>=<value>" line.
 *
 * Environment:
 *   MMBENCH_MODULE		path of a test_mmbench.ko to load instead of
 *				"modprobe test_mmbench"
 *   MMBENCH_PARAMS		extra module parameters, e.g.
 *				"samples=21 sample_us=5000 cpu=1"; a
 *				benchmarks= list there skips the cases it leaves
 *				out
 *   MMBENCH_CEILINGS		ceilings file (default: "ceilings" beside this
 *				program)
 *   MMBENCH_CEILING_<NAME>	ceiling in ns/op for one benchmark or row, NAME
 *				in upper case, e.g. MMBENCH_CEILING_KMALLOC_64=50
 *   MMBENCH_ENFORCE		1: enforce the ceilings even with debug
 *				options; 0: never enforce them.  Unset, the
 *				ceilings the user set (the two above) are
 *				enforced, the default ones unless debug options
 *				inflate costs
 *   MMBENCH_DELAY_TOLERANCE	allowed error of the ndelay slope, in percent
 *				(default 10, or 60 under emulation)
 *
 * Needs root; skips when not root, when the module is not installed, when
 * the kernel refuses to load it at all (module signature, lockdown), or
 * when the module is older than the test: it does not know a benchmark or
 * a parameter the test sets, or publishes no row a clock case reads.  Any
 * other failed load fails: a parameter the module refuses or does not know,
 * a file that is not a module, ENOMEM, an error in the module's init.
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
#include <unistd.h>
#ifdef __x86_64__
#include <cpuid.h>
#endif

#include "../../kselftest_harness.h"

#define MODNAME		"test_mmbench"
#define SYSFS_DIR	"/sys/kernel/mmbench"
#define PARAMS_DIR	"/sys/module/" MODNAME "/parameters"
#define VAL_LEN		256
/* The module's most samples a row keeps. */
#define MAX_SAMPLES	250
#define WHY_LEN		(PATH_MAX + 512)
/* Fixed-point values above this (in thousandths) are refused as absurd. */
#define FIXED_MAX	1000000000000000LL

/*
 * Default time limit of one run of a case: the 30 runs of the 26 cases
 * (a load each, the clock case's five loads) take 6 to 13 s in all in
 * a TCG guest, up to 12 s each on a debug kernel.
 */
#define CASE_BUDGET_MS	15000

/*
 * Time limits of the cases, in seconds: a load's budget, its load and
 * unload (a debug kernel's cases take up to 13 s); the clock case's five
 * loads.  The settings file's timeout is at least their sum, so that a
 * case that hangs loses no later case's result.
 */
#define CASE_TIMEOUT	40
#define CLOCK_TIMEOUT	150

/*
 * Runs the clock checks take, judging the median error: one run under
 * emulation now and then measures a path several times slower, and the
 * spread between runs, not within one, is the noise a check faces.
 */
#define CLOCK_RUNS	5

/* How much longer than asked ndelay() may wait: 16.4 % on x86. */
#define NDELAY_ROUNDING_PCT	17

/*
 * A pair of delays is judged only if they differ by this many times the
 * delay loop's granularity, so that its steps cost the rise little.
 */
#define NDELAY_RESOLVED		4

/* Read a sysfs file into @buf without its trailing newline. */
static int read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static int read_ll(const char *path, long long *v)
{
	char buf[VAL_LEN], *end;
	int ret;

	ret = read_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

/*
 * Parse a decimal with up to three fractional digits, as the module prints
 * ns/op, into thousandths: "12.5" -> 12500, "-0.25" -> -250.  Stops at
 * @end when given, else the whole string must be the number.
 */
static int parse_fixed(const char *s, long long *v, const char **end)
{
	long long whole = 0, frac = 0;
	bool neg = *s == '-';
	int digits = 0;

	s += neg;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		whole = whole * 10 + (*s++ - '0');
		if (whole > FIXED_MAX / 1000)
			return -ERANGE;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s) && digits < 3) {
			frac = frac * 10 + (*s++ - '0');
			digits++;
		}
		if (!digits || isdigit((unsigned char)*s))
			return -EINVAL;
	}
	if (end)
		*end = s;
	else if (*s)
		return -EINVAL;
	while (digits++ < 3)
		frac *= 10;
	*v = (whole * 1000 + frac) * (neg ? -1 : 1);
	return 0;
}

/*
 * Format thousandths as a decimal, "-1.250", in one of four rotating
 * buffers, so that a message can hold up to four.
 */
static const char *fixed(long long v)
{
	static char bufs[4][32];
	static unsigned int next;
	char *buf = bufs[next++ % 4];

	snprintf(buf, sizeof(bufs[0]), "%s%lld.%03lld", v < 0 ? "-" : "",
		 llabs(v) / 1000, llabs(v) % 1000);
	return buf;
}

/* Read /sys/kernel/mmbench/<row>/<file> as a fixed-point value. */
static int row_fixed(const char *row, const char *file, long long *v)
{
	char path[PATH_MAX], buf[VAL_LEN];
	int ret;

	snprintf(path, sizeof(path), SYSFS_DIR "/%.100s/%.100s", row, file);
	ret = read_str(path, buf, sizeof(buf));
	return ret ? ret : parse_fixed(buf, v, NULL);
}

static int row_str(const char *row, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), SYSFS_DIR "/%.100s/%.100s", row, file);
	return read_str(path, buf, len);
}

static int row_ll(const char *row, const char *file, long long *v)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), SYSFS_DIR "/%.100s/%.100s", row, file);
	return read_ll(path, v);
}

/* Print "<prefix>.<file>=<value>" for every file in @dir. */
static void report_dir(const char *dir, const char *prefix)
{
	static const char * const files[] = {
		"status", "reason", "group", "cpu", "context",
		"ops_per_sample", "samples", "samples_dropped", "noise_pct",
		"delay_ns", "order", "size_bytes", "bulk", "slow_ops",
		"ns_per_op_min", "ns_per_op_median",
		"ns_per_op_mad", "net_ns_per_op", "net_cycles_per_op",
		"sample_ns", "counter_delta",
		"free_pages_delta", "team_cpus",
		"preempt", "debug", "init_on_alloc", "init_on_free",
	};
	char path[PATH_MAX], val[4096];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (!read_str(path, val, sizeof(val)))
			ksft_print_msg("%s.%s=%s\n", prefix, files[i], val);
	}
}

static void report_row(const char *row)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), SYSFS_DIR "/%.100s", row);
	report_dir(dir, row);
}

/* Print what run @nr measured of the machine: clock and baseline drift. */
static void report_run(int nr)
{
	static const char * const files[] = {
		"baseline_drift_pct", "clock_read_ns", "clock_step_ns",
	};
	char path[PATH_MAX], val[VAL_LEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), SYSFS_DIR "/%s", files[i]);
		if (!read_str(path, val, sizeof(val)))
			ksft_print_msg("run%d.%s=%s\n", nr, files[i], val);
	}
}

/* An integer from the environment, or @def. */
static long long env_ll(const char *name, long long def)
{
	const char *val = getenv(name);
	char *end;
	long long v;

	if (!val || !*val)
		return def;
	errno = 0;
	v = strtoll(val, &end, 10);
	if (errno || *end || v < 0) {
		ksft_print_msg("ignoring %s='%s': not a whole number\n", name,
			       val);
		return def;
	}
	return v;
}

/*
 * Parse "<ns> [<emulated ns>] [# comment]" into the ceiling for a real
 * machine, or for an emulated one (@emul) when there are two.
 */
static int parse_ceilings(const char *p, bool emul, long long *ceiling)
{
	long long v[2];
	int n;

	for (n = 0; n < 2; n++) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (parse_fixed(p, &v[n], &p) || v[n] <= 0 ||
		    (*p && !isspace((unsigned char)*p)))
			return -EINVAL;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (!n || (*p && *p != '#'))
		return -EINVAL;
	*ceiling = v[emul && n == 2];
	return 0;
}

/*
 * The ceiling for @name in thousandths of a ns: from MMBENCH_CEILING_<NAME>,
 * else from the ceilings file, whose lines are "<row> <ns> [<emulated ns>]",
 * the second for an emulated machine (@emul).  Returns 0, with what the
 * user set it by in @set_by ("" for the default file); -ENOENT when neither
 * has an entry for @name; or another error (a malformed entry, a file that
 * cannot be read).  @why says why on an error.
 */
static int find_ceiling(const char *name, bool emul, bool defaults,
			long long *ceiling, char *set_by, size_t set_len,
			char *why, size_t len)
{
	char env[VAL_LEN] = "MMBENCH_CEILING_", path[PATH_MAX], line[1024];
	const char *val, *file;
	size_t i, off = strlen(env);
	int lineno = 0, ret = -ENOENT;
	FILE *f;

	for (i = 0; name[i] && off < sizeof(env) - 1; i++)
		env[off++] = toupper((unsigned char)name[i]);
	env[off] = '\0';
	val = defaults ? NULL : getenv(env);
	if (val) {
		if (parse_fixed(val, ceiling, NULL) || *ceiling <= 0) {
			snprintf(why, len, "%s='%s' is not a number of ns over 0",
				 env, val);
			return -EINVAL;
		}
		snprintf(set_by, set_len, "%s", env);
		return 0;
	}

	file = defaults ? NULL : getenv("MMBENCH_CEILINGS");
	if (file) {
		snprintf(set_by, set_len, "MMBENCH_CEILINGS=%s", file);
	} else {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		char *slash;

		set_by[0] = '\0';
		path[n < 0 ? 0 : n] = '\0';
		slash = strrchr(path, '/');
		snprintf(slash ? slash + 1 : path,
			 sizeof(path) - (slash ? slash + 1 - path : 0),
			 "ceilings");
		file = path;
	}
	f = fopen(file, "re");
	if (!f) {
		snprintf(why, len, "cannot open ceilings file %s: %s", file,
			 strerror(errno));
		return -EIO;
	}
	snprintf(why, len, "no ceiling for %s in %s and %s is not set", name,
		 file, env);
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *key;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(why, len, "%s:%d: line too long", file,
				 lineno);
			ret = -EINVAL;
			break;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		key = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (!*p || (size_t)(p - key) != strlen(name) ||
		    strncmp(key, name, p - key))
			continue;
		ret = parse_ceilings(p, emul, ceiling);
		if (ret)
			snprintf(why, len,
				 "%s:%d: want '<row> <ns> [<emulated ns>]'",
				 file, lineno);
		break;
	}
	fclose(f);
	return ret;
}

/* Is test_mmbench listed in this kernel's modules.dep? */
static bool module_installed(void)
{
	char path[PATH_MAX], line[1024];
	struct utsname u;
	bool found = false;
	FILE *f;

	if (uname(&u))
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (colon) {
			*colon = '\0';
			found = !!strstr(line, "/" MODNAME ".ko");
		}
	}
	fclose(f);
	return found;
}

/*
 * Run "modprobe test_mmbench <params>".  Its output must not break the
 * KTAP stream: each line is printed as a "# " line, and kept in @out for
 * the caller to tell why a load failed.  @params is split in a copy, so
 * that the caller can still log all of it.  Returns modprobe's exit
 * status, or -errno when it could not be run.
 */
static int run_modprobe(const char *params, char *out, size_t len)
{
	char copy[1024], line[512], *argv[64] = { "modprobe", MODNAME };
	int argc = 2, status, fds[2], ret;
	char *tok, *save;
	size_t off = 0;
	FILE *f;
	pid_t pid;

	out[0] = '\0';
	if ((size_t)snprintf(copy, sizeof(copy), "%s", params) >= sizeof(copy))
		return -E2BIG;
	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (argc == (int)ARRAY_SIZE(argv) - 1)
			return -E2BIG;
		argv[argc++] = tok;
	}
	argv[argc] = NULL;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (!pid) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		setenv("LC_ALL", "C", 1);
		execvp(argv[0], argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f)
		close(fds[0]);
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ksft_print_msg("%s\n", line);
		if (off < len)
			off += snprintf(out + off, len - off, "%s%s",
					off ? " / " : "", line);
	}
	if (f)
		fclose(f);
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Open the kernel log positioned after its last record, or -1. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* What the kernel log said about a load. */
struct load_log {
	bool bad_param;		/* a parameter invalid or unknown */
	bool lockdown;		/* lockdown refused the module */
	char unknown_param[64];	/* a parameter the module does not have */
	char unknown_bench[64];	/* a benchmark the module does not have */
};

/* Copy to @dst the text between @start and the next quote in @msg, if any. */
static void quoted(const char *msg, const char *start, char *dst, size_t len)
{
	const char *p = strstr(msg, start);

	if (p) {
		p += strlen(start);
		snprintf(dst, len, "%.*s", (int)strcspn(p, "'"), p);
	}
}

/*
 * Append to @buf the kernel-log lines since kmsg_open() that concern the
 * load: the module's own and those of signature checking and lockdown;
 * fill in @log.
 */
static void kmsg_module_lines(int fd, char *buf, size_t len,
			      struct load_log *log)
{
	size_t off = strlen(buf), prefix = strlen(MODNAME ": ");
	char rec[1024];
	int tries = 0;
	ssize_t n;

	memset(log, 0, sizeof(*log));
	while (fd >= 0 && off < len && tries++ < 10000) {
		char *msg, *nl;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		nl = strchr(++msg, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(msg, "Lockdown: ", strlen("Lockdown: ")) &&
		    strstr(msg, "module")) {
			log->lockdown = true;
		} else if (strncmp(msg, MODNAME ": ", prefix) &&
			   !(strstr(msg, "Loading of ") &&
			     strstr(msg, "module is rejected"))) {
			continue;
		}
		log->bad_param |= strstr(msg, "invalid for parameter") ||
				  strstr(msg, "unknown parameter");
		quoted(msg, "unknown parameter '", log->unknown_param,
		       sizeof(log->unknown_param));
		quoted(msg, "unknown benchmark '", log->unknown_bench,
		       sizeof(log->unknown_bench));
		off += snprintf(buf + off, len - off, " [%s]", msg);
	}
}

/*
 * Is there a record with @needle in the kernel log, from the oldest kept?
 * Copies its text to @line.
 */
static bool kmsg_find(const char *needle, char *line, size_t len)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char rec[1024], *msg;
	bool found = false;
	int tries = 0;
	ssize_t n;

	while (fd >= 0 && !found && tries++ < 100000) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg || !strstr(msg, needle))
			continue;
		msg[strcspn(msg, "\n")] = '\0';
		snprintf(line, len, "%s", msg + 1);
		found = true;
	}
	if (fd >= 0)
		close(fd);
	return found;
}

/*
 * Is the kernel locked down (integrity or confidentiality)?  securityfs
 * says, or else the line lockdown logs when it starts.
 */
static bool locked_down(void)
{
	char val[VAL_LEN];

	if (!read_str("/sys/kernel/security/lockdown", val, sizeof(val)))
		return !strstr(val, "[none]");
	return kmsg_find("Kernel is locked down from", val, sizeof(val));
}

/*
 * Did the kernel refuse to load the module at all, for a reason of its
 * own policy?  A signature it does not accept (module.sig_enforce, a key
 * it does not have) fails the load with EKEYREJECTED or ENOKEY, lockdown
 * with EPERM.  @err is the load's errno, or 0 when modprobe loaded it and
 * @msg is what modprobe said.  Returns the reason, or NULL.
 */
static const char *kernel_refused(int err, const char *msg,
				  const struct load_log *log)
{
	if (err == EKEYREJECTED || err == ENOKEY ||
	    strstr(msg, strerror(EKEYREJECTED)) ||
	    strstr(msg, strerror(ENOKEY)))
		return "the kernel does not accept the module's signature";
	if ((err == EPERM || strstr(msg, strerror(EPERM))) &&
	    (log->lockdown || locked_down()))
		return "kernel lockdown refuses modules";
	return NULL;
}

/* Is @name in the comma-separated @list, or is the list "all"? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p, *comma;

	if (!strcmp(list, "all"))
		return true;
	for (p = list; ; p = comma + 1) {
		comma = strchr(p, ',');
		if (!strncmp(p, name, n) && (p + n == comma || !p[n]))
			return true;
		if (!comma)
			return false;
	}
}

/*
 * Is the module older than this test: does it lack a parameter or a
 * benchmark that the test itself asks for, in @ours or budget_ms=, rather
 * than one of MMBENCH_PARAMS?  Says so in @why.
 */
static bool older_module(const struct load_log *log, const char *ours,
			 char *why, size_t len)
{
	char copy[VAL_LEN], *tok, *save, *val;
	bool own_param, own_bench = false;

	own_param = !strcmp(log->unknown_param, "budget_ms");
	snprintf(copy, sizeof(copy), "%s", ours);
	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		val = strchr(tok, '=');
		if (!val)
			continue;
		*val++ = '\0';
		own_param |= !strcmp(tok, log->unknown_param);
		own_bench |= log->unknown_bench[0] &&
			     in_list(val, log->unknown_bench);
	}
	if (own_bench)
		snprintf(why, len,
			 "%s has no benchmark '%s': the module is older than this test",
			 MODNAME, log->unknown_bench);
	else if (own_param)
		snprintf(why, len,
			 "%s has no parameter '%s': the module is older than this test",
			 MODNAME, log->unknown_param);
	return own_bench || own_param;
}

/* What became of load_module(). */
enum load_result {
	LOADED,
	LOAD_SKIP,		/* not installed, or the kernel's policy */
	LOAD_BAD_PARAM,		/* the module refused a parameter */
	LOAD_FAIL,		/* any other failure */
};

/*
 * Load the module with @params, of which the test sets @ours.  A module
 * not installed, one the kernel refuses to load at all (signatures,
 * lockdown) or one older than the test (without a benchmark or parameter
 * in @ours) is a reason to skip; any other failure (a parameter refused,
 * ENOMEM, an error in the module's init, modprobe failing) is a failure.
 * @why says why, with modprobe's output and the kernel-log lines of the
 * load.
 */
static enum load_result load_module(const char *params, const char *ours,
				    char *why, size_t len)
{
	const char *ko = getenv("MMBENCH_MODULE"), *refused;
	char out[512] = "", detail[WHY_LEN] = "";
	int fd = -1, kmsg, ret, err = 0;
	struct load_log log;

	if (ko) {
		fd = open(ko, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(why, len, "cannot open MMBENCH_MODULE=%s: %s",
				 ko, strerror(errno));
			return LOAD_SKIP;
		}
	} else if (!module_installed()) {
		snprintf(why, len,
			 "module %s is not installed for this kernel (CONFIG_TEST_MMBENCH=m, or set MMBENCH_MODULE)",
			 MODNAME);
		return LOAD_SKIP;
	}

	kmsg = kmsg_open();
	if (ko) {
		ret = syscall(__NR_finit_module, fd, params, 0);
		if (ret) {
			err = errno;
			snprintf(detail, sizeof(detail),
				 "loading %s failed: %s:", ko, strerror(err));
		}
		close(fd);
	} else {
		ret = run_modprobe(params, out, sizeof(out));
		if (ret < 0)
			snprintf(detail, sizeof(detail),
				 "cannot run modprobe %s %s: %s:", MODNAME,
				 params, strerror(-ret));
		else if (ret)
			snprintf(detail, sizeof(detail),
				 "modprobe %s %s failed with status %d (%s):",
				 MODNAME, params, ret, out);
	}
	kmsg_module_lines(kmsg, detail, sizeof(detail), &log);
	if (kmsg >= 0)
		close(kmsg);

	refused = ret ? kernel_refused(err, out, &log) : NULL;
	if (ret && !refused && !ko && strstr(out, "not found"))
		refused = "modprobe does not find the module";
	snprintf(why, len, "%s%s%s", refused ? refused : "",
		 refused ? ": " : "", detail);
	if (older_module(&log, ours, why, len))
		return LOAD_SKIP;
	if (log.bad_param)
		return LOAD_BAD_PARAM;
	if (!ret)
		return LOADED;
	return refused ? LOAD_SKIP : LOAD_FAIL;
}

static int unload_module(void)
{
	return syscall(__NR_delete_module, MODNAME, O_NONBLOCK) ? -errno : 0;
}

/*
 * The module parameters of a case: budget_ms=CASE_BUDGET_MS, those of
 * MMBENCH_PARAMS but benchmarks=, which the test sets, then @ours.  Returns
 * false when MMBENCH_PARAMS has a benchmarks= list that leaves @filter (if
 * not NULL) out, or -E2BIG when they do not fit.
 */
static int build_params(const char *filter, const char *ours, char *out,
			size_t len)
{
	const char *extra = getenv("MMBENCH_PARAMS");
	char copy[1024], *tok, *save;
	bool wanted = true;
	size_t off;

	/* Each load under a third of the settings timeout, unless told. */
	off = snprintf(out, len, "budget_ms=%d ", CASE_BUDGET_MS);

	if (extra && strlen(extra) >= sizeof(copy))
		return -E2BIG;
	snprintf(copy, sizeof(copy), "%s", extra ? extra : "");
	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(tok, "benchmarks=", strlen("benchmarks="))) {
			wanted = !filter ||
				 in_list(tok + strlen("benchmarks="), filter);
			continue;
		}
		off += snprintf(out + off, len - off, "%s ", tok);
		if (off >= len)
			return -E2BIG;
	}
	if ((size_t)snprintf(out + off, len - off, "%s", ours) >= len - off)
		return -E2BIG;
	return wanted;
}

/*
 * Shared fixture setup: load the module for a case selected by @filter
 * with @ours on top of MMBENCH_PARAMS.  Skips (not root, module missing or
 * refused) or fails (a parameter refused) through _metadata.
 */
static void load_for_case(struct __test_metadata *_metadata,
			  const char *filter, const char *ours, bool *loaded)
{
	char params[1024], why[WHY_LEN];
	int ret;

	*loaded = false;
	if (geteuid())
		SKIP(return, "must be run as root to load %s", MODNAME);
	ret = build_params(filter, ours, params, sizeof(params));
	ASSERT_LE(0, ret) {
		TH_LOG("MMBENCH_PARAMS with the case's own parameters: over %zu characters",
		       sizeof(params) - 1);
	}
	if (!ret)
		SKIP(return, "%s is not in the benchmarks= of MMBENCH_PARAMS",
		     filter);

	/* A copy left loaded has parameters of its own: never reuse it. */
	if (!access("/sys/module/" MODNAME, F_OK)) {
		ret = unload_module();
		if (ret)
			SKIP(return, "%s is already loaded and cannot be removed: %s",
			     MODNAME, strerror(-ret));
		ksft_print_msg("removed a %s that was already loaded\n",
			       MODNAME);
	}

	ret = load_module(params, ours, why, sizeof(why));
	if (ret != LOADED && !access("/sys/module/" MODNAME, F_OK))
		unload_module();	/* loaded with a parameter ignored */
	/* A parameter the module refuses is a mistake to report, not skip. */
	ASSERT_NE(LOAD_BAD_PARAM, ret) {
		TH_LOG("parameters '%s' refused: %s", params, why);
	}
	ASSERT_NE(LOAD_FAIL, ret) {
		TH_LOG("%s", why);
	}
	if (ret == LOAD_SKIP)
		SKIP(return, "%.1000s", why);
	*loaded = true;
}

/*
 * Did the fixture's setup skip the case?  Before 6.4 (372b304c1e51) the
 * harness went on to the test body after a SKIP() in FIXTURE_SETUP, and the
 * body failed a case that should have skipped (not root, module absent).
 * Each body returns at once when this is true, so that built in such a tree
 * the case reports its setup's SKIP; later harnesses never run the body then.
 * A setup that does not skip either loads the module or fails the case.
 */
static bool setup_skipped(bool loaded)
{
	return !loaded;
}

static void unload_for_case(struct __test_metadata *_metadata, bool loaded)
{
	if (loaded)
		EXPECT_EQ(0, unload_module());
}

/*
 * Load the module of a case again, for one more run: true if it loaded,
 * else the case has failed or skipped (see load_for_case()).
 */
static bool reload_for_case(struct __test_metadata *_metadata,
			    const char *filter, const char *ours, bool *loaded)
{
	ASSERT_EQ(0, unload_module());
	*loaded = false;
	load_for_case(_metadata, filter, ours, loaded);
	return *loaded;
}

/*
 * What the machine is, told from user space alone.  It may only loosen a
 * verdict, never tighten one: where it cannot tell, it says "unknown" and
 * the machine is taken as possibly emulated.
 */
struct machine {
	char cpu_model[128];
	char hypervisor[64];	/* a name, "qemu", "none" or "unknown" */
	char system[128];	/* DMI vendor and product, or DT compatible */
	const char *emulated;	/* "yes", "no" or "unknown" */
};

/* The value of the first "@key : value" line of the CPU information. */
static bool cpuinfo_value(const char *key, char *val, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096], *colon, *end;
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		for (end = colon; end > line && isspace((unsigned char)end[-1]);)
			end--;
		if ((size_t)(end - line) != strlen(key) ||
		    strncmp(line, key, end - line))
			continue;
		for (colon++; isspace((unsigned char)*colon);)
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(val, len, "%s", colon);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/* Is @word one of the space-separated words of @list? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/*
 * The hypervisor named by CPUID leaf 0x40000000, when the hypervisor bit
 * is set: a short name for those known, else the raw signature.
 */
static void cpuid_hypervisor(char *name, size_t len)
{
#ifdef __x86_64__
	static const char * const known[][2] = {
		{ "KVMKVMKVM", "kvm" }, { "TCGTCGTCGTCG", "tcg" },
		{ "Microsoft Hv", "hyperv" }, { "VMwareVMware", "vmware" },
		{ "XenVMMXenVMM", "xen" }, { "VBoxVBoxVBox", "virtualbox" },
		{ "bhyve bhyve ", "bhyve" }, { "ACRNACRNACRN", "acrn" },
		{ " lrpepyh  vr", "parallels" }, { "QNXQVMBSQG", "qnx" },
		{ "Jailhouse", "jailhouse" },
	};
	unsigned int eax, ebx, ecx, edx, sig[3];
	char text[13];
	size_t i;

	name[0] = '\0';
	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1U << 31)))
		return;
	__cpuid(0x40000000, eax, sig[0], sig[1], sig[2]);
	memcpy(text, sig, 12);
	text[12] = '\0';
	for (i = 0; i < ARRAY_SIZE(known); i++) {
		if (!strcmp(text, known[i][0])) {
			snprintf(name, len, "%s", known[i][1]);
			return;
		}
	}
	for (i = 0; text[i]; i++)
		if (!isprint((unsigned char)text[i]))
			text[i] = '?';
	if (text[0])
		snprintf(name, len, "cpuid '%s'", text);
#else
	name[0] = '\0';
#endif
}

/* Is a QEMU machine model, with KVM or TCG below, named in @text? */
static bool qemu_machine(const char *text)
{
	return strstr(text, "QEMU") || strstr(text, "linux,dummy-virt") ||
	       strstr(text, "riscv-virtio");
}

static void detect_machine(struct machine *m)
{
	char flags[4096] = "", val[VAL_LEN], product[VAL_LEN], dt[512] = "";
	bool bit, qemu, named = false;
	ssize_t n;
	int fd;

	/* The CPU model: x86, riscv, else arm64's implementer and part. */
	if (!cpuinfo_value("model name", m->cpu_model, sizeof(m->cpu_model)) &&
	    !cpuinfo_value("uarch", m->cpu_model, sizeof(m->cpu_model))) {
		if (cpuinfo_value("CPU implementer", val, sizeof(val)) &&
		    cpuinfo_value("CPU part", product, sizeof(product)))
			snprintf(m->cpu_model, sizeof(m->cpu_model),
				 "implementer %.40s part %.40s", val, product);
		else if (!read_str("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
				   val, sizeof(val)))
			snprintf(m->cpu_model, sizeof(m->cpu_model),
				 "midr_el1 %.40s", val);
		else
			snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
	}

	/* The machine: DMI, or the device tree (NUL-separated strings). */
	m->system[0] = '\0';
	if (!read_str("/sys/class/dmi/id/sys_vendor", val, sizeof(val)) &&
	    !read_str("/sys/class/dmi/id/product_name", product,
		      sizeof(product)))
		snprintf(m->system, sizeof(m->system), "%.60s %.60s", val,
			 product);
	fd = open("/proc/device-tree/compatible", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, dt, sizeof(dt) - 1);
		close(fd);
		while (--n > 0)
			if (!dt[n - 1])
				dt[n - 1] = ' ';
		if (!m->system[0])
			snprintf(m->system, sizeof(m->system), "%s", dt);
	}

	/*
	 * A hypervisor that names itself: CPUID, /sys/hypervisor (Xen) or
	 * the kernel's "Hypervisor detected" line (x86).
	 */
	cpuid_hypervisor(m->hypervisor, sizeof(m->hypervisor));
	named = m->hypervisor[0] && strncmp(m->hypervisor, "cpuid ", 6);
	if (!named && !read_str("/sys/hypervisor/type", val, sizeof(val)) &&
	    val[0]) {
		snprintf(m->hypervisor, sizeof(m->hypervisor), "%.60s", val);
		named = true;
	}
	if (!named && kmsg_find("Hypervisor detected: ", val, sizeof(val))) {
		snprintf(m->hypervisor, sizeof(m->hypervisor), "%.60s",
			 strstr(val, ": ") + 2);
		named = true;
	}

	/*
	 * Emulated: QEMU's TCG names itself in CPUID or its CPU models
	 * ("QEMU Virtual CPU", "QEMU TCG CPU"); on x86 it sets the
	 * hypervisor bit and names no hypervisor.  A QEMU machine without
	 * the bit (arm64, riscv) may run under KVM or TCG: unknown.
	 */
	cpuinfo_value("flags", flags, sizeof(flags));
	bit = has_word(flags, "hypervisor");
	qemu = qemu_machine(m->system) || qemu_machine(dt);
	if (!strcmp(m->hypervisor, "tcg") ||
	    (!named && (strstr(m->cpu_model, "QEMU Virtual CPU") ||
			strstr(m->cpu_model, "TCG"))))
		m->emulated = "yes";
	else if (named)
		m->emulated = "no";
	else if (m->hypervisor[0])	/* a signature not known here */
		m->emulated = "unknown";
	else if (bit)
		m->emulated = "yes";
	else
		m->emulated = qemu ? "unknown" : "no";

	if (!m->hypervisor[0])
		snprintf(m->hypervisor, sizeof(m->hypervisor), "%s",
			 qemu ? "qemu" : bit ? "unknown" : "none");
}

/* What this machine is, found once. */
static const struct machine *machine(void)
{
	static struct machine m;

	if (!m.emulated)
		detect_machine(&m);
	return &m;
}

/*
 * Is this possibly an emulated machine, where costs are inflated and
 * uneven?  Where it cannot be told, yes.
 */
static bool emulated(void)
{
	return strcmp(machine()->emulated, "no");
}

/* Slab debugging on at run time (slub_debug=), seen on a kmalloc cache. */
static bool slub_debug_active(void)
{
	static const char * const flags[] = {
		"sanity_checks", "red_zone", "poison", "store_user",
	};
	char path[PATH_MAX], val[VAL_LEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/kmalloc-64/%s",
			 flags[i]);
		if (!read_str(path, val, sizeof(val)) && !strcmp(val, "1"))
			return true;
	}
	return false;
}

/*
 * Is a ceiling enforced here?  One the user set (@set_by not empty) is a
 * request to enforce it; the default ones are not enforced with debug
 * options that inflate costs (an emulated machine has ceilings of its
 * own).  MMBENCH_ENFORCE=1 enforces them all, MMBENCH_ENFORCE=0 none.
 * @why says why or why not.
 */
static bool ceiling_enforced(const char *set_by, char *why, size_t len)
{
	long long force = env_ll("MMBENCH_ENFORCE", -1);
	char debug[VAL_LEN] = "none";
	struct utsname u;

	if (!force) {
		snprintf(why, len, "MMBENCH_ENFORCE=0");
		return false;
	}
	if (set_by[0]) {
		snprintf(why, len, "set by %s", set_by);
		return true;
	}
	if (force > 0) {
		snprintf(why, len, "MMBENCH_ENFORCE=%lld", force);
		return true;
	}
	why[0] = '\0';
	read_str(SYSFS_DIR "/fingerprint/debug", debug, sizeof(debug));
	if (strcmp(debug, "none"))
		snprintf(why, len, "debug options: %s", debug);
	else if (slub_debug_active())
		snprintf(why, len, "slub_debug is on");
	if (why[0])
		return false;
	/*
	 * The emulated ceilings are what x86 under QEMU's TCG may cost; a
	 * machine that may be emulated, or another architecture's emulation,
	 * has none calibrated.
	 */
	if (!strcmp(machine()->emulated, "unknown")) {
		snprintf(why, len,
			 "a machine that may be emulated (fingerprint.emulated=unknown): no ceiling calibrated for it");
		return false;
	}
	if (emulated() && (uname(&u) || (strcmp(u.machine, "x86_64") &&
					 !strstr("i386 i486 i586 i686",
						 u.machine)))) {
		snprintf(why, len,
			 "an emulated machine other than x86: no ceiling calibrated for it");
		return false;
	}
	snprintf(why, len, "default for %s",
		 emulated() ? "an emulated machine" : "real hardware or KVM");
	return true;
}

/*
 * The CPU a run uses: the cpu parameter, which reads back the CPU taken;
 * from a module older than that, -1 is the first online CPU.
 */
static long long expected_cpu(void)
{
	long long cpu = -1;
	char online[VAL_LEN];

	read_ll(PARAMS_DIR "/cpu", &cpu);
	if (cpu < 0 && !read_str("/sys/devices/system/cpu/online", online,
				 sizeof(online)))
		cpu = strtoll(online, NULL, 10);
	return cpu;
}

/* Percent tolerance from @env, else @emul or @native. */
static long long tolerance(const char *env, long long native, long long emul)
{
	return env_ll(env, emulated() ? emul : native);
}

/*
 * @row's median absolute deviation, or, where the module gives no noise
 * (under 3 samples), one so large that no interval built on it is sure.
 */
static long long row_spread(const char *row)
{
	long long mad, noise;

	if (row_fixed(row, "noise_pct", &noise) ||
	    row_fixed(row, "ns_per_op_mad", &mad))
		return FIXED_MAX;
	return mad;
}

static int ll_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (of the middle two when even); sorts them. */
static long long median_ll(long long *v, int n)
{
	qsort(v, n, sizeof(*v), ll_cmp);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A row's sample_ns lists its kept samples: as many as its samples file
 * says, whose median is its ns_per_op_median.  Absent in an older module.
 */
static void samples_agree(struct __test_metadata *_metadata, const char *row)
{
	long long v[MAX_SAMPLES], kept, median;
	char buf[4096];
	const char *p = buf;
	int n = 0;

	if (row_str(row, "sample_ns", buf, sizeof(buf)) == -ENOENT)
		return;
	ASSERT_EQ(0, row_str(row, "sample_ns", buf, sizeof(buf)));
	ASSERT_EQ(0, row_ll(row, "samples", &kept));
	ASSERT_EQ(0, row_fixed(row, "ns_per_op_median", &median));
	while (*p && n < MAX_SAMPLES) {
		ASSERT_EQ(0, parse_fixed(p, &v[n], &p)) {
			TH_LOG("%s/sample_ns: '%s'", row, buf);
		}
		n++;
		if (*p == ' ')
			p++;
	}
	ASSERT_EQ(kept, n) {
		TH_LOG("%s/sample_ns: '%s'", row, buf);
	}
	ASSERT_EQ(median, median_ll(v, n)) {
		TH_LOG("%s/sample_ns: '%s'", row, buf);
	}
}

/*
 * Assert that @row ran and passed.  Returns false, with the reason in
 * @why, when it is unsupported here or the module, older than the test,
 * did not publish it: the caller skips.
 */
static bool row_passed(struct __test_metadata *_metadata, const char *row,
		       char *why, size_t len)
{
	char status[VAL_LEN], reason[VAL_LEN], path[PATH_MAX];

	snprintf(path, sizeof(path), SYSFS_DIR "/%.100s", row);
	if (access(path, F_OK)) {
		snprintf(why, len,
			 "%s published no row %.100s: the module is older than this test",
			 MODNAME, row);
		return false;
	}
	ASSERT_EQ(0, row_str(row, "status", status, sizeof(status)));
	ASSERT_EQ(0, row_str(row, "reason", reason, sizeof(reason)));
	if (!strcmp(status, "unsupported") || !strcmp(status, "noisy")) {
		snprintf(why, len, "%.60s %s: %.120s", row, status, reason);
		return false;
	}
	ASSERT_STREQ("pass", status) {
		TH_LOG("%s: %s", row, reason);
	}
	samples_agree(_metadata, row);
	return true;
}

FIXTURE(mmbench) {
	bool loaded;
};

FIXTURE_VARIANT(mmbench) {
	const char *name;
	const char *also;	/* run beside it, to compare with */
};

FIXTURE_VARIANT_ADD(mmbench, alu_chain) {
	.name = "alu_chain",
};

FIXTURE_VARIANT_ADD(mmbench, inc_zone_page_state) {
	.name = "inc_zone_page_state",
};

FIXTURE_VARIANT_ADD(mmbench, dec_zone_page_state) {
	.name = "dec_zone_page_state",
};

FIXTURE_VARIANT_ADD(mmbench, inc_dec_zone_page_state) {
	.name = "inc_dec_zone_page_state",
};

FIXTURE_VARIANT_ADD(mmbench, mod_node_page_state) {
	.name = "mod_node_page_state",
};

FIXTURE_VARIANT_ADD(mmbench, __mod_zone_page_state) {
	.name = "__mod_zone_page_state",
};

FIXTURE_VARIANT_ADD(mmbench, count_vm_event) {
	.name = "count_vm_event",
};

FIXTURE_VARIANT_ADD(mmbench, count_vm_events) {
	.name = "count_vm_events",
};

FIXTURE_VARIANT_ADD(mmbench, alloc_pages) {
	.name = "alloc_pages",
};

FIXTURE_VARIANT_ADD(mmbench, alloc_pages_batch) {
	.name = "alloc_pages_batch",
};

FIXTURE_VARIANT_ADD(mmbench, alloc_pages_bulk) {
	.name = "alloc_pages_bulk",
};

FIXTURE_VARIANT_ADD(mmbench, kmalloc) {
	.name = "kmalloc",
};

FIXTURE_VARIANT_ADD(mmbench, kmem_cache) {
	.name = "kmem_cache",
};

FIXTURE_VARIANT_ADD(mmbench, kmem_cache_bulk) {
	.name = "kmem_cache_bulk",
};

FIXTURE_VARIANT_ADD(mmbench, kfree_bulk) {
	.name = "kfree_bulk",
};

FIXTURE_VARIANT_ADD(mmbench, page_frag) {
	.name = "page_frag",
};

FIXTURE_VARIANT_ADD(mmbench, page_frag_aligned) {
	.name = "page_frag_aligned",
};

FIXTURE_VARIANT_ADD(mmbench, alloc_pages_concurrent) {
	.name = "alloc_pages_concurrent",
};

FIXTURE_VARIANT_ADD(mmbench, kmalloc_concurrent) {
	.name = "kmalloc_concurrent",
};

FIXTURE_VARIANT_ADD(mmbench, page_frag_concurrent) {
	.name = "page_frag_concurrent",
};

FIXTURE_VARIANT_ADD(mmbench, ptr_ring_remote) {
	.name = "ptr_ring_remote",
};

FIXTURE_VARIANT_ADD(mmbench, alloc_pages_remote_free) {
	.name = "alloc_pages_remote_free",
	.also = "ptr_ring_remote",
};

FIXTURE_VARIANT_ADD(mmbench, kmalloc_remote_free) {
	.name = "kmalloc_remote_free",
	.also = "ptr_ring_remote",
};

FIXTURE_VARIANT_ADD(mmbench, page_frag_remote_free) {
	.name = "page_frag_remote_free",
	.also = "ptr_ring_remote",
};

FIXTURE_SETUP(mmbench)
{
	char ours[VAL_LEN];

	snprintf(ours, sizeof(ours), "benchmarks=%s%s%s", variant->name,
		 variant->also ? "," : "", variant->also ? variant->also : "");
	load_for_case(_metadata, variant->name, ours, &self->loaded);
}

FIXTURE_TEARDOWN(mmbench)
{
	unload_for_case(_metadata, self->loaded);
}

/*
 * Is @row one of @bench's rows: @bench itself, or @bench_<suffix><value>
 * for a benchmark with a list parameter (kmalloc_64, alloc_pages_order3)?
 */
static bool row_of(const char *row, const char *bench)
{
	size_t n = strlen(bench);
	const char *p;

	if (!strcmp(row, bench))
		return true;
	if (strncmp(row, bench, n) || row[n] != '_' ||
	    !isdigit((unsigned char)row[strlen(row) - 1]))
		return false;
	for (p = row + n + 1; *p; p++)
		if (!isalnum((unsigned char)*p))
			return false;
	return true;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* A ceiling verdict the case withheld, for its SKIP; one process a case. */
static char withheld[512];

/*
 * Is @row's cost over @ceiling whatever the noise?  Its median @mid less
 * its MAD, divided by 1 + the baseline's drift over the run (a machine
 * that slowed by d % may have made the row d % dearer), must still be
 * over; else @why says by how much it is not.
 */
static bool over_for_sure(const char *row, long long mid, long long ceiling,
			  char *why, size_t len)
{
	long long mad, noise, drift, low;
	char val[VAL_LEN];

	/* Under 3 samples the module gives no noise: nothing is sure. */
	if (row_fixed(row, "noise_pct", &noise) ||
	    row_fixed(row, "ns_per_op_mad", &mad)) {
		snprintf(why, len, "%.60s: too few samples to know its noise",
			 row);
		return false;
	}
	/* "none": the second baseline did not run; the drift is unknown. */
	if (read_str(SYSFS_DIR "/baseline_drift_pct", val, sizeof(val)) ||
	    parse_fixed(val, &drift, NULL)) {
		snprintf(why, len, "the run's baseline drift is unknown");
		return false;
	}
	low = (mid - mad) / (100000 + llabs(drift)) * 100000 +
	      (mid - mad) % (100000 + llabs(drift)) * 100000 /
	      (100000 + llabs(drift));
	if (low > ceiling)
		return true;
	snprintf(why, len,
		 "median %s less MAD %s, with the run's drift of %s %%, is %s ns, not over the ceiling",
		 fixed(mid), fixed(mad), fixed(drift), fixed(low));
	return false;
}

/*
 * Performance sanity: the median @mid of row @name under its ceiling, the
 * row's own or else its benchmark's, for real hardware or for an emulated
 * machine, where that ceiling is enforced.  The one place where a row's
 * figure meets its ceiling: over_for_sure() decides whether an
 * over-ceiling figure is judged.
 */
static void ceiling_verdict(struct __test_metadata *_metadata,
			    const char *name, const char *bench, long long mid)
{
	char why[WHY_LEN], set_by[VAL_LEN];
	long long ceiling;
	int ret;

	ret = find_ceiling(name, emulated(), false, &ceiling, set_by,
			   sizeof(set_by), why, sizeof(why));
	if (ret == -ENOENT)
		ret = find_ceiling(bench, emulated(), false, &ceiling, set_by,
				   sizeof(set_by), why, sizeof(why));
	/* A file of the user's that lacks the row: the default ceilings. */
	if (ret == -ENOENT && getenv("MMBENCH_CEILINGS")) {
		ret = find_ceiling(name, emulated(), true, &ceiling, set_by,
				   sizeof(set_by), why, sizeof(why));
		if (ret == -ENOENT)
			ret = find_ceiling(bench, emulated(), true, &ceiling,
					   set_by, sizeof(set_by), why,
					   sizeof(why));
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("%s", why);
	}
	ksft_print_msg("%s.ceiling_ns=%s\n", name, fixed(ceiling));
	if (!ceiling_enforced(set_by, why, sizeof(why))) {
		ksft_print_msg("%s.ceiling=informational (%s)%s\n", name, why,
			       mid > ceiling ? ": median is over it" : "");
		return;
	}
	ksft_print_msg("%s.ceiling=enforced (%s)\n", name, why);
	/*
	 * Over it is a failure only where the measurement earned one: the
	 * median less its MAD, shrunk by how far the machine drifted over
	 * the run, is still over it.  Noise and a busy host only add cost.
	 */
	if (mid > ceiling && !over_for_sure(name, mid, ceiling, why,
					    sizeof(why))) {
		ksft_print_msg("%s.ceiling=not judged (%s): median is over it\n",
			       name, why);
		/* The case skips: it passed nothing it could not judge. */
		snprintf(withheld, sizeof(withheld),
			 "%.60s over its ceiling, not judged: %.300s", name, why);
		return;
	}
	EXPECT_LE(mid, ceiling) {
		TH_LOG("%s: median %s ns/op is over the ceiling of %s ns/op (%s)",
		       name, fixed(mid), fixed(ceiling), why);
	}
}

/* Check one row of a run; returns false if it was unsupported here. */
static bool check_row(struct __test_metadata *_metadata, const char *name,
		      const char *bench)
{
	char val[VAL_LEN], group[VAL_LEN], reason[VAL_LEN];
	long long want, got, lo, mid, net, base;

	report_row(name);
	ASSERT_EQ(0, row_str(name, "status", val, sizeof(val)));
	ASSERT_EQ(0, row_str(name, "reason", reason, sizeof(reason)));
	/* The module judged the path before the noise: nothing to assert. */
	if (!strcmp(val, "unsupported") || !strcmp(val, "noisy")) {
		ksft_print_msg("%s: %s here: %s\n", name, val, reason);
		return false;
	}
	ASSERT_STREQ("pass", val) {
		TH_LOG("%s: %s", name, reason);
	}

	/*
	 * The path left no trace: a counter it moves is back (the module
	 * fails the row otherwise; this checks what it published), and the
	 * calibration rows have none.
	 */
	ASSERT_EQ(0, row_str(name, "group", group, sizeof(group)));
	if (!row_str(name, "counter_delta", val, sizeof(val))) {
		ASSERT_STREQ("0", val);
	} else {
		ASSERT_STREQ("calibration", group) {
			TH_LOG("%s: no counter_delta", name);
		}
	}

	/* On the CPU asked for. */
	ASSERT_EQ(0, row_ll(name, "cpu", &got));
	ASSERT_EQ(expected_cpu(), got);

	/*
	 * Every sample asked for, unless the module says budget_ms or
	 * dropped samples cut them short; every op asked for, unless
	 * budget_ms clamped them or whole batches or bulks rounded them up.
	 */
	ASSERT_EQ(0, read_ll(PARAMS_DIR "/samples", &want));
	ASSERT_EQ(0, row_ll(name, "samples", &got));
	ASSERT_LT(0, got);
	ASSERT_LE(got, want);
	if (got < want)
		ASSERT_TRUE(strstr(reason, "budget_ms") ||
			    strstr(reason, "dropped")) {
			TH_LOG("%s: %lld of %lld samples: %s", name, got, want,
			       reason);
		}
	ASSERT_EQ(0, read_ll(PARAMS_DIR "/iterations", &want));
	ASSERT_EQ(0, row_ll(name, "ops_per_sample", &got));
	ASSERT_LT(0, got);
	if (want && !strstr(reason, "clamped") &&
	    !strstr(reason, "rounded up") && !strstr(reason, "raised"))
		ASSERT_EQ(want, got);

	/* The figures are consistent: ordered, net = median - baseline. */
	ASSERT_EQ(0, row_fixed(name, "ns_per_op_min", &lo));
	ASSERT_EQ(0, row_fixed(name, "ns_per_op_median", &mid));
	ASSERT_EQ(0, row_fixed(name, "net_ns_per_op", &net));
	ASSERT_EQ(0, row_fixed("baseline", "ns_per_op_median", &base));
	ASSERT_LT(0, lo);
	ASSERT_LE(lo, mid);
	ASSERT_EQ(mid - base, net);

	ceiling_verdict(_metadata, name, bench, mid);
	return true;
}

TEST_F_TIMEOUT(mmbench, run, CASE_TIMEOUT)
{
	char names[64][64], why[VAL_LEN] = "";
	int n = 0, i, supported = 0;
	long long mid, ring;
	struct dirent *de;
	DIR *dir;

	if (setup_skipped(self->loaded))
		return;
	report_run(1);
	report_row("baseline");
	/* A noisy or unsupported baseline: nothing here can be judged. */
	if (!row_passed(_metadata, "baseline", why, sizeof(why)))
		SKIP(return, "%s", why);

	dir = opendir(SYSFS_DIR);
	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir)) && n < 64)
		if (row_of(de->d_name, variant->name))
			snprintf(names[n++], sizeof(names[0]), "%s",
				 de->d_name);
	closedir(dir);
	qsort(names, n, sizeof(names[0]), name_cmp);
	ASSERT_LT(0, n) {
		TH_LOG("no row of %s in %s", variant->name, SYSFS_DIR);
	}

	for (i = 0; i < n; i++)
		supported += check_row(_metadata, names[i], variant->name);

	/*
	 * A remote free, less the ring alone that carries its blocks: what
	 * the allocator adds.  Reported, not judged.
	 */
	if (variant->also && supported &&
	    !row_str(variant->also, "status", why, sizeof(why)) &&
	    !strcmp(why, "pass") &&
	    !row_fixed(variant->name, "ns_per_op_median", &mid) &&
	    !row_fixed(variant->also, "ns_per_op_median", &ring)) {
		report_row(variant->also);
		ksft_print_msg("%s.allocator_share_ns=%s\n", variant->name,
			       fixed(mid - ring));
	}

	if (!supported) {
		ASSERT_EQ(0, row_str(names[0], "reason", why, sizeof(why)));
		SKIP(return, "%s: %s", variant->name, why);
	}
	if (withheld[0])
		SKIP(return, "%s", withheld);
}

FIXTURE(context) {
	bool loaded;
};

FIXTURE_SETUP(context)
{
	load_for_case(_metadata, NULL, "benchmarks=alu_chain", &self->loaded);
}

FIXTURE_TEARDOWN(context)
{
	unload_for_case(_metadata, self->loaded);
}

/* Print what the figures depend on, and whether ceilings are enforced. */
TEST_F_TIMEOUT(context, fingerprint, CASE_TIMEOUT)
{
	char val[VAL_LEN], why[WHY_LEN];
	struct utsname u;

	if (setup_skipped(self->loaded))
		return;
	report_dir(SYSFS_DIR "/fingerprint", "fingerprint");
	ASSERT_EQ(0, uname(&u));
	ksft_print_msg("fingerprint.release=%s\n", u.release);
	ASSERT_EQ(0, read_str(SYSFS_DIR "/fingerprint/preempt", val,
			      sizeof(val)));
	ASSERT_NE(0UL, strlen(val));
	if (!read_str("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      val, sizeof(val)))
		ksft_print_msg("fingerprint.clocksource=%s\n", val);
	ksft_print_msg("fingerprint.cpu_model=%s\n", machine()->cpu_model);
	ksft_print_msg("fingerprint.machine=%s\n",
		       machine()->system[0] ? machine()->system : "unknown");
	ksft_print_msg("fingerprint.hypervisor=%s\n", machine()->hypervisor);
	ksft_print_msg("fingerprint.emulated=%s\n", machine()->emulated);
	ksft_print_msg("fingerprint.slub_debug=%d\n", slub_debug_active());
	if (ceiling_enforced("", why, sizeof(why)))
		ksft_print_msg("fingerprint.ceilings=enforced (%s)\n", why);
	else
		ksft_print_msg("fingerprint.ceilings=informational (%s)\n",
			       why);
}

FIXTURE(ndelay) {
	bool loaded;
};

FIXTURE_SETUP(ndelay)
{
	load_for_case(_metadata, "ndelay", "benchmarks=ndelay", &self->loaded);
}

FIXTURE_TEARDOWN(ndelay)
{
	unload_for_case(_metadata, self->loaded);
}

/*
 * Where does @err, known to +/- @noise, stand against [@lo, @hi]?  1 when
 * the whole interval is inside (a pass is earned), -1 when it is wholly
 * outside (a failure is earned), 0 when it straddles a limit: the noise
 * decides, not the machine under test.
 */
static int interval_verdict(long long err, long long noise, long long lo,
			    long long hi)
{
	if (err - noise >= lo && err + noise <= hi)
		return 1;
	if (err + noise < lo || err - noise > hi)
		return -1;
	return 0;
}

/* A noise in 1/1000 % for a message; row_spread()'s "unknown" as words. */
static const char *noise_str(long long noise)
{
	return noise > 1000000000LL ? "unknown (a row has under 3 samples)" :
	       fixed(noise * 100);
}

/* The unit after noise_str(), which a noise in words has not. */
static const char *noise_unit(long long noise)
{
	return noise > 1000000000LL ? "" : " %";
}

/*
 * How sure is a figure measured once per run: the median of @v over @n
 * runs, give or take the larger of @within (the rows' own noise) and the
 * median absolute deviation between the runs.  Sorts @v.
 */
static long long across_runs(long long *v, int n, long long within,
			     long long *noise)
{
	long long mid = median_ll(v, n), dev[CLOCK_RUNS];
	int i;

	for (i = 0; i < n; i++)
		dev[i] = llabs(v[i] - mid);
	*noise = median_ll(dev, n);
	if (*noise < within)
		*noise = within;
	return mid;
}

/*
 * The clock against ndelay(): between two delays the measured cost must
 * rise by the nominal difference.  ndelay() has a fixed cost of its own, so
 * only differences are judged, between the rows' fastest samples (a busy
 * host only adds time, and can add it to a whole row: one run on a busy
 * host measured ndelay(5000)'s median at 13.2 us, MAD 2.8 %), and only
 * where the measurement can tell:
 * - the delay loop resolves the pair: its granularity, what the shortest
 *   non-zero delay costs beyond its nominal length and ndelay(0)'s cost,
 *   is at most 1/NDELAY_RESOLVED of the pair's difference (where an
 *   architecture has no ndelay() of its own every delay under 1 us lasts
 *   1 us; an emulated delay loop moves in steps of hundreds of ns);
 * - the median error over CLOCK_RUNS runs, give or take the larger of
 *   the two rows' noise (their median absolute deviations summed, as a
 *   share of the nominal rise) and the errors' spread between the runs,
 *   lies wholly inside the tolerance (pass) or wholly outside it (fail).
 * A pair that fails one of these is reported and not judged; the case
 * skips, naming the figures, when no pair can be judged.  Its time limit
 * holds CLOCK_RUNS loads of up to CASE_BUDGET_MS each, and their unloads.
 */
TEST_F_TIMEOUT(ndelay, slope, CLOCK_TIMEOUT)
{
	long long d[8], fast[CLOCK_RUNS][8], mad[CLOCK_RUNS][8];
	long long v[CLOCK_RUNS], w[CLOCK_RUNS], step[CLOCK_RUNS];
	long long gran, nominal, err, noise, tol, lo, hi;
	char list[VAL_LEN], row[64], why[WHY_LEN] = "", skipped[WHY_LEN] = "";
	int n = 0, i, r, runs = 0, judged = 0, first;
	char *tok, *save;
	size_t off = 0;

	if (setup_skipped(self->loaded))
		return;
	ASSERT_EQ(0, read_str(PARAMS_DIR "/delays", list, sizeof(list)));
	for (tok = strtok_r(list, ",", &save); tok && n < 8;
	     tok = strtok_r(NULL, ",", &save))
		d[n++] = strtoll(tok, NULL, 10);
	qsort(d, n, sizeof(d[0]), ll_cmp);
	first = !d[0];
	if (n - first < 2)
		SKIP(return, "a slope needs two delays other than 0");

	for (r = 0; r < CLOCK_RUNS; r++) {
		if (r && !reload_for_case(_metadata, "ndelay",
					  "benchmarks=ndelay", &self->loaded))
			return;
		report_run(r + 1);
		ASSERT_EQ(0, read_ll(SYSFS_DIR "/clock_step_ns", &step[runs]));
		step[runs] *= 1000;
		for (i = 0; i < n; i++) {
			snprintf(row, sizeof(row), "ndelay_%lld", d[i]);
			if (!runs)
				report_row(row);
			if (!row_passed(_metadata, row, why, sizeof(why)))
				SKIP(return, "%s", why);
			/* A busy host only adds time: the fastest sample. */
			ASSERT_EQ(0, row_fixed(row, "ns_per_op_min",
					       &fast[runs][i]));
			mad[runs][i] = row_spread(row);
		}
		runs++;
	}

	/*
	 * The delay loop's step: what the shortest delay costs beyond its
	 * nominal length and beyond ndelay(0) (or in all, without 0: an
	 * upper bound).  A fine loop overshoots by a few ns; one that moves
	 * in steps of S ns costs about S for any delay under S.
	 */
	for (r = 0; r < runs; r++) {
		v[r] = fast[r][first] - (first ? fast[r][0] : 0) -
		       d[first] * 1000;
		if (v[r] < 0)
			v[r] = 0;
	}
	gran = median_ll(v, runs);
	/*
	 * ndelay() polls the counter that ktime_get_ns() reads (the TSC, or
	 * arm64's generic timer): it resolves no less than one step of it,
	 * which under emulation (a timer read of 300-800 ns on arm64 TCG)
	 * can exceed what the shortest delay showed.
	 */
	lo = median_ll(step, runs);
	ksft_print_msg("ndelay.clock_step_ns=%s\n", fixed(lo));
	if (gran < lo)
		gran = lo;
	tol = tolerance("MMBENCH_DELAY_TOLERANCE", 10, 60);
	ksft_print_msg("ndelay.granularity_ns=%s\n", fixed(gran));
	ksft_print_msg("ndelay.tolerance_pct=%lld\n", tol);
	ksft_print_msg("ndelay.rounding_allowance_pct=%d\n", NDELAY_ROUNDING_PCT);

	lo = -tol * 10;
	hi = (tol + NDELAY_ROUNDING_PCT) * 10;
	for (i = first + 1; i < n; i++) {
		nominal = (d[i] - d[i - 1]) * 1000;
		if (nominal < NDELAY_RESOLVED * gran) {
			off += snprintf(skipped + off, sizeof(skipped) - off,
					"%sndelay(%lld)-ndelay(%lld): %lld ns apart, under %d x the delay's granularity of %s ns",
					off ? "; " : "", d[i], d[i - 1],
					d[i] - d[i - 1], NDELAY_RESOLVED,
					fixed(gran));
			if (off >= sizeof(skipped))
				off = sizeof(skipped) - 1;
			continue;
		}
		for (r = 0; r < runs; r++) {
			v[r] = (fast[r][i] - fast[r][i - 1] - nominal) * 1000 /
			       nominal;
			ksft_print_msg("ndelay.slope_%lld_%lld.run%d.rise_ns=%s\n",
				       d[i - 1], d[i], r,
				       fixed(fast[r][i] - fast[r][i - 1]));
		}
		for (r = 0; r < runs; r++)
			w[r] = (mad[r][i] + mad[r][i - 1]) * 1000 / nominal;
		err = across_runs(v, runs, median_ll(w, runs), &noise);
		ksft_print_msg("ndelay.slope_%lld_%lld.error_pct=%s\n",
			       d[i - 1], d[i], fixed(err * 100));
		ksft_print_msg("ndelay.slope_%lld_%lld.noise_pct=%s\n",
			       d[i - 1], d[i], noise_str(noise));
		if (!interval_verdict(err, noise, lo, hi)) {
			off += snprintf(skipped + off, sizeof(skipped) - off,
					"%sndelay(%lld)-ndelay(%lld) noisy: %s %% off +/- %s%s (MADs, spread of runs) straddles %s..%s %%",
					off ? "; " : "", d[i], d[i - 1],
					fixed(err * 100), noise_str(noise),
					noise_unit(noise), fixed(lo * 100),
					fixed(hi * 100));
			if (off >= sizeof(skipped))
				off = sizeof(skipped) - 1;
			continue;
		}
		judged++;
		EXPECT_EQ(1, interval_verdict(err, noise, lo, hi)) {
			TH_LOG("ndelay(%lld)-ndelay(%lld): %s%% +/- %s%%, limits %s..%s%%, %d runs",
			       d[i], d[i - 1], fixed(err * 100),
			       fixed(noise * 100), fixed(lo * 100),
			       fixed(hi * 100), runs);
		}
	}
	if (skipped[0])
		ksft_print_msg("ndelay.not_judged=%s\n", skipped);
	if (!judged)
		SKIP(return, "%.1000s", skipped);
}

/*
 * The harness exits 0 when every test skipped; exit with KSFT_SKIP instead
 * so that runners report the whole program as skipped (not root, module
 * missing).
 */
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
