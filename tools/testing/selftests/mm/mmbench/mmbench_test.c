// SPDX-License-Identifier: GPL-2.0
/*
 * mmbench_test - run the test_mmbench module and judge what it measured
 *
 * For each benchmark the fixture loads test_mmbench with only that benchmark
 * selected, the test triggers a run through /sys/kernel/mmbench/run, reads
 * the results back, asserts that the path worked (status "pass", counter back
 * where it was, every sample taken) and expects the median ns/op to stay
 * under a sanity ceiling.  Every figure is printed as a "# name.key=value"
 * line.
 *
 * Environment:
 *   MMBENCH_MODULE		path of a test_mmbench.ko to load instead of
 *				"modprobe test_mmbench"
 *   MMBENCH_PARAMS		extra module parameters, e.g.
 *				"iterations=10000 samples=5 cpu=1"; a
 *				benchmarks= list there skips the benchmarks
 *				it leaves out, run_on_load= is ignored
 *   MMBENCH_CEILINGS		ceilings file (default: "ceilings" beside this
 *				program)
 *   MMBENCH_CEILING_<NAME>	ceiling in ns/op for one benchmark, NAME in
 *				upper case, e.g. MMBENCH_CEILING_COUNT_VM_EVENT=50
 *
 * Needs root; skips when not root, when the module is not installed, or when
 * the kernel refuses to load it (module signature, lockdown), and fails when
 * the module refuses a parameter.
 */
#define _GNU_SOURCE
#include <ctype.h>
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

#include "../../kselftest_harness.h"

#define MODNAME		"test_mmbench"
#define SYSFS_DIR	"/sys/kernel/mmbench"
#define PARAMS_DIR	"/sys/module/" MODNAME "/parameters"
#define VAL_LEN		128
#define WHY_LEN		(PATH_MAX + 512)

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

static int read_ull(const char *path, unsigned long long *v)
{
	char buf[VAL_LEN], *end;
	int ret;

	ret = read_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

static int write_str(const char *path, const char *s)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/*
 * Parse a non-negative decimal with up to three fractional digits, as the
 * module prints ns/op, into thousandths: "12.5" -> 12500.
 */
static int parse_milli(const char *s, unsigned long long *v)
{
	unsigned long long whole = 0, frac = 0;
	int digits = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s))
		whole = whole * 10 + (*s++ - '0');
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s) && digits < 3) {
			frac = frac * 10 + (*s++ - '0');
			digits++;
		}
		if (!digits)
			return -EINVAL;
	}
	if (*s)
		return -EINVAL;
	while (digits++ < 3)
		frac *= 10;
	*v = whole * 1000 + frac;
	return 0;
}

/*
 * The ceiling for @name in thousandths of a ns: from MMBENCH_CEILING_<NAME>,
 * else from the ceilings file.  Returns 0, or -ENOENT with @why filled in.
 */
