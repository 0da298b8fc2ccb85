/*
 * The manifest reader's refusals of header fields no writer produces,
 * from a golden manifest edited in place (its checksum fixed up, so each
 * check is reached), and of bad arguments and files; the writer's
 * refusals of bad arguments and its producer string.  The edits touch the
 * format-1 meta block and strings, which cgslot-manifest(5) fixes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgs_version.h"
#include "common/crc32c.h"
#include "common/error.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "manifest/format.h"
#include "manifest/manifest.h"
#include "manifest/writer.h"
#include "plan/plan.h"
#include "testlib.h"

static const char golden[] = "testdata/manifest/golden/dcp-vpp/manifest.cgslot";

/* Refuse `b` (checksum fixed first) with `code` and `needle`. */
static void expect_reject(uint8_t *b, size_t len, int code, const char *needle)
{
	struct cgs_error err = {0};
	struct cgs_manifest *m = NULL;
	int rc;

	cgs_put_le32(b + len - 4, cgs_crc32c(0, b, len - 4));
	rc = cgs_manifest_open_buffer(b, len, &m, &err);
	ck_assert_msg(rc == code, "got %s (%s), want %s for '%s'",
		      cgs_status_name(rc), err.message, cgs_status_name(code),
		      needle);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err.message, needle), "message '%s' lacks '%s'",
		      err.message, needle);
}

#define EDIT_REJECT(code, needle, ...)                                        \
	do {                                                                  \
		memcpy(c, b, len);                                            \
		__VA_ARGS__;                                                  \
		expect_reject(c, len, code, needle);                          \
	} while (0)

START_TEST(meta_fields)
{
	size_t len, meta;
	uint8_t *b = (uint8_t *)cgs_test_read(cgs_test_path(golden), &len);
	uint8_t *c = malloc(len);
	struct cgs_manifest *m = NULL;

	ck_assert_ptr_nonnull(b);
	meta = (size_t)cgs_test_section_offset(b, CGS_MF_META);
	ck_assert_uint_gt(meta, 0);
	/* Unedited, it opens. */
	memcpy(c, b, len);
	ck_assert_int_eq(cgs_manifest_open_buffer(c, len, &m, NULL), 0);
	cgs_manifest_close(&m);

	EDIT_REJECT(CGS_E_FORMAT, "meta: pp is 0",
		    cgs_put_le32(c + meta + CGS_MF_META_PP, 0));
	EDIT_REJECT(CGS_E_FORMAT, "meta: vpp is 0",
		    cgs_put_le32(c + meta + CGS_MF_META_VPP, 0));
	EDIT_REJECT(CGS_E_FORMAT, "meta: microbatch group is 0",
		    cgs_put_le32(c + meta + CGS_MF_META_GROUP, 0));
	EDIT_REJECT(CGS_E_FORMAT, "meta: max_microbatches is 0",
		    cgs_put_le32(c + meta + CGS_MF_META_MAX_MB, 0));
	EDIT_REJECT(CGS_E_FORMAT, "meta: the variant count is 0",
		    cgs_put_le32(c + meta + CGS_MF_META_VARIANTS, 0));
	EDIT_REJECT(CGS_E_FORMAT, "meta: the rank count is 0",
		    cgs_put_le32(c + meta + CGS_MF_META_RANKS, 0));
	EDIT_REJECT(CGS_E_FORMAT, "meta: alignment 0 is not a power of two",
		    cgs_put_le64(c + meta + CGS_MF_META_ALIGNMENT, 0));
	/* Chunk layer counts whose sum does not fit 32 bits. */
	EDIT_REJECT(CGS_E_FORMAT, "layers over all chunks exceed 2^32-1",
		    cgs_put_le32(c + meta + CGS_MF_META_FIXED_BYTES, 0xffffffffu));
	free(c);
	free(b);
}
END_TEST

