/* Shared helpers for the Check suites. */
#ifndef CGS_TESTS_TESTLIB_H
#define CGS_TESTS_TESTLIB_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Run a suite; returns the process exit status (0 when all passed). */
int cgs_test_run(Suite *suite);

/* Absolute path of a file under the source tree (static buffer). */
const char *cgs_test_path(const char *relative);

/* Read a whole file into a NUL-terminated heap buffer; NULL on failure. */
char *cgs_test_read(const char *path, size_t *len);

/*
 * The file offset of section `id` of the manifest bytes b, from its table
 * of contents (b must be a manifest that opened); 0 when it has none.
 */
uint64_t cgs_test_section_offset(const uint8_t *b, uint32_t id);

#endif