static int find_ceiling(const char *name, unsigned long long *ceiling,
			char *why, size_t len)
{
	char env[VAL_LEN] = "MMBENCH_CEILING_", path[PATH_MAX], line[256];
	const char *val, *file;
	size_t i, off = strlen(env);
	int lineno = 0, ret = -ENOENT;
	FILE *f;

	for (i = 0; name[i] && off < sizeof(env) - 1; i++)
		env[off++] = toupper((unsigned char)name[i]);
	env[off] = '\0';
	val = getenv(env);
	if (val) {
		if (parse_milli(val, ceiling)) {
			snprintf(why, len, "%s='%s' is not a number of ns", env,
				 val);
			return -EINVAL;
		}
		return 0;
	}

	file = getenv("MMBENCH_CEILINGS");
	if (!file) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		char *slash;

		if (n < 0)
			n = 0;
		path[n] = '\0';
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
		return -ENOENT;
	}
	snprintf(why, len, "no ceiling for %s in %s and %s is not set", name,
		 file, env);
	while (fgets(line, sizeof(line), f)) {
		char key[VAL_LEN], value[VAL_LEN];

		lineno++;
		if (sscanf(line, " %127s %127s", key, value) != 2 ||
		    key[0] == '#' || strcmp(key, name))
			continue;
		if (parse_milli(value, ceiling)) {
			snprintf(why, len, "%s:%d: '%s' is not a number of ns",
				 file, lineno, value);
			ret = -EINVAL;
		} else {
			ret = 0;
		}
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

static int run_modprobe(char *params)
{
	char *argv[64] = { "modprobe", MODNAME };
	int argc = 2, status;
	char *tok, *save;
	pid_t pid;

	for (tok = strtok_r(params, " \t\n", &save); tok && argc < 63;
	     tok = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
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

/*
 * Append to @buf the module's kernel-log lines since kmsg_open(); return
 * true if one says a parameter was invalid.
 */
static bool kmsg_module_lines(int fd, char *buf, size_t len)
{
	size_t off = strlen(buf), prefix = strlen(MODNAME ": ");
	bool bad_param = false;
	char rec[1024];
	int tries = 0;
	ssize_t n;

	while (fd >= 0 && off < len && tries++ < 10000) {
		char *msg, *nl;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg || strncmp(++msg, MODNAME ": ", prefix))
			continue;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		bad_param |= !!strstr(msg, "invalid for parameter");
		off += snprintf(buf + off, len - off, " [%s]", msg);
	}
	return bad_param;
}

/*
 * Load the module with @params.  Returns 0 when loaded, -EINVAL when the
 * module refused a parameter, or -1 when it cannot be loaded here; @why
 * says why, with the module's kernel-log lines.
 */
static int load_module(char *params, char *why, size_t len)
{
	const char *ko = getenv("MMBENCH_MODULE");
	int fd, kmsg, ret;

	why[0] = '\0';
	if (ko) {
		fd = open(ko, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(why, len, "cannot open MMBENCH_MODULE=%s: %s",
				 ko, strerror(errno));
			return -1;
		}
	} else if (!module_installed()) {
		snprintf(why, len,
			 "module %s is not installed for this kernel (CONFIG_TEST_MMBENCH=m, or set MMBENCH_MODULE)",
			 MODNAME);
		return -1;
	}

	kmsg = kmsg_open();
	if (ko) {
		ret = syscall(__NR_finit_module, fd, params, 0);
		if (ret)
			snprintf(why, len, "the kernel refused to load %s: %s:",
				 ko, strerror(errno));
		close(fd);
	} else {
		ret = run_modprobe(params);
		if (ret)
			snprintf(why, len,
				 "modprobe %s failed with status %d:", MODNAME,
				 ret);
	}
	if (ret && kmsg_module_lines(kmsg, why, len))
		ret = -EINVAL;
	else if (ret)
		ret = -1;
	if (kmsg >= 0)
		close(kmsg);
	return ret;
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
 * The module parameters for benchmark @name: those of MMBENCH_PARAMS but
 * benchmarks= and run_on_load=, which the test sets itself.  Returns false
 * when MMBENCH_PARAMS has a benchmarks= list that leaves @name out.
 */
static bool build_params(const char *name, char *out, size_t len)
{
	const char *extra = getenv("MMBENCH_PARAMS");
	char copy[1024], *tok, *save;
	bool wanted = true;
	size_t off = 0;

	snprintf(copy, sizeof(copy), "%s", extra ? extra : "");
	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(tok, "benchmarks=", strlen("benchmarks="))) {
			wanted = in_list(tok + strlen("benchmarks="), name);
			continue;
		}
		if (!strncmp(tok, "run_on_load=", strlen("run_on_load=")))
			continue;
		if (off < len)
			off += snprintf(out + off, len - off, "%s ", tok);
	}
	if (off < len)
		snprintf(out + off, len - off, "run_on_load=0 benchmarks=%s",
			 name);
	return wanted;
}

static int unload_module(void)
{
	return syscall(__NR_delete_module, MODNAME, O_NONBLOCK) ? -errno : 0;
}

FIXTURE(mmbench) {
	bool loaded;
};

FIXTURE_VARIANT(mmbench) {
	const char *name;
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

FIXTURE_SETUP(mmbench)
{
	char params[1024], why[WHY_LEN];
	int ret;

	self->loaded = false;
	if (geteuid())
		SKIP(return, "must be run as root to load %s", MODNAME);
	if (!build_params(variant->name, params, sizeof(params)))
		SKIP(return, "%s is not in the benchmarks= of MMBENCH_PARAMS",
		     variant->name);

	/* A copy left loaded has parameters of its own: never reuse it. */
	if (!access("/sys/module/" MODNAME, F_OK)) {
		ret = unload_module();
		if (ret)
			SKIP(return, "%s is already loaded and cannot be removed: %s",
			     MODNAME, strerror(-ret));
		ksft_print_msg("removed a %s that was already loaded\n",
			       MODNAME);
	}

	ret = load_module(params, why, sizeof(why));
	/* A parameter the module refuses is a mistake to report, not skip. */
	ASSERT_NE(-EINVAL, ret) {
		TH_LOG("parameters '%s' refused: %s", params, why);
	}
	if (ret)
		SKIP(return, "%.1000s", why);
	self->loaded = true;
}

FIXTURE_TEARDOWN(mmbench)
{
	if (self->loaded)
		EXPECT_EQ(0, unload_module());
}

/* Print one result file as "# <benchmark>.<file>=<value>" into @val. */
static int report(const char *name, const char *file, char *val, size_t len)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), SYSFS_DIR "/%s/%s", name, file);
	ret = read_str(path, val, len);
	if (ret)
		ksft_print_msg("%s.%s: cannot read %s: %s\n", name, file, path,
			       strerror(-ret));
	else
		ksft_print_msg("%s.%s=%s\n", name, file, val);
	return ret;
}

