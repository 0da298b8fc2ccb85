/*
 * Atomic replacement of output files; see atomic_file.h.
 *
 * The temporary file lives in the target's directory, so the rename never
 * crosses file systems.  Where O_TMPFILE works the file has no name while
 * it is written and synced and gets one (linkat) only at commit, just
 * before the rename, so even a SIGKILL leaves nothing behind outside that
 * short step; elsewhere mkstemp names it from the start.  A target that is
 * this process's standard output or error is written through that
 * descriptor.
 */
/* O_TMPFILE is Linux's; the rest of the file is POSIX. */
#define _GNU_SOURCE
#include "common/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

/* Symbolic links followed before giving up, as the kernel's own limit. */
#define LINK_HOPS 40

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CAUGHT (sizeof(caught) / sizeof(caught[0]))

/* The file whose temporary name a signal handler must remove. */
static struct cgs_atomic_file *volatile live;
static struct sigaction saved_actions[N_CAUGHT];

static void remove_temp_and_die(int sig)
{
	struct cgs_atomic_file *f = live;

	if (f && f->named)
		unlink(f->temp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_temp_and_die;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < N_CAUGHT; i++) {
		/* A signal the caller ignores (nohup, a background job) stays
		 * ignored: the handler would kill where the caller chose not
		 * to die. */
		sigaction(caught[i], NULL, &saved_actions[i]);
		if (saved_actions[i].sa_handler != SIG_IGN)
			sigaction(caught[i], &sa, NULL);
	}
}

static void restore_signals(void)
{
	size_t i;

	for (i = 0; i < N_CAUGHT; i++)
		sigaction(caught[i], &saved_actions[i], NULL);
}

/*
 * Block (on) or restore (off) the caught signals around the steps that
 * give the temporary file a name or take it away: the handler then sees a
 * name exactly when one exists.
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
	for (i = 0; i < N_CAUGHT; i++)
		sigaddset(&set, caught[i]);
	sigprocmask(SIG_BLOCK, &set, &prev);
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
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
 * Follow the symbolic links of path into out: the file that is to be
 * replaced, which need not exist (a dangling link names the file to
 * create).  Returns 0, or -1 with errno (ELOOP, ENAMETOOLONG).
 */
static int follow_links(const char *path, char *out, size_t size)
{
	char link[CGS_ATOMIC_PATH_MAX], next[CGS_ATOMIC_PATH_MAX];
	struct stat st;
	ssize_t n;
	int hops;

	if ((size_t)snprintf(out, size, "%s", path) >= size)
		goto too_long;
	for (hops = 0; hops <= LINK_HOPS; hops++) {
		if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
			return 0;
		n = readlink(out, link, sizeof(link) - 1);
		if (n < 0)
			return -1;
		if ((size_t)n >= sizeof(link) - 1)
			goto too_long;
		link[n] = '\0';
		if (link[0] == '/') {
			if ((size_t)snprintf(next, sizeof(next), "%s", link) >=
			    sizeof(next))
				goto too_long;
		} else {
			char dir[CGS_ATOMIC_PATH_MAX];

			dir_of(out, dir, sizeof(dir));
			if ((size_t)snprintf(next, sizeof(next), "%s/%s", dir,
					     link) >= sizeof(next))
				goto too_long;
		}
		if ((size_t)snprintf(out, size, "%s", next) >= size)
			goto too_long;
	}
	errno = ELOOP;
	return -1;
too_long:
	errno = ENAMETOOLONG;
	return -1;
}

int cgs_atomic_file_same(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * STDOUT_FILENO or STDERR_FILENO when st is the file that descriptor has
 * open (/dev/stdout, /proc/self/fd/1, or the file a shell redirected it
 * to), else -1.
 */
static int stdio_of(const struct stat *st)
{
	static const int fds[] = {STDOUT_FILENO, STDERR_FILENO};
	struct stat sd;
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fstat(fds[i], &sd) == 0 && sd.st_dev == st->st_dev &&
		    sd.st_ino == st->st_ino)
			return fds[i];
	return -1;
}

