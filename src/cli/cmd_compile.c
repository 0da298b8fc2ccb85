/*
 * cgslot compile: schedule -> plan -> manifest, written atomically.
 *
 * The bytes go to a temporary file in the target's directory, are synced,
 * and are renamed over the target; the directory is synced so the rename
 * survives a crash.  Any failure, or SIGINT/SIGTERM/SIGHUP meanwhile,
 * removes the temporary file and leaves an earlier manifest untouched.
 * Where the file system supports O_TMPFILE the file has no name while it
 * is written and synced, and gets one (linkat) just before the rename, so
 * even a SIGKILL leaves nothing behind outside that short step.
 */
/* O_TMPFILE is Linux's; the rest of the file is POSIX. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/error.h"
#include "input/schedule.h"
#include "manifest/manifest.h"
#include "manifest/writer.h"
#include "plan/plan.h"

/* The temporary file a signal handler must remove; "" when none. */
static char temp_path[4096];
static volatile sig_atomic_t temp_live;

static void remove_temp_and_die(int sig)
{
	if (temp_live)
		unlink(temp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static void catch_signals(struct sigaction *old)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_temp_and_die;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaction(caught[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction *old)
{
	size_t i;

	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaction(caught[i], &old[i], NULL);
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Give the anonymous file fd the name temp_path, whose last six characters
 * are replaced until the name is new.  linkat through /proc/self/fd needs
 * no privilege, unlike AT_EMPTY_PATH.
 */
static int link_anonymous(int fd, char *temp, size_t len)
{
	static const char set[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	char proc[64];
	uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)(uintptr_t)&x;
	int tries, i;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (tries = 0; tries < 100; tries++) {
		for (i = 0; i < 6; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			temp[len - 6 + i] = set[(x >> 33) % (sizeof(set) - 1)];
		}
		if (linkat(AT_FDCWD, proc, AT_FDCWD, temp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* The directory part of path ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == path)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

/*
 * Block (on) or restore (off) the signals whose handler removes the
 * temporary file, around the steps that give it a name: the handler then
 * sees a name exactly when one exists.
 */
static void hold_signals(int on)
{
	static sigset_t prev;
	sigset_t set;
	size_t i;

	if (!on) {
		sigprocmask(SIG_SETMASK, &prev, NULL);
		return;
	}
	sigemptyset(&set);
	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(&set, caught[i]);
	sigprocmask(SIG_BLOCK, &set, &prev);
}

/* What write_temp() failed at. */
enum temp_failure { TEMP_OK, TEMP_DIR, TEMP_FILE };

/* Write and sync buf to fd. */
static int fill(int fd, const void *buf, size_t len, const char **step)
{
	*step = "write";
	if (write_all(fd, buf, len) != 0)
		return -1;
	*step = "sync";
	return fsync(fd);
}

/*
 * Write buf, synced, to a new file of directory dir named temp_path (its
 * last six characters chosen here) and return its descriptor in *fd.  The
 * file is anonymous (O_TMPFILE) until synced and then linked where the
 * file system and /proc allow; else mkstemp makes it.  On failure *step
 * names what failed, errno why, and no file is left.
 */
static enum temp_failure write_temp(const char *dir, size_t temp_len,
				    const void *buf, size_t len, int *fd,
				    const char **step)
{
	mode_t mask;
	int saved;

#ifdef O_TMPFILE
	/* The mode honours the umask, as for any output file. */
	*fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (*fd >= 0) {
		if (fill(*fd, buf, len, step) != 0) {
			saved = errno;
			close(*fd);
			errno = saved;
			return TEMP_FILE;
		}
		*step = "name";
		hold_signals(1);
		temp_live = link_anonymous(*fd, temp_path, temp_len) == 0;
		hold_signals(0);
		if (temp_live)
			return TEMP_OK;
		/* No /proc, say: write a named temporary file instead. */
		close(*fd);
		memcpy(temp_path + temp_len - 6, "XXXXXX", 6);
	}
#else
	(void)temp_len;
#endif
	*step = "create a temporary file in";
	hold_signals(1);
	*fd = mkstemp(temp_path);
	temp_live = *fd >= 0;
	hold_signals(0);
	if (*fd < 0)
		return TEMP_DIR;
	/* mkstemp makes 0600; a manifest is an ordinary output file. */
	mask = umask(0);
	umask(mask);
	*step = "write";
	if (fchmod(*fd, 0666 & ~mask) == 0 && fill(*fd, buf, len, step) == 0)
		return TEMP_OK;
	saved = errno;
	close(*fd);
	unlink(temp_path);
	temp_live = 0;
	errno = saved;
	return TEMP_FILE;
}

int cgs_cli_write_atomic(const char *path, const void *buf, size_t len,
			 struct cgs_error *err)
{
	struct sigaction old[sizeof(caught) / sizeof(caught[0])];
	char dir[4096];
	const char *base, *step;
	enum temp_failure how;
	int fd, dfd, saved;
	size_t temp_len;

	dir_of(path, dir, sizeof(dir));
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!*base)
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "the output names a directory; give a file name");
	temp_len = (size_t)snprintf(temp_path, sizeof(temp_path),
				    "%s/.%s.XXXXXX", dir, base);
	if (temp_len >= sizeof(temp_path))
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "the output path is too long");
	catch_signals(old);
	how = write_temp(dir, temp_len, buf, len, &fd, &step);
	if (how != TEMP_OK) {
		saved = errno;
		restore_signals(old);
		if (how == TEMP_DIR)
			return cgs_error_at(err, CGS_E_IO, path, 0, 0,
					    "cannot %s directory '%s': %s", step,
					    dir, strerror(saved));
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "cannot %s the file: %s; any earlier file is unchanged",
				    step, strerror(saved ? saved : EIO));
	}
	step = "close";
	if (close(fd) == 0) {
		step = "rename the temporary file onto";
		if (rename(temp_path, path) == 0) {
			temp_live = 0;
			restore_signals(old);
			/* The rename is durable once the directory is synced. */
			dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd < 0 || fsync(dfd) != 0) {
				saved = errno;
				if (dfd >= 0)
					close(dfd);
				return cgs_error_at(err, CGS_E_IO, path, 0, 0,
						    "written, but syncing directory '%s' failed: %s",
						    dir, strerror(saved));
			}
			close(dfd);
			return 0;
		}
	}
	saved = errno;
	unlink(temp_path);
	temp_live = 0;
	restore_signals(old);
	return cgs_error_at(err, CGS_E_IO, path, 0, 0,
			    "cannot %s the file: %s; any earlier file is unchanged",
			    step, strerror(saved ? saved : EIO));
}

/* Bytes in binary units, for people. */
static const char *human(uint64_t b, char *buf, size_t size)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB",
					   "PiB", "EiB"};
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu B", (unsigned long long)b);
	else
		snprintf(buf, size, "%.2f %s", v, unit[u]);
	return buf;
}