TEST_F_TIMEOUT(mmbench, run, 120)
{
	static const char * const figures[] = {
		"cpu", "ops_per_sample", "samples", "ns_per_op_min",
		"ns_per_op_median", "ns_per_op_max", "cycles_per_op_min",
		"cycles_per_op_median", "cycles_per_op_max", "counter_delta",
	};
	unsigned long long seq, seq_after, want, got, lo, mid, hi, ceiling;
	char val[VAL_LEN], status[VAL_LEN], reason[VAL_LEN], why[WHY_LEN];
	char path[PATH_MAX];
	const char *name = variant->name;
	size_t i;

	ASSERT_EQ(0, read_str(SYSFS_DIR "/state", val, sizeof(val)));
	ASSERT_STREQ("idle", val);
	ASSERT_EQ(0, read_ull(SYSFS_DIR "/seq", &seq));

	ASSERT_EQ(0, write_str(SYSFS_DIR "/run", "1"));

	ASSERT_EQ(0, read_str(SYSFS_DIR "/state", val, sizeof(val)));
	ASSERT_STREQ("done", val);
	ASSERT_EQ(0, read_ull(SYSFS_DIR "/seq", &seq_after));
	ASSERT_EQ(seq + 1, seq_after);

	ASSERT_EQ(0, report(name, "status", status, sizeof(status)));
	ASSERT_EQ(0, report(name, "reason", reason, sizeof(reason)));
	if (!strcmp(status, "unsupported"))
		SKIP(return, "%s unsupported: %s", name, reason);
	for (i = 0; i < ARRAY_SIZE(figures); i++)
		ASSERT_EQ(0, report(name, figures[i], val, sizeof(val)));

	/* Functional result: the path worked and left no trace. */
	ASSERT_STREQ("pass", status) {
		TH_LOG("%s: %s", name, reason);
	}
	snprintf(path, sizeof(path), SYSFS_DIR "/%s/counter_delta", name);
	ASSERT_EQ(0, read_str(path, val, sizeof(val)));
	ASSERT_STREQ("0", val);

	/*
	 * Every sample the parameters asked for was taken, or the module's
	 * time budget for one benchmark cut them short and said so.
	 */
	ASSERT_EQ(0, read_ull(PARAMS_DIR "/samples", &want));
	snprintf(path, sizeof(path), SYSFS_DIR "/%s/samples", name);
	ASSERT_EQ(0, read_ull(path, &got));
	ASSERT_LT(0ULL, got);
	ASSERT_LE(got, want);
	if (got < want)
		ASSERT_NE(NULL, strstr(reason, "time budget")) {
			TH_LOG("%s: %llu of %llu samples: %s", name, got, want,
			       reason);
		}
	ASSERT_EQ(0, read_ull(PARAMS_DIR "/iterations", &want));
	snprintf(path, sizeof(path), SYSFS_DIR "/%s/ops_per_sample", name);
	ASSERT_EQ(0, read_ull(path, &got));
	ASSERT_EQ(want, got);

	/* The figures are ordered and the op took time. */
	snprintf(path, sizeof(path), SYSFS_DIR "/%s/ns_per_op_min", name);
	ASSERT_EQ(0, read_str(path, val, sizeof(val)));
	ASSERT_EQ(0, parse_milli(val, &lo));
	snprintf(path, sizeof(path), SYSFS_DIR "/%s/ns_per_op_median", name);
	ASSERT_EQ(0, read_str(path, val, sizeof(val)));
	ASSERT_EQ(0, parse_milli(val, &mid));
	snprintf(path, sizeof(path), SYSFS_DIR "/%s/ns_per_op_max", name);
	ASSERT_EQ(0, read_str(path, val, sizeof(val)));
	ASSERT_EQ(0, parse_milli(val, &hi));
	ASSERT_LT(0ULL, lo);
	ASSERT_LE(lo, mid);
	ASSERT_LE(mid, hi);

	/* The results did not change under us while we read them. */
	ASSERT_EQ(0, read_ull(SYSFS_DIR "/seq", &seq_after));
	ASSERT_EQ(seq + 1, seq_after);

	/* Performance sanity: the median under its ceiling. */
	ASSERT_EQ(0, find_ceiling(name, &ceiling, why, sizeof(why))) {
		TH_LOG("%s", why);
	}
	ksft_print_msg("%s.ceiling_ns=%llu.%03llu\n", name, ceiling / 1000,
		       ceiling % 1000);
	EXPECT_LE(mid, ceiling) {
		TH_LOG("%s: median %llu.%03llu ns/op is over the ceiling of %llu.%03llu ns/op",
		       name, mid / 1000, mid % 1000, ceiling / 1000,
		       ceiling % 1000);
	}
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