int cgs_atomic_file_begin(struct cgs_atomic_file *f, const char *path,
			  struct cgs_error *err)
{
	const char *base;
	struct stat st;
	size_t len = strlen(path);
	int exists = stat(path, &st) == 0;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->stdio_fd = -1;
	f->path = path;
	if (len == 0 || path[len - 1] == '/' || (exists && S_ISDIR(st.st_mode)))
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "the output is a directory; give a file name");
	if (exists)
		f->stdio_fd = stdio_of(&st);
	if (exists && (f->stdio_fd >= 0 || !S_ISREG(st.st_mode))) {
		/* A device, FIFO or socket: written through, never replaced. */
		f->through = 1;
		if (len >= sizeof(f->target))
			return cgs_error_at(err, CGS_E_IO, path, 0, 0,
					    "the output path is too long");
		memcpy(f->target, path, len + 1);
	} else if (follow_links(path, f->target, sizeof(f->target)) != 0) {
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "cannot follow the output's symbolic links: %s",
				    strerror(errno));
	}
	dir_of(f->target, f->dir, sizeof(f->dir));
	base = strrchr(f->target, '/') ? strrchr(f->target, '/') + 1 : f->target;
	if (!f->through &&
	    (size_t)snprintf(f->temp, sizeof(f->temp), "%s/.%s.XXXXXX", f->dir,
			     base) >= sizeof(f->temp))
		return cgs_error_at(err, CGS_E_IO, path, 0, 0,
				    "the output path is too long");
	f->active = 1;
	live = f;
	catch_signals();
	return 0;
}

/*
 * A descriptor above stderr's: when the caller runs with stdout closed,
 * the temporary file must not become what printf writes to.
 */
static int above_stdio(int fd)
{
	int moved;

	if (fd < 0 || fd > STDERR_FILENO)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	if (moved < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	close(fd);
	return moved;
}

/* Write and sync buf to fd; *step names what failed. */
static int fill(int fd, const void *buf, size_t len, const char **step)
{
	*step = "write";
	if (write_all(fd, buf, len) != 0)
		return -1;
	*step = "sync";
	return fsync(fd);
}

/*
 * Give the anonymous file fd the name f->temp, whose last six characters
 * are replaced until the name is new.  linkat through /proc/self/fd needs
 * no privilege, unlike AT_EMPTY_PATH.
 */
static int link_anonymous(struct cgs_atomic_file *f)
{
	static const char set[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(f->temp);
	char proc[64];
	uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)(uintptr_t)&x;
	int tries, i;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	for (tries = 0; tries < 100; tries++) {
		for (i = 0; i < 6; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			f->temp[len - 6 + i] = set[(x >> 33) % (sizeof(set) - 1)];
		}
		if (linkat(AT_FDCWD, proc, AT_FDCWD, f->temp,
			   AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* Close and remove the temporary file, keeping errno. */
static void drop_temp(struct cgs_atomic_file *f)
{
	int saved = errno;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->named) {
		hold_signals(1);
		unlink(f->temp);
		f->named = 0;
		hold_signals(0);
	}
	errno = saved;
}

static int write_temp(struct cgs_atomic_file *f, const void *buf, size_t len,
		      struct cgs_error *err)
{
	const char *step;
	mode_t mask;

#ifdef O_TMPFILE
	/* The mode honours the umask, as for any output file. */
	f->fd = above_stdio(open(f->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC,
				 0666));
	if (f->fd >= 0) {
		char proc[64];

		if (fill(f->fd, buf, len, &step) != 0)
			goto failed;
		/* It gets its name at commit, through /proc: make sure
		 * there is one now, while a failure costs nothing. */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
		if (access(proc, F_OK) == 0) {
			f->anonymous = 1;
			return 0;
		}
		/* No /proc, say: write a named temporary file instead. */
		close(f->fd);
		f->fd = -1;
	}
#endif
	hold_signals(1);
	f->fd = mkstemp(f->temp);
	f->named = f->fd >= 0;
	hold_signals(0);
	if (f->fd < 0)
		return cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
				    "cannot create a temporary file in directory '%s': %s",
				    f->dir, strerror(errno));
	f->fd = above_stdio(f->fd);
	step = "write";
	if (f->fd < 0)
		goto failed;
	/* mkstemp makes 0600; an output is an ordinary file. */
	mask = umask(0);
	umask(mask);
	if (fchmod(f->fd, 0666 & ~mask) == 0 && fill(f->fd, buf, len, &step) == 0)
		return 0;
failed:
	drop_temp(f);
	return cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
			    "cannot %s the output: %s; any earlier file is unchanged",
			    step, strerror(errno ? errno : EIO));
}

int cgs_atomic_file_write(struct cgs_atomic_file *f, const void *buf,
			  size_t len, struct cgs_error *err)
{
	int rc;

	if (!f->active)
		return cgs_error_at(err, CGS_E_ARG, f->path, 0, 0,
				    "internal error: the output was not begun");
	if (f->fd >= 0 || f->buf)
		return cgs_error_at(err, CGS_E_ARG, f->path, 0, 0,
				    "internal error: the output was already written");
	if (f->through) {
		f->buf = buf;
		f->len = len;
		return 0;
	}
	rc = write_temp(f, buf, len, err);
	if (rc)
		cgs_atomic_file_abort(f);
	return rc;
}

static int commit_through(struct cgs_atomic_file *f, struct cgs_error *err)
{
	struct stat st;
	int fd, rc = 0;

	if (f->stdio_fd >= 0) {
		/* After what stdio holds, at the descriptor's own offset
		 * (appending when the shell opened it so). */
		fflush(f->stdio_fd == STDOUT_FILENO ? stdout : stderr);
		if (write_all(f->stdio_fd, f->buf, f->len) != 0)
			return cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
					    "cannot write the output: %s",
					    strerror(errno));
		return 0;
	}
	fd = open(f->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
				    "cannot open the output: %s", strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* Replaced by a regular file since begin: never write into it. */
		close(fd);
		return cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
				    "the output became a regular file while it was prepared; nothing was written");
	}
	if (write_all(fd, f->buf, f->len) != 0)
		rc = cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
				  "cannot write the output: %s",
				  strerror(errno));
	if (close(fd) != 0 && !rc)
		rc = cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
				  "cannot write the output: %s",
				  strerror(errno));
	return rc;
}