static void print_summary(const char *schedule, const char *output,
			  const struct cgs_manifest *m, size_t len)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);
	char a[32], b[32], c[32], d[32];
	uint32_t ri, v;

	printf("compiled %s -> %s\n", schedule, output);
	printf("  manifest   %zu bytes, format %u.%u, schedule hash %016llx\n",
	       len, in->major, in->minor,
	       (unsigned long long)in->schedule_hash);
	printf("  pipeline   %s%spp %u, vpp %u, %u layers per rank, group %u, max microbatches %u\n",
	       in->name, *in->name ? ": " : "", in->pp, in->vpp,
	       in->layers_total, in->group, in->max_microbatches);
	printf("  ring       %u slots, %u saved and %u user-grad frames per rank\n",
	       in->slots, in->n_saved, in->n_user_grad);
	printf("  variants  ");
	for (v = 0; v < in->n_variants; v++)
		printf(" %s (cp %u)%s", cgs_manifest_variant_name(m, v),
		       cgs_manifest_variant_cp(m, v),
		       v + 1 < in->n_variants ? "," : "");
	printf("\n\n  %-5s %7s %7s %14s %14s %14s %14s\n", "rank", "counts",
	       "graphs", "bytes", "lower bound", "colour arenas",
	       "no sharing");
	for (ri = 0; ri < in->n_ranks; ri++) {
		struct cgs_manifest_rank_stats st = cgs_manifest_rank_stats(m, ri);

		printf("  %-5u %7u %7u %14s %14s %14s %14s\n",
		       cgs_manifest_rank_id(m, ri),
		       cgs_manifest_reachable_count(m, ri),
		       cgs_manifest_capture_count(m, ri),
		       human(st.bytes, a, sizeof(a)),
		       human(st.lower_bound_bytes, b, sizeof(b)),
		       human(st.bytes_colour_arenas, c, sizeof(c)),
		       human(st.bytes_without_sharing, d, sizeof(d)));
	}
}

static int compile(const char *schedule, const char *output,
		   const struct cgs_limits *limits, int quiet)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	struct cgs_plan *plan = NULL;
	struct cgs_plan_options opt;
	struct cgs_manifest *m = NULL;
	void *buf = NULL;
	size_t len = 0;
	int rc;

	rc = cgs_schedule_load(schedule, limits, &s, &err);
	if (rc)
		goto out;
	cgs_plan_options_init(&opt);
	cgs_cli_progress_options(&opt);
	rc = cgs_plan_create(s, &opt, &plan, &err);
	if (rc)
		goto out;
	rc = cgs_manifest_write(plan, cgs_schedule_hash(s), &buf, &len, &err);
	if (rc)
		goto out;
	/* Never install a manifest the reader would refuse. */
	rc = cgs_manifest_open_buffer(buf, len, &m, &err);
	if (rc) {
		char msg[CGS_ERROR_MESSAGE_MAX];

		snprintf(msg, sizeof(msg), "%s", err.message);
		cgs_error_clear(&err);
		cgs_error_at(&err, rc, schedule, 0, 0,
			     "internal error: the planned manifest does not validate (%s); nothing was written",
			     msg);
		goto out;
	}
	rc = cgs_cli_write_atomic(output, buf, len, &err);
	if (rc)
		goto out;
	if (!quiet)
		print_summary(schedule, output, m, len);
out:
	cgs_manifest_close(&m);
	free(buf);
	cgs_plan_destroy(&plan);
	cgs_schedule_destroy(&s);
	return rc ? cgs_cli_report(&err) : cgs_cli_finish(CGS_EXIT_OK);
}

int cgs_cmd_compile(int argc, char **argv)
{
	enum { OPT_LIMIT = 256 };
	static const struct option options[] = {
		{"output", required_argument, NULL, 'o'},
		{"limit", required_argument, NULL, OPT_LIMIT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cgs_limits limits;
	const char *output = NULL;
	int opt, rc;

	cgs_limits_init(&limits);
	optind = 1;
	while ((opt = cgs_cli_getopt(argc, argv, "o:h", options)) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case OPT_LIMIT:
			rc = cgs_cli_limit_option("compile", &limits, optarg);
			if (rc)
				return rc;
			break;
		case 'h':
			return cgs_cli_help("compile");
		default:
			return cgs_cli_usage_error("compile", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cgs_cli_usage_error("compile",
					   "expected one SCHEDULE, got %d",
					   argc - optind);
	if (!output || !*output)
		return cgs_cli_usage_error("compile",
					   "-o MANIFEST is required");
	return compile(argv[optind], output, &limits, cgs_cli_verbosity < 0);
}
