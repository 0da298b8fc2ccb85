/*
 * LD_PRELOAD helper of tests/cli_kill.sh.  With CGS_KILL_AT=fsync the
 * process kills itself (SIGKILL, which no handler sees) at its first fsync
 * of a regular file: a compile has then written its manifest's bytes and
 * not yet renamed them into place.  With CGS_NO_TMPFILE=1, open() with
 * O_TMPFILE fails with EOPNOTSUPP, as on a file system without it.
 */
/* Both open and open64 are defined here, so no LFS renaming. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static int env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && strcmp(v, value) == 0;
}

int fsync(int fd)
{
	int (*real)(int);
	void *sym = next("fsync");
	struct stat st;

	if (env_is("CGS_KILL_AT", "fsync") && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode))
		raise(SIGKILL);
	memcpy(&real, &sym, sizeof(real));
	return real(fd);
}

static int open_as(const char *name, const char *path, int flags,
		   va_list ap)
{
	int (*real)(const char *, int, ...);
	void *sym = next(name);
	mode_t mode = 0;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		mode = (mode_t)va_arg(ap, int);
	if ((flags & O_TMPFILE) == O_TMPFILE && env_is("CGS_NO_TMPFILE", "1")) {
		errno = EOPNOTSUPP;
		return -1;
	}
	memcpy(&real, &sym, sizeof(real));
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_as("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = open_as("open64", path, flags, ap);
	va_end(ap);
	return fd;
}