static int commit_temp(struct cgs_atomic_file *f, struct cgs_error *err)
{
	int fd = f->fd, dfd, saved;
	const char *step = "name the temporary file for";

	if (f->anonymous) {
		hold_signals(1);
		f->named = link_anonymous(f) == 0;
		hold_signals(0);
		if (!f->named) {
			saved = errno;
			drop_temp(f);
			return cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
					    "cannot %s the output: %s; any earlier file is unchanged",
					    step, strerror(saved ? saved : EIO));
		}
	}
	step = "close";
	f->fd = -1;
	if (close(fd) == 0) {
		step = "rename the temporary file onto";
		hold_signals(1);
		if (rename(f->temp, f->target) == 0) {
			f->named = 0;
			hold_signals(0);
			/* The rename is durable once the directory is synced. */
			dfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd < 0 || fsync(dfd) != 0) {
				saved = errno;
				if (dfd >= 0)
					close(dfd);
				return cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
						    "written, but syncing directory '%s' failed: %s",
						    f->dir, strerror(saved));
			}
			close(dfd);
			return 0;
		}
		hold_signals(0);
	}
	saved = errno;
	drop_temp(f);
	return cgs_error_at(err, CGS_E_IO, f->path, 0, 0,
			    "cannot %s the output: %s; any earlier file is unchanged",
			    step, strerror(saved ? saved : EIO));
}

int cgs_atomic_file_commit(struct cgs_atomic_file *f, struct cgs_error *err)
{
	int rc;

	if (!f->active)
		return cgs_error_at(err, CGS_E_ARG, f->path, 0, 0,
				    "internal error: the output was not begun");
	if (f->through)
		rc = commit_through(f, err);
	else if (f->fd < 0)
		rc = cgs_error_at(err, CGS_E_ARG, f->path, 0, 0,
				  "internal error: nothing was written");
	else
		rc = commit_temp(f, err);
	cgs_atomic_file_abort(f);
	return rc;
}

void cgs_atomic_file_abort(struct cgs_atomic_file *f)
{
	if (!f->active)
		return;
	drop_temp(f);
	f->active = 0;
	live = NULL;
	restore_signals();
}
