/*
 * common/atomic_file: replacement is all or nothing, links are followed,
 * non-regular targets are written through, an abort or a signal leaves no
 * temporary file, and the temporary file never takes stdout's descriptor.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "testlib.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cgs-atomic-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *in_dir(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The whole file as a string ("" for an empty or missing file). */
static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Names in dir that start with '.', other than . and ..: temporary files. */
static int temp_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") &&
		    strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int write_file(const char *path, const char *text,
		      struct cgs_error *err)
{
	struct cgs_atomic_file f;
	int rc;

	rc = cgs_atomic_file_begin(&f, path, err);
	if (rc == 0)
		rc = cgs_atomic_file_write(&f, text, strlen(text), err);
	if (rc == 0)
		rc = cgs_atomic_file_commit(&f, err);
	return rc;
}

START_TEST(creates_and_replaces)
{
	struct cgs_error err = {0};
	struct stat st;
	mode_t old = umask(022);

	make_dir();
	ck_assert_int_eq(write_file(in_dir("m"), "first", &err), 0);
	ck_assert_str_eq(get(in_dir("m")), "first");
	ck_assert_int_eq(stat(in_dir("m"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
	/* A hard link keeps the old inode: the new bytes are a new file. */
	ck_assert_int_eq(link(in_dir("m"), in_dir("old")), 0);
	ck_assert_int_eq(write_file(in_dir("m"), "second", &err), 0);
	ck_assert_str_eq(get(in_dir("m")), "second");
	ck_assert_str_eq(get(in_dir("old")), "first");
	ck_assert_int_eq(temp_files(), 0);
	umask(old);
	remove_dir();
}
END_TEST

START_TEST(abort_changes_nothing)
{
	struct cgs_error err = {0};
	struct cgs_atomic_file f;

	make_dir();
	put(in_dir("m"), "old");
	ck_assert_int_eq(cgs_atomic_file_begin(&f, in_dir("m"), &err), 0);
	ck_assert_int_eq(cgs_atomic_file_write(&f, "new", 3, &err), 0);
	/* Written and synced, but not yet installed. */
	ck_assert_str_eq(get(in_dir("m")), "old");
	cgs_atomic_file_abort(&f);
	cgs_atomic_file_abort(&f);
	ck_assert_str_eq(get(in_dir("m")), "old");
	ck_assert_int_eq(temp_files(), 0);
	/* Committing what was aborted is refused. */
	ck_assert_int_eq(cgs_atomic_file_commit(&f, &err), CGS_E_ARG);
	remove_dir();
}
END_TEST

START_TEST(links_are_followed)
{
	struct cgs_error err = {0};
	struct stat st;
	char text[64];
	ssize_t n;

	make_dir();
	ck_assert_int_eq(mkdir(in_dir("sub"), 0755), 0);
	put(in_dir("sub/real"), "old");
	ck_assert_int_eq(symlink("sub/real", in_dir("rel")), 0);
	ck_assert_int_eq(symlink(in_dir("rel"), in_dir("abs")), 0);
	ck_assert_int_eq(write_file(in_dir("abs"), "new", &err), 0);
	ck_assert_str_eq(get(in_dir("sub/real")), "new");
	ck_assert_int_eq(lstat(in_dir("rel"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(lstat(in_dir("abs"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	/* A dangling link names the file to create. */
	ck_assert_int_eq(symlink("made", in_dir("sub/dangling")), 0);
	ck_assert_int_eq(write_file(in_dir("sub/dangling"), "made", &err), 0);
	ck_assert_str_eq(get(in_dir("sub/made")), "made");
	n = readlink(in_dir("sub/dangling"), text, sizeof(text) - 1);
	ck_assert_int_eq(n, 4);
	/* A loop is refused and left alone. */
	ck_assert_int_eq(symlink("loop", in_dir("loop")), 0);
	ck_assert_int_eq(write_file(in_dir("loop"), "x", &err), CGS_E_IO);
	ck_assert_msg(strstr(err.message, "symbolic links"), "%s", err.message);
	ck_assert_int_eq(lstat(in_dir("loop"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(temp_files(), 0);
	remove_dir();
}
END_TEST

START_TEST(directories_are_refused)
{
	struct cgs_error err = {0};

	make_dir();
	ck_assert_int_eq(mkdir(in_dir("d"), 0755), 0);
	ck_assert_int_eq(write_file(in_dir("d"), "x", &err), CGS_E_IO);
	ck_assert_msg(strstr(err.message, "directory"), "%s", err.message);
	cgs_error_clear(&err);
	ck_assert_int_eq(write_file(in_dir("new/"), "x", &err), CGS_E_IO);
	ck_assert_int_eq(access(in_dir("new"), F_OK), -1);
	cgs_error_clear(&err);
	/* A missing directory: nothing to write into. */
	ck_assert_int_eq(write_file(in_dir("none/m"), "x", &err), CGS_E_IO);
	ck_assert_msg(strstr(err.message, "No such file"), "%s", err.message);
	ck_assert_int_eq(temp_files(), 0);
	remove_dir();
}
END_TEST

START_TEST(fifo_is_written_through)
{
	struct cgs_error err = {0};
	struct stat st;
	char got[16] = "";
	int rd;

	make_dir();
	ck_assert_int_eq(mkfifo(in_dir("p"), 0644), 0);
	/* Our own reader end, so the writer's open does not wait. */
	rd = open(in_dir("p"), O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	ck_assert_int_eq(write_file(in_dir("p"), "through", &err), 0);
	ck_assert_int_eq(read(rd, got, sizeof(got) - 1), 7);
	ck_assert_str_eq(got, "through");
	close(rd);
	ck_assert_int_eq(lstat(in_dir("p"), &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(temp_files(), 0);
	remove_dir();
}
END_TEST

/*
 * A full device reports ENOSPC and stays a device.  On a node of our own
 * where mknod is allowed, so that a regression cannot replace the
 * system's /dev/full when the tests run as root.
 */
START_TEST(full_device_reports_no_space)
{
	struct cgs_error err = {0};
	const char *full = "/dev/full";
	struct stat st;

	make_dir();
	if (mknod(in_dir("full"), S_IFCHR | 0666, makedev(1, 7)) == 0)
		full = in_dir("full");
	else if (geteuid() == 0 || access(full, W_OK) != 0) {
		fprintf(stderr, "full_device_reports_no_space: skipped: no mknod "
			"here, and /dev/full is %s\n", geteuid() == 0 ?
			"the system's (root must not risk it)" : "not writable");
		remove_dir();
		return;
	}
	ck_assert_int_eq(write_file(full, "bytes", &err), CGS_E_IO);
	ck_assert_msg(strstr(err.message, strerror(ENOSPC)), "%s", err.message);
	ck_assert_int_eq(stat(full, &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(temp_files(), 0);
	remove_dir();
}
END_TEST

/* With stdout closed the temporary file must not become descriptor 1. */
START_TEST(temp_file_avoids_stdio_descriptors)
{
	struct cgs_error err = {0};
	struct cgs_atomic_file f;
	int saved = dup(STDOUT_FILENO);

	make_dir();
	ck_assert_int_ge(saved, 0);
	close(STDOUT_FILENO);
	ck_assert_int_eq(cgs_atomic_file_begin(&f, in_dir("m"), &err), 0);
	ck_assert_int_eq(cgs_atomic_file_write(&f, "m", 1, &err), 0);
	ck_assert_int_gt(f.fd, STDERR_FILENO);
	ck_assert_int_eq(write(STDOUT_FILENO, "x", 1), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(cgs_atomic_file_commit(&f, &err), 0);
	ck_assert_int_eq(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	ck_assert_str_eq(get(in_dir("m")), "m");
	remove_dir();
}
END_TEST

/* A signal between write and commit removes the temporary file. */
START_TEST(signal_removes_temp_file)
{
	int sig[] = {SIGINT, SIGTERM, SIGHUP};
	size_t i;

	make_dir();
	put(in_dir("m"), "old");
	for (i = 0; i < sizeof(sig) / sizeof(sig[0]); i++) {
		int status;
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct cgs_error err = {0};
			struct cgs_atomic_file f;

			/*
			 * The default action, whatever was inherited (under
			 * nohup SIGHUP comes ignored, and an ignored signal
			 * stays ignored: the next test)
			 */
			signal(sig[i], SIG_DFL);
			if (cgs_atomic_file_begin(&f, in_dir("m"), &err) ||
			    cgs_atomic_file_write(&f, "new", 3, &err))
				_exit(2);
			/* An anonymous file has no name before commit; a
			 * mkstemp one (CGS_NO_TMPFILE=1, test
			 * atomic_file-mkstemp) has. */
			if (temp_files() != (f.anonymous ? 0 : 1))
				_exit(3);
			raise(sig[i]);
			_exit(4);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig[i],
			      "child status %#x", status);
		ck_assert_str_eq(get(in_dir("m")), "old");
		ck_assert_int_eq(temp_files(), 0);
	}
	remove_dir();
}
END_TEST

/* A signal the process ignores (nohup) stays ignored while writing. */
START_TEST(ignored_signal_stays_ignored)
{
	int status;
	pid_t pid;

	make_dir();
	put(in_dir("m"), "old");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct cgs_error err = {0};
		struct cgs_atomic_file f;

		signal(SIGHUP, SIG_IGN);
		if (cgs_atomic_file_begin(&f, in_dir("m"), &err) ||
		    cgs_atomic_file_write(&f, "new", 3, &err))
			_exit(2);
		raise(SIGHUP);
		if (cgs_atomic_file_commit(&f, &err))
			_exit(3);
		/* and it is still ignored afterwards */
		raise(SIGHUP);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %#x", status);
	ck_assert_str_eq(get(in_dir("m")), "new");
	ck_assert_int_eq(temp_files(), 0);
	remove_dir();
}
END_TEST

/*
 * /dev/stdout when standard output is a regular file opened to append
 * (`>> log`): the bytes go through the descriptor, after what was there,
 * and the file is not replaced.
 */
START_TEST(stdout_file_is_written_through)
{
	struct cgs_error err = {0};
	struct cgs_atomic_file f;
	struct stat before, after;
	int saved = dup(STDOUT_FILENO), fd;

	make_dir();
	put(in_dir("log"), "log\n");
	ck_assert_int_ge(saved, 0);
	fflush(stdout);
	fd = open(in_dir("log"), O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	ck_assert_int_eq(stat(in_dir("log"), &before), 0);
	ck_assert_int_eq(cgs_atomic_file_begin(&f, "/dev/stdout", &err), 0);
	ck_assert_int_eq(f.stdio_fd, STDOUT_FILENO);
	ck_assert_int_eq(cgs_atomic_file_write(&f, "m", 1, &err), 0);
	ck_assert_int_eq(cgs_atomic_file_commit(&f, &err), 0);
	ck_assert_int_eq(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	ck_assert_int_eq(stat(in_dir("log"), &after), 0);
	ck_assert_uint_eq(before.st_ino, after.st_ino);
	ck_assert_str_eq(get(in_dir("log")), "log\nm");
	ck_assert_int_eq(temp_files(), 0);
	remove_dir();
}
END_TEST

/* One write per file: a second is refused and leaks nothing. */
START_TEST(second_write_is_refused)
{
	struct cgs_error err = {0};
	struct cgs_atomic_file f;

	make_dir();
	ck_assert_int_eq(cgs_atomic_file_begin(&f, in_dir("m"), &err), 0);
	ck_assert_int_eq(cgs_atomic_file_write(&f, "a", 1, &err), 0);
	ck_assert_int_eq(cgs_atomic_file_write(&f, "b", 1, &err), CGS_E_ARG);
	ck_assert_int_eq(cgs_atomic_file_commit(&f, &err), 0);
	ck_assert_str_eq(get(in_dir("m")), "a");
	ck_assert_int_eq(temp_files(), 0);
	remove_dir();
}
END_TEST

START_TEST(same_file)
{
	make_dir();
	put(in_dir("s"), "schedule");
	put(in_dir("t"), "schedule");
	ck_assert_int_eq(symlink("s", in_dir("link")), 0);
	ck_assert_int_eq(link(in_dir("s"), in_dir("hard")), 0);
	ck_assert_int_eq(cgs_atomic_file_same(in_dir("s"), in_dir("s")), 1);
	ck_assert_int_eq(cgs_atomic_file_same(in_dir("s"), in_dir("link")), 1);
	ck_assert_int_eq(cgs_atomic_file_same(in_dir("s"), in_dir("hard")), 1);
	ck_assert_int_eq(cgs_atomic_file_same(in_dir("s"), in_dir("t")), 0);
	ck_assert_int_eq(cgs_atomic_file_same(in_dir("s"), in_dir("none")), 0);
	/* A device may be input and output at once (a terminal). */
	ck_assert_int_eq(cgs_atomic_file_same("/dev/null", "/dev/null"), 0);
	remove_dir();
}
END_TEST

static Suite *atomic_file_suite(void)
{
	Suite *s = suite_create("atomic_file");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, creates_and_replaces);
	tcase_add_test(tc, abort_changes_nothing);
	tcase_add_test(tc, links_are_followed);
	tcase_add_test(tc, directories_are_refused);
	tcase_add_test(tc, fifo_is_written_through);
	tcase_add_test(tc, full_device_reports_no_space);
	tcase_add_test(tc, temp_file_avoids_stdio_descriptors);
	tcase_add_test(tc, signal_removes_temp_file);
	tcase_add_test(tc, ignored_signal_stays_ignored);
	tcase_add_test(tc, stdout_file_is_written_through);
	tcase_add_test(tc, second_write_is_refused);
	tcase_add_test(tc, same_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(atomic_file_suite());
}
