#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>

#include "manifest/format.h"

int cgs_test_run(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const char *cgs_test_path(const char *relative)
{
	static char buf[4096];
	const char *root = getenv("CGS_SOURCE_ROOT");

	snprintf(buf, sizeof(buf), "%s/%s", root ? root : ".", relative);
	return buf;
}

char *cgs_test_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1))) {
		if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
			free(buf);
			buf = NULL;
		} else {
			buf[size] = '\0';
			if (len)
				*len = (size_t)size;
		}
	}
	fclose(f);
	return buf;
}

uint64_t cgs_test_section_offset(const uint8_t *b, uint32_t id)
{
	uint32_t n = cgs_get_le32(b + 16), i;

	for (i = 0; i < n; i++) {
		const uint8_t *e = b + CGS_MF_HEADER_BYTES +
				   (size_t)i * CGS_MF_TOC_ENTRY_BYTES;

		if (cgs_get_le32(e) == id)
			return cgs_get_le64(e + 8);
	}
	return 0;
}