START_TEST(strings_are_text)
{
	size_t len, meta, strs, name;
	uint8_t *b = (uint8_t *)cgs_test_read(cgs_test_path(golden), &len);
	uint8_t *c = malloc(len);

	ck_assert_ptr_nonnull(b);
	meta = (size_t)cgs_test_section_offset(b, CGS_MF_META);
	strs = (size_t)cgs_test_section_offset(b, CGS_MF_STRINGS);
	name = strs + cgs_get_le32(b + meta + CGS_MF_META_NAME);
	/* The schedule name is "golden-dcp-vpp": room for 4-byte edits. */
	ck_assert_int_eq(memcmp(b + name, "golden-dcp-vpp", 15), 0);

	EDIT_REJECT(CGS_E_FORMAT, "meta: name: string at offset 0 is not UTF-8",
		    c[name + 2] = 0x01);
	EDIT_REJECT(CGS_E_FORMAT, "not UTF-8", c[name + 2] = 0x7f);
	/* Above U+10FFFF. */
	EDIT_REJECT(CGS_E_FORMAT, "not UTF-8",
		    memcpy(c + name, "\xf4\x90\x80\x80", 4));
	/* An overlong three-byte NUL, a five-byte lead, a lone lead. */
	EDIT_REJECT(CGS_E_FORMAT, "not UTF-8",
		    memcpy(c + name, "\xe0\x80\x80", 3));
	EDIT_REJECT(CGS_E_FORMAT, "not UTF-8", c[name] = 0xf8);
	EDIT_REJECT(CGS_E_FORMAT, "not UTF-8",
		    memcpy(c + name, "\xc3\x41", 2));
	/* Valid multi-byte text is accepted. */
	memcpy(c, b, len);
	memcpy(c + name, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9);
	cgs_put_le32(c + len - 4, cgs_crc32c(0, c, len - 4));
	{
		struct cgs_manifest *m = NULL;
		struct cgs_error err = {0};

		ck_assert_msg(cgs_manifest_open_buffer(c, len, &m, &err) == 0,
			      "%s", err.message);
		ck_assert_int_eq(memcmp(cgs_manifest_info(m)->name,
					"\xc3\xa9\xe2\x82\xac", 5), 0);
		cgs_manifest_close(&m);
	}
	free(c);
	free(b);
}
END_TEST

