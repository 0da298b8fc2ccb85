/*
 * Replay a fuzz corpus without libFuzzer: every regular file named on the
 * command line, or found (sorted, not recursively) in a directory named
 * there, is passed to LLVMFuzzerTestOneInput once.  A crash or sanitizer
 * report fails the test; so does a corpus with no files.  Shared by every
 * fuzz target.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *grown;

			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = grown;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	fclose(f);
	/* an exact-size copy, so reads past the end are caught by ASan */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, unsigned *count)
{
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i;
	int rc = 0;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "fuzz_replay: cannot open directory %s\n", dir);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **grown;

			cap = cap ? cap * 2 : 64;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown) {
				rc = -1;
				break;
			}
			names = grown;
		}
		if (!(names[n] = strdup(e->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n && !rc; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			rc = replay_file(path);
			(*count)++;
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	struct stat st;
	int i;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz_replay: no such file %s\n", argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) :
					  (count++, replay_file(argv[i])))
			return 1;
	}
	if (!count) {
		fprintf(stderr, "fuzz_replay: no inputs to replay\n");
		return 1;
	}
	printf("replayed %u inputs\n", count);
	return 0;
}
