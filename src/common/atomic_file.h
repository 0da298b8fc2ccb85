/*
 * Writing an output file so that a reader sees the old bytes or the new,
 * never a mixture, and a failure or an interruption changes nothing.
 *
 * A regular target (or a path that does not exist yet) gets a temporary
 * file in its directory, anonymous (O_TMPFILE) where the file system
 * allows, else named ".NAME.XXXXXX"; it is written and synced, and only
 * cgs_atomic_file_commit() names it and renames it over the target, then
 * syncs the directory.  A symbolic link is followed and the file it
 * points to is the one replaced; the link stays.  A target that is not a
 * regular file (a character device such as /dev/null, a FIFO, a terminal,
 * /dev/stdout on a pipe) is never replaced: the bytes are written through
 * it at commit, and write errors are reported.  Neither is the file this
 * process has open as standard output or error, whatever it is (also a
 * regular file the shell redirected it to, reached as /dev/stdout): the
 * bytes go through that descriptor, after what stdio buffered, appending
 * where the shell opened it to append; stdio_fd tells the caller, which
 * must then print nothing else there.
 *
 * Between begin and commit/abort, SIGINT, SIGTERM and SIGHUP remove the
 * temporary file and then take their default action; a signal the
 * process ignores stays ignored.  One file at a time
 * per process (the handler knows a single temporary name).
 *
 *	struct cgs_atomic_file f;
 *	if (cgs_atomic_file_begin(&f, path, &err) ||
 *	    cgs_atomic_file_write(&f, buf, len, &err))
 *		return ...;                  // nothing changed
 *	... anything that may still fail: cgs_atomic_file_abort(&f) ...
 *	return cgs_atomic_file_commit(&f, &err);
 */
#ifndef CGS_COMMON_ATOMIC_FILE_H
#define CGS_COMMON_ATOMIC_FILE_H

#include <stddef.h>

#include "cgslot/error.h"

#define CGS_ATOMIC_PATH_MAX 4096

struct cgs_atomic_file {
	char target[CGS_ATOMIC_PATH_MAX]; /* the file replaced (links followed) */
	char dir[CGS_ATOMIC_PATH_MAX];    /* its directory */
	char temp[CGS_ATOMIC_PATH_MAX];   /* the temporary name, once named */
	const char *path;                 /* as the caller gave it, for messages */
	int through;      /* 1: not replaced, written through at commit */
	int stdio_fd;     /* through standard output (1) or error (2); else -1 */
	int fd;           /* the temporary file, -1 when none is open */
	int anonymous;    /* fd is an O_TMPFILE file, named at commit */
	int named;        /* the temporary file has a name on disk */
	const void *buf;  /* through: the bytes to write at commit */
	size_t len;
	int active;       /* between begin and commit/abort */
};

/*
 * Decide how path will be written and install the signal handlers.
 * Refuses (CGS_E_IO) a directory, a path ending in '/', a path too long
 * and a chain of symbolic links that does not end.  Nothing is created.
 */
int cgs_atomic_file_begin(struct cgs_atomic_file *f, const char *path,
			  struct cgs_error *err);

/*
 * Write len bytes.  A regular target: into the temporary file, synced;
 * the target is unchanged.  A non-regular target: buf is only kept (it
 * must stay valid until commit) and written at commit.  On failure the
 * file is aborted (nothing left behind) and CGS_E_IO returned.  Once per
 * file: a second call is refused (CGS_E_ARG).
 */
int cgs_atomic_file_write(struct cgs_atomic_file *f, const void *buf,
			  size_t len, struct cgs_error *err);

/*
 * Install the bytes: rename the temporary file over the target and sync
 * the directory, or write through a non-regular target.  Returns 0 or
 * CGS_E_IO; after a failed rename the target is unchanged.  Ends the
 * file's life either way.
 */
int cgs_atomic_file_commit(struct cgs_atomic_file *f, struct cgs_error *err);

/* Remove the temporary file and restore the signal handlers; idempotent. */
void cgs_atomic_file_abort(struct cgs_atomic_file *f);

/*
 * 1 when both paths name one existing regular file (same device and
 * inode, links followed), else 0: an output that would overwrite an input.
 * (A terminal or a pipe may be both /dev/stdin and /dev/stdout.)
 */
int cgs_atomic_file_same(const char *a, const char *b);

#endif