START_TEST(arguments_and_files)
{
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	char path[] = "/tmp/cgs-reader-XXXXXX";
	int fd;

	ck_assert_int_eq(cgs_manifest_open_buffer(NULL, 8, &m, &err), CGS_E_ARG);
	ck_assert_int_eq(cgs_manifest_open_buffer("x", 1, NULL, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_manifest_open_file(NULL, &m, NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_manifest_open_file(cgs_test_path(golden), NULL,
						NULL), CGS_E_ARG);
	ck_assert_ptr_null(m);
	/* An empty file is not a manifest. */
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_open_file(path, &m, &err), CGS_E_FORMAT);
	ck_assert_ptr_null(m);
	ck_assert_str_eq(err.file, path);
	unlink(path);
	/* Nor is a directory. */
	cgs_error_clear(&err);
	ck_assert_int_ne(cgs_manifest_open_file("/", &m, &err), 0);
	ck_assert_ptr_null(m);
}
END_TEST

/*
 * Accessors take indices from callers: out of range they answer an empty
 * value (0, "", NULL, a zero struct) and never read outside the file.
 * The golden dcp-vpp manifest: ranks 0 and 1, two chunks, two variants,
 * four slots (12 saved and 8 user-grad frames per rank).
 */
START_TEST(accessors_out_of_range)
{
	struct cgs_manifest *m = NULL;
	struct cgs_error err = {0};
	struct cgs_manifest_rank_stats st;
	uint32_t v = 9, f = 9, d = 9, ri = 9, i = 9;
	unsigned width = 0;
	int32_t order[64];

	ck_assert_msg(cgs_manifest_open_file(cgs_test_path(golden), &m, &err) == 0,
		      "%s", err.message);
	ck_assert_uint_eq(cgs_manifest_layer_base(m, 2), 3);
	ck_assert_uint_eq(cgs_manifest_layer_base(m, 3), 0);
	ck_assert_uint_eq(cgs_manifest_chunk_layers(m, 2), 0);
	ck_assert_str_eq(cgs_manifest_variant_name(m, 2), "");
	ck_assert_uint_eq(cgs_manifest_variant_cp(m, 2), 0);
	ck_assert_uint_eq(cgs_manifest_rank_id(m, 2), 0);
	ck_assert_uint_eq(cgs_manifest_reachable_count(m, 2), 0);
	ck_assert_uint_eq(cgs_manifest_reachable(m, 0, 99), 0);
	ck_assert_uint_eq(cgs_manifest_order_length(m, 0, 99), 0);
	ck_assert_ptr_null(cgs_manifest_order_raw(m, 2, 0, &width));
	ck_assert_uint_eq(width, 1);
	ck_assert_int_eq(cgs_manifest_order_entry(m, 0, 0, 1u << 20), 0);
	ck_assert_int_eq(cgs_manifest_order_entry(m, 0, 0, 0), 1);
	order[0] = 77;
	cgs_manifest_order_decode(m, 2, 0, order);
	ck_assert_int_eq(order[0], 77);
	cgs_manifest_order_decode(m, 0, 0, order);
	ck_assert_int_eq(order[0], 1);
	ck_assert_uint_eq(cgs_manifest_arena_count(m, 2), 0);
	ck_assert_uint_eq(cgs_manifest_arena(m, 0, 99).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_arena(m, 2, 0).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_saved_frame(m, 2, 0).offset, 0);
	ck_assert_uint_eq(cgs_manifest_saved_frame(m, 0, 12).layer, 0);
	ck_assert_uint_eq(cgs_manifest_user_grad_frame(m, 0, 8).offset, 0);
	ck_assert_uint_eq(cgs_manifest_user_grad_frame(m, 2, 0).offset, 0);
	ck_assert_uint_eq(cgs_manifest_saved_role(m, 2, 0, 0, 0).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_saved_role(m, 0, 2, 0, 0).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_saved_role(m, 0, 0, 12, 0).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_saved_role(m, 0, 0, 0, 3).bytes, 0);
	ck_assert_uint_gt(cgs_manifest_saved_role(m, 0, 0, 0, 2).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_user_grad_layer(m, 2, 0, 0).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_user_grad_layer(m, 0, 2, 0).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_user_grad_layer(m, 0, 0, 12).bytes, 0);
	ck_assert_uint_eq(cgs_manifest_capture_count(m, 2), 0);
	ck_assert_uint_eq(cgs_manifest_capture(m, 0, 1u << 20), 0);
	ck_assert_uint_eq(cgs_manifest_capture(m, 2, 0), 0);
	st = cgs_manifest_rank_stats(m, 2);
	ck_assert_uint_eq(st.bytes, 0);
	ck_assert_uint_gt(cgs_manifest_rank_stats(m, 1).bytes, 0);
	/* Graph 2 * 12 + 2 * 5 + 1: variant 1, frame 5, backward. */
	cgs_manifest_graph_split(m, 0, 35, &v, &f, &d);
	ck_assert_uint_eq(v, 1);
	ck_assert_uint_eq(f, 5);
	ck_assert_uint_eq(d, 1);
	cgs_manifest_graph_split(m, 0, 35, NULL, NULL, NULL);
	/* Lookups that fail say what is planned. */
	ck_assert_int_eq(cgs_manifest_find_rank(m, 1, NULL, NULL), 0);
	ck_assert_int_eq(cgs_manifest_find_rank(m, 1, &ri, NULL), 0);
	ck_assert_uint_eq(ri, 1);
	ck_assert_int_eq(cgs_manifest_find_rank(m, 5, &ri, &err), CGS_E_RANK);
	ck_assert_msg(strstr(err.message, "planned ranks: 0, 1"), "%s",
		      err.message);
	ck_assert_int_eq(cgs_manifest_find_reachable(m, 0, 4, NULL, NULL), 0);
	ck_assert_int_eq(cgs_manifest_find_reachable(m, 0, 4, &i, NULL), 0);
	ck_assert_uint_eq(i, 1);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_find_reachable(m, 0, 3, &i, &err),
			 CGS_E_UNREACHABLE);
	ck_assert_msg(strstr(err.message, "3 is not reachable on rank 0; the manifest plans 2 counts from 2 to 4"),
		      "%s", err.message);
	cgs_error_clear(&err);
	ck_assert_int_eq(cgs_manifest_find_reachable(m, 0, 6, &i, &err),
			 CGS_E_UNREACHABLE);
	ck_assert_msg(strstr(err.message, "exceeds the planned maximum 4"), "%s",
		      err.message);
	cgs_manifest_close(&m);
}
END_TEST

static const char tiny_yaml[] =
	"cgslot: 1\n"
	"pipeline: {pp: 2, vpp: 1, layers_per_chunk: 1, max_microbatches: 2}\n"
	"variants:\n"
	"  - {name: a, cp: 1, bytes: {input: 256, output: 256, saved: 256, user_grad: 256}}\n";

START_TEST(writer_arguments)
{
	struct cgs_schedule *s = NULL;
	struct cgs_plan_options opt;
	struct cgs_plan *plan = NULL;
	const struct cgs_schedule *keep;
	struct cgs_error err = {0};
	void *out = NULL;
	size_t len = 0;

	ck_assert_msg(cgs_schedule_load_buffer("tiny.yaml", tiny_yaml,
					       strlen(tiny_yaml), NULL, &s,
					       &err) == 0, "%s", err.message);
	cgs_plan_options_init(&opt);
	ck_assert_msg(cgs_plan_create(s, &opt, &plan, &err) == 0, "%s",
		      err.message);
	ck_assert_int_eq(cgs_manifest_write(NULL, 0, &out, &len, NULL),
			 CGS_E_ARG);
	ck_assert_int_eq(cgs_manifest_write(plan, 0, NULL, &len, NULL),
			 CGS_E_ARG);
	ck_assert_int_eq(cgs_manifest_write(plan, 0, &out, NULL, NULL),
			 CGS_E_ARG);
	keep = plan->schedule;
	plan->schedule = NULL;
	ck_assert_int_eq(cgs_manifest_write(plan, 0, &out, &len, NULL),
			 CGS_E_ARG);
	plan->schedule = keep;
	ck_assert_ptr_null(out);
	ck_assert_int_eq(cgs_manifest_write(plan, 0, &out, &len, &err), 0);
	free(out);
	cgs_plan_destroy(&plan);
	cgs_schedule_destroy(&s);
}
END_TEST

/* CGSLOT_PRODUCER replaces the version only when it is storable text. */
START_TEST(producer_string)
{
	char long_value[CGS_MANIFEST_PRODUCER_MAX + 2];

	unsetenv("CGSLOT_PRODUCER");
	ck_assert_str_eq(cgs_manifest_producer(), CGS_VERSION_STRING);
	setenv("CGSLOT_PRODUCER", "pinned 1.0", 1);
	ck_assert_str_eq(cgs_manifest_producer(), "pinned 1.0");
	setenv("CGSLOT_PRODUCER", "", 1);
	ck_assert_str_eq(cgs_manifest_producer(), CGS_VERSION_STRING);
	setenv("CGSLOT_PRODUCER", "caf\xc3\xa9", 1);
	ck_assert_str_eq(cgs_manifest_producer(), CGS_VERSION_STRING);
	setenv("CGSLOT_PRODUCER", "tab\there", 1);
	ck_assert_str_eq(cgs_manifest_producer(), CGS_VERSION_STRING);
	memset(long_value, 'x', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = 0;
	setenv("CGSLOT_PRODUCER", long_value, 1);
	ck_assert_str_eq(cgs_manifest_producer(), CGS_VERSION_STRING);
	long_value[CGS_MANIFEST_PRODUCER_MAX] = 0;
	setenv("CGSLOT_PRODUCER", long_value, 1);
	ck_assert_str_eq(cgs_manifest_producer(), long_value);
	unsetenv("CGSLOT_PRODUCER");
}
END_TEST

static Suite *manifest_edges_suite(void)
{
	Suite *s = suite_create("manifest-edges");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, meta_fields);
	tcase_add_test(tc, strings_are_text);
	tcase_add_test(tc, arguments_and_files);
	tcase_add_test(tc, accessors_out_of_range);
	tcase_add_test(tc, writer_arguments);
	tcase_add_test(tc, producer_string);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(manifest_edges_suite());
}
