/*
 * Schedule input: both syntaxes give identical models, values land where
 * the format says, errors carry the right code and position, and hostile
 * documents stop at their limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/nearest.h"
#include "input/limits.h"
#include "input/schedule.h"
#include "order/schedule_load.h"
#include "testlib.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

static struct cgs_schedule *load(const char *relative)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	int rc = cgs_schedule_load(cgs_test_path(relative), NULL, &s, &err);

	ck_assert_msg(rc == 0, "%s: %s (line %u col %u)", relative, err.message,
		      err.line, err.column);
	return s;
}

static int load_text(const char *name, const char *text,
		     const struct cgs_limits *lim, struct cgs_error *err)
{
	struct cgs_schedule *s = NULL;
	int rc = cgs_schedule_load_buffer(name, text, strlen(text), lim, &s,
					  err);

	ck_assert(rc != 0 || s != NULL);
	cgs_schedule_destroy(&s);
	ck_assert_ptr_null(s);
	return rc;
}

/* Every field of the model, the positions aside. */
static void expect_same(const struct cgs_schedule *a,
			const struct cgs_schedule *b)
{
	uint32_t i;
	size_t j;

	ck_assert((a->name == NULL) == (b->name == NULL));
	if (a->name)
		ck_assert_str_eq(a->name, b->name);
	ck_assert_uint_eq(a->pp, b->pp);
	ck_assert_uint_eq(a->vpp, b->vpp);
	for (i = 0; i < a->vpp; i++)
		ck_assert_uint_eq(a->layers[i], b->layers[i]);
	ck_assert_uint_eq(a->group, b->group);
	ck_assert_uint_eq(a->max_microbatches, b->max_microbatches);
	ck_assert_uint_eq(a->n_ranks, b->n_ranks);
	for (i = 0; i < a->n_ranks; i++)
		ck_assert_uint_eq(a->ranks[i], b->ranks[i]);
	ck_assert_uint_eq(a->slots, b->slots);
	ck_assert_uint_eq(a->alignment, b->alignment);
	ck_assert_uint_eq(a->n_variants, b->n_variants);
	for (i = 0; i < a->n_variants; i++) {
		const struct cgs_variant *x = &a->variants[i], *y = &b->variants[i];

		ck_assert_str_eq(x->name, y->name);
		ck_assert_uint_eq(x->cp, y->cp);
		ck_assert_mem_eq(&x->bytes, &y->bytes, sizeof(x->bytes));
		ck_assert_uint_eq(x->n_overrides, y->n_overrides);
		for (j = 0; j < x->n_overrides; j++) {
			const struct cgs_override *o = &x->overrides[j];
			const struct cgs_override *p = &y->overrides[j];

			ck_assert_int_eq(o->rank, p->rank);
			ck_assert_int_eq(o->chunk, p->chunk);
			ck_assert_int_eq(o->layer, p->layer);
			ck_assert_uint_eq(o->mask, p->mask);
			ck_assert_mem_eq(&o->bytes, &p->bytes, sizeof(o->bytes));
		}
	}
	ck_assert_uint_eq(a->n_orders, b->n_orders);
	ck_assert_uint_eq(cgs_schedule_hash(a), cgs_schedule_hash(b));
}

static void expect_pair(const char *yaml, const char *json)
{
	struct cgs_schedule *a = load(yaml), *b = load(json);

	expect_same(a, b);
	cgs_schedule_destroy(&a);
	cgs_schedule_destroy(&b);
}

START_TEST(yaml_and_json_agree)
{
	static const char *const cases[] = {
		"minimal", "layers-overrides", "explicit-orders", "yaml-features",
	};
	char y[128], j[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(y, sizeof(y), "testdata/valid/%s/schedule.yaml", cases[i]);
		snprintf(j, sizeof(j), "testdata/valid/%s/schedule.json", cases[i]);
		expect_pair(y, j);
	}
	expect_pair("testdata/examples/qwen-pp4-vpp2-dcp.yaml",
		    "testdata/valid/qwen-pp4-vpp2-dcp/schedule.json");
}
END_TEST

/* Explicit orders compare entry by entry (file order is kept). */
START_TEST(orders_agree)
{
	struct cgs_schedule *a = load("testdata/valid/explicit-orders/schedule.yaml");
	struct cgs_schedule *b = load("testdata/valid/explicit-orders/schedule.json");

	ck_assert_uint_eq(a->n_orders, 2);
	/* the YAML lists N = 4 first, the JSON N = 2 first */
	ck_assert_uint_eq(a->orders[0].microbatches, b->orders[1].microbatches);
	ck_assert_uint_eq(a->orders[0].n_entries, 16);
	ck_assert_uint_eq(a->orders[0].n_entries, b->orders[1].n_entries);
	ck_assert_mem_eq(a->orders[0].entries, b->orders[1].entries,
			 16 * sizeof(int32_t));
	ck_assert_int_eq(a->orders[0].entries[5], -2);
	ck_assert_uint_eq(a->orders[1].n_entries, 8);
	ck_assert_uint_eq(a->orders[0].pos.line, 15);
	ck_assert_uint_eq(a->orders[0].pos.column, 5);
	cgs_schedule_destroy(&a);
	cgs_schedule_destroy(&b);
}
END_TEST

START_TEST(defaults)
{
	struct cgs_schedule *s = load("testdata/valid/minimal/schedule.yaml");

	ck_assert_ptr_null(s->name);
	ck_assert_uint_eq(s->pp, 1);
	ck_assert_uint_eq(s->vpp, 1);
	ck_assert_uint_eq(s->group, 1);  /* defaults to pp */
	ck_assert_uint_eq(s->n_ranks, 1);
	ck_assert_uint_eq(s->ranks[0], 0);
	ck_assert_uint_eq(s->slots, 0);
	ck_assert_uint_eq(s->alignment, 256);
	ck_assert_uint_eq(s->n_orders, 0);
	ck_assert_uint_eq(cgs_schedule_layers_total(s), 2);
	ck_assert_str_eq(s->variants[0].name, "cp1");
	ck_assert_uint_eq(s->variants[0].bytes.role[CGS_ROLE_SAVED], 4096);
	cgs_schedule_destroy(&s);
	cgs_schedule_destroy(&s);  /* NULL is fine */
}
END_TEST

START_TEST(values_and_overrides)
{
	struct cgs_schedule *s = load("testdata/valid/layers-overrides/schedule.yaml");

	ck_assert_str_eq(s->name, "uneven-chunks");
	ck_assert_uint_eq(s->vpp, 3);
	ck_assert_uint_eq(s->layers[1], 3);
	ck_assert_uint_eq(cgs_schedule_layers_total(s), 6);
	ck_assert_uint_eq(s->group, 2);
	ck_assert_uint_eq(s->n_ranks, 2);
	ck_assert_uint_eq(s->ranks[0], 1);  /* sorted */
	ck_assert_uint_eq(s->ranks[1], 3);
	ck_assert_uint_eq(s->slots, 12);
	ck_assert_uint_eq(s->alignment, 4096);
	/* variants are ordered by CP size: the canonical one first */
	ck_assert_str_eq(s->variants[0].name, "short");
	ck_assert_uint_eq(s->variants[0].cp, 1);
	ck_assert_str_eq(s->variants[1].name, "long");
	ck_assert_uint_eq(s->variants[0].bytes.role[CGS_ROLE_INPUT], 64000);
	ck_assert_uint_eq(s->variants[0].bytes.role[CGS_ROLE_SAVED],
			  3 * MiB / 2);
	ck_assert_uint_eq(s->variants[1].bytes.role[CGS_ROLE_INPUT], GiB / 2);
	ck_assert_uint_eq(s->variants[1].bytes.role[CGS_ROLE_USER_GRAD],
			  3000000000ull);
	/* overrides: later entries win, unset fields match everything */
	ck_assert_uint_eq(cgs_schedule_bytes(s, 1, 3, 0, 0, CGS_ROLE_SAVED),
			  2 * GiB);
	ck_assert_uint_eq(cgs_schedule_bytes(s, 1, 3, 1, 2, CGS_ROLE_USER_GRAD),
			  1500000000ull);
	ck_assert_uint_eq(cgs_schedule_bytes(s, 1, 3, 0, 1, CGS_ROLE_USER_GRAD),
			  3000000000ull);
	ck_assert_uint_eq(cgs_schedule_bytes(s, 1, 1, 2, 0, CGS_ROLE_INPUT),
			  1ull << 40);
	ck_assert_uint_eq(cgs_schedule_bytes(s, 1, 1, 2, 0, CGS_ROLE_OUTPUT), 7);
	ck_assert_uint_eq(cgs_schedule_bytes(s, 1, 3, 2, 0, CGS_ROLE_INPUT),
			  GiB / 2);
	ck_assert_uint_eq(cgs_schedule_bytes(s, 0, 1, 1, 2, CGS_ROLE_SAVED),
			  3 * MiB);
	ck_assert_uint_eq(cgs_schedule_bytes(s, 0, 1, 1, 1, CGS_ROLE_SAVED),
			  3 * MiB / 2);
	ck_assert_int_eq(s->variants[1].overrides[2].rank, 1);
	ck_assert_int_eq(s->variants[1].overrides[0].rank, -1);
	ck_assert_uint_eq(s->variants[1].overrides[2].mask,
			  (1u << CGS_ROLE_INPUT) | (1u << CGS_ROLE_OUTPUT));
	cgs_schedule_destroy(&s);
}
END_TEST

static const char base_yaml[] =
	"cgslot: 1\n"
	"pipeline: {pp: 2, layers_per_chunk: 2, max_microbatches: 4}\n"
	"variants:\n"
	"  - {name: a, cp: 1, bytes: {input: 1, output: 1, saved: 1, "
	"user_grad: 1}}\n";

static uint64_t hash_of(const char *text)
{
	struct cgs_error err = {0};
	struct cgs_schedule *s = NULL;
	uint64_t h;

	ck_assert_msg(cgs_schedule_load_buffer("h.yaml", text, strlen(text),
					       NULL, &s, &err) == 0,
		      "%s", err.message);
	h = cgs_schedule_hash(s);
	cgs_schedule_destroy(&s);
	return h;
}

START_TEST(hash_tracks_the_model)
{
	uint64_t h = hash_of(base_yaml);
	char buf[512];

	/* units, comments and the schedule's name change nothing */
	ck_assert_uint_eq(h, hash_of(
		"# comment\ncgslot: 1\nname: other\n"
		"pipeline: {max_microbatches: 4, layers_per_chunk: 2, pp: 2, "
		"microbatch_group: 2, ranks: [1, 0]}\n"
		"alignment: 256B\n"
		"variants:\n"
		"  - {cp: 1, name: a, bytes: {user_grad: 1B, input: 1, "
		"output: 1, saved: 1}}\n"));
	/* any value that shapes a plan changes it */
	snprintf(buf, sizeof(buf), "%s", base_yaml);
	*strstr(buf, "saved: 1") = '\0';
	strcat(buf, "saved: 2, user_grad: 1}}\n");
	ck_assert_uint_ne(h, hash_of(buf));
	snprintf(buf, sizeof(buf), "%salignment: 512\n", base_yaml);
	ck_assert_uint_ne(h, hash_of(buf));
	snprintf(buf, sizeof(buf), "%s", base_yaml);
	memcpy(strstr(buf, "max_microbatches: 4"), "max_microbatches: 5", 19);
	ck_assert_uint_ne(h, hash_of(buf));
	snprintf(buf, sizeof(buf), "%s", base_yaml);
	memcpy(strstr(buf, "name: a"), "name: b", 7);
	ck_assert_uint_ne(h, hash_of(buf));

	/* explicit orders count, whatever their order in the file */
	snprintf(buf, sizeof(buf), "%sorders:\n"
		 "  - {rank: 0, microbatches: 2, order: [1, 1, -1, -1]}\n"
		 "  - {rank: 0, microbatches: 1, order: [1, -1]}\n", base_yaml);
	h = hash_of(buf);
	snprintf(buf, sizeof(buf), "%sorders:\n"
		 "  - {rank: 0, microbatches: 1, order: [1, -1]}\n"
		 "  - {rank: 0, microbatches: 2, order: [1, 1, -1, -1]}\n", base_yaml);
	ck_assert_uint_eq(h, hash_of(buf));
	snprintf(buf, sizeof(buf), "%sorders:\n"
		 "  - {rank: 0, microbatches: 1, order: [1, -1]}\n"
		 "  - {rank: 0, microbatches: 2, order: [1, -1, 1, -1]}\n", base_yaml);
	ck_assert_uint_ne(h, hash_of(buf));
}
END_TEST

/* The same mistake gives the same position in YAML and JSON. */
/*
 * YAML 1.2's core schema: 0x1F and 0o17 are integers, the same schedule
 * as its decimal spelling (cgslot(1) promises that schema).  0X1F, 0o8
 * and a bare 0x are strings.
 */
START_TEST(core_schema_integers)
{
	static const char prefixed[] =
		"cgslot: 0x1\n"
		"pipeline: {pp: 0x2, layers_per_chunk: 0o2, max_microbatches: 0x04}\n"
		"variants:\n"
		"  - {name: a, cp: 0o1, bytes: {input: 0x1, output: 0o1, saved: 0x1, "
		"user_grad: 0x0000000000000000000000000000000000000001}}\n";
	static const char *const strings[] = {"0X2", "0o8", "0x", "0xg", "-0x2"};
	char buf[512];
	size_t i;

	ck_assert_uint_eq(hash_of(prefixed), hash_of(base_yaml));
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		struct cgs_error err = {0};

		snprintf(buf, sizeof(buf),
			 "cgslot: 1\npipeline: {pp: %s, layers_per_chunk: 2, "
			 "max_microbatches: 4}\n", strings[i]);
		ck_assert_int_eq(load_text("c.yaml", buf, NULL, &err),
				 CGS_E_INVALID);
		ck_assert_msg(strstr(err.message, "got a string"), "%s: %s",
			      strings[i], err.message);
	}
	/* Past 2^64-1 in hex is still a number, refused as too large. */
	{
		struct cgs_error err = {0};

		snprintf(buf, sizeof(buf),
			 "cgslot: 1\npipeline: {pp: 2, layers_per_chunk: 2, "
			 "max_microbatches: 0x10000000000000000}\n");
		ck_assert_int_eq(load_text("c.yaml", buf, NULL, &err),
				 CGS_E_LIMIT);
		ck_assert_msg(strstr(err.message, "18446744073709551616"), "%s",
			      err.message);
	}
}
END_TEST

/* The "did you mean" distance, also past the 15 characters of old. */
START_TEST(nearest_word)
{
	static const char *const keys[] = {"pp", "vpp", "microbatch_group",
					   "max_microbatches", "alignment", NULL};

	ck_assert_uint_eq(cgs_edit_distance("alignmnet", 9, "alignment"), 1);
	ck_assert_uint_eq(cgs_edit_distance("max_microbatchs", 15,
					    "max_microbatches"), 1);
	ck_assert_uint_eq(cgs_edit_distance("", 0, "abc"), 3);
	ck_assert_uint_eq(cgs_edit_distance("kitten", 6, "sitting"), 3);
	ck_assert_str_eq(cgs_nearest("alignmnet", 9, keys, 2), "alignment");
	ck_assert_str_eq(cgs_nearest("microbatch_groups", 17, keys, 2),
			 "microbatch_group");
	ck_assert_str_eq(cgs_nearest("ppp", 3, keys, 1), "pp");
	ck_assert_ptr_null(cgs_nearest("colour", 6, keys, 2));
}
END_TEST

START_TEST(positions_agree)
{
	struct cgs_error ye = {0}, je = {0};

	ck_assert_int_eq(load_text("p.yaml",
		"cgslot: 1\npipeline:\n  pp: 2\n  vpp: 0\n", NULL, &ye),
		CGS_E_INVALID);
	ck_assert_int_eq(load_text("p.json",
		"{\"cgslot\": 1,\n\"pipeline\": {\n  \"pp\": 2,\n  \"vpp\": 0}}",
		NULL, &je), CGS_E_INVALID);
	ck_assert_uint_eq(ye.line, 4);
	ck_assert_uint_eq(ye.column, 8);
	ck_assert_uint_eq(je.line, 4);
	ck_assert_uint_eq(je.column, 10);
	ck_assert_str_eq(ye.message, je.message);
	ck_assert_str_eq(je.file, "p.json");
	/* columns count characters, not bytes */
	memset(&je, 0, sizeof(je));
	ck_assert_int_eq(load_text("u.json",
		"{\"cgslot\": 1, \"name\": \"\xc3\xa9\xc3\xa9\", \"x\": 1}",
		NULL, &je), CGS_E_INVALID);
	ck_assert_uint_eq(je.line, 1);
	ck_assert_uint_eq(je.column, 29);
	ck_assert_ptr_nonnull(strstr(je.message, "unknown key 'x'"));
}
END_TEST

START_TEST(error_codes)
{
	struct cgs_error err = {0};

	ck_assert_int_eq(load_text("d.yaml", "cgslot: 1\ncgslot: 1\n", NULL,
				   &err), CGS_E_SYNTAX);
	ck_assert_uint_eq(err.line, 2);
	ck_assert_ptr_nonnull(strstr(err.message, "duplicate key 'cgslot'"));
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_text("d.json", "{\"a\": 1,\n \"a\": 2}", NULL,
				   &err), CGS_E_SYNTAX);
	ck_assert_uint_eq(err.line, 2);
	ck_assert_uint_eq(err.column, 2);
	ck_assert_int_eq(load_text("e.yaml", "", NULL, NULL), CGS_E_SYNTAX);
	ck_assert_int_eq(load_text("e.yaml", "# nothing\n", NULL, NULL),
			 CGS_E_SYNTAX);
	ck_assert_int_eq(load_text("e.json", "  \n", NULL, NULL), CGS_E_SYNTAX);
	ck_assert_int_eq(load_text("t.yaml", "[1, 2]\n", NULL, NULL),
			 CGS_E_INVALID);
	ck_assert_int_eq(load_text("x", "{\"cgslot\": 2}", NULL, NULL),
			 CGS_E_INVALID);  /* sniffed as JSON */
	ck_assert_int_eq(load_text("bad.yaml", "a: \xff\n", NULL, NULL),
			 CGS_E_SYNTAX);
	ck_assert_int_eq(cgs_schedule_load("/nonexistent/x.yaml", NULL,
					   &(struct cgs_schedule *){NULL}, NULL),
			 CGS_E_IO);
}
END_TEST

START_TEST(order_errors)
{
	char buf[1024];
	struct cgs_error err = {0};

	snprintf(buf, sizeof(buf),
		 "%sorders:\n  - {rank: 0, microbatches: 2, order: [1, -1, -1, 1]}\n",
		 base_yaml);
	ck_assert_int_eq(load_text("o.yaml", buf, NULL, &err), CGS_E_ORDER);
	ck_assert_uint_eq(err.line, 6);
	ck_assert_uint_eq(err.column, 47);  /* the third entry */
	ck_assert_ptr_nonnull(strstr(err.message, "before its forward"));
}
END_TEST

/* A billion-laughs document stops at the node budget, quickly. */
START_TEST(alias_bomb)
{
	struct cgs_error err = {0};
	char bomb[2048];
	size_t o = 0;
	int i;

	o += (size_t)snprintf(bomb + o, sizeof(bomb) - o,
			      "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (i = 1; i < 20; i++)
		o += (size_t)snprintf(bomb + o, sizeof(bomb) - o,
				      "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, "
				      "*a%d, *a%d, *a%d, *a%d, *a%d]\n",
				      i, i, i - 1, i - 1, i - 1, i - 1, i - 1,
				      i - 1, i - 1, i - 1, i - 1, i - 1);
	ck_assert_int_eq(load_text("bomb.yaml", bomb, NULL, &err), CGS_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.message, "--limit nodes=N"));
	ck_assert_uint_gt(err.line, 1);
}
END_TEST

START_TEST(limits)
{
	struct cgs_limits lim;
	struct cgs_error err = {0};
	char deep[4096];
	int i;

	cgs_limits_init(&lim);
	ck_assert_uint_eq(lim.microbatches, 1u << 20);
	ck_assert_uint_eq(lim.file_bytes, 64u << 20);
	ck_assert_int_eq(cgs_limits_set(&lim, "microbatches=8", &err), 0);
	ck_assert_uint_eq(lim.microbatches, 8);
	ck_assert_int_eq(cgs_limits_set(&lim, "file_bytes=1KiB", NULL), 0);
	ck_assert_uint_eq(lim.file_bytes, 1024);
	ck_assert_int_eq(cgs_limits_set(&lim, "micro=8", &err), CGS_E_ARG);
	ck_assert_ptr_nonnull(strstr(err.message, "unknown limit 'micro'"));
	ck_assert_int_eq(cgs_limits_set(&lim, "depth", NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_limits_set(&lim, "depth=0", NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_limits_set(&lim, "depth=100000", NULL), CGS_E_ARG);
	ck_assert_int_eq(cgs_limits_set(&lim, "pp=-1", NULL), CGS_E_ARG);
	/* Count limits speak of counts, not of bytes. */
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cgs_limits_set(&lim, "pp=1.5", &err), CGS_E_ARG);
	ck_assert_str_eq(err.message, "limit pp=1.5: a count must be a whole "
			 "number; accepted: 1..4294967295");
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cgs_limits_set(&lim, "pp=0", &err), CGS_E_ARG);
	ck_assert_str_eq(err.message,
			 "limit pp=0 is out of range; accepted: 1..4294967295");
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cgs_limits_set(&lim, "frames=64KiB", &err), CGS_E_ARG);
	ck_assert_ptr_null(strstr(err.message, "byte"));
	ck_assert_int_eq(cgs_limits_set(&lim, "frames=65536", NULL), 0);
	ck_assert_uint_eq(lim.frames, 65536);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cgs_limits_set(&lim, "file_bytes=0", &err), CGS_E_ARG);
	ck_assert_ptr_nonnull(strstr(err.message, "at least 1 byte"));

	/* a raised or lowered limit changes what loads */
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_text("l.yaml", base_yaml, &lim, &err), 0);
	ck_assert_int_eq(cgs_limits_set(&lim, "microbatches=3", NULL), 0);
	ck_assert_int_eq(load_text("l.yaml", base_yaml, &lim, &err),
			 CGS_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.message,
				     "exceeds the microbatches limit of 3"));
	cgs_limits_init(&lim);
	lim.file_bytes = 10;
	ck_assert_int_eq(load_text("l.yaml", base_yaml, &lim, NULL),
			 CGS_E_LIMIT);

	/* nesting past the depth limit, in both syntaxes */
	cgs_limits_init(&lim);
	for (i = 0; i < 100; i++)
		deep[i] = '[';
	deep[i] = '\0';
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_text("deep.json", deep, &lim, &err), CGS_E_LIMIT);
	ck_assert_uint_eq(err.column, 65);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_text("deep.yaml", deep, &lim, &err), CGS_E_LIMIT);
	ck_assert_uint_eq(err.column, 65);
	lim.depth = 200;
	ck_assert_int_eq(load_text("deep.yaml", deep, &lim, NULL), CGS_E_SYNTAX);
}
END_TEST

static Suite *input_suite(void)
{
	Suite *s = suite_create("input");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, yaml_and_json_agree);
	tcase_add_test(tc, orders_agree);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, values_and_overrides);
	tcase_add_test(tc, hash_tracks_the_model);
	tcase_add_test(tc, positions_agree);
	tcase_add_test(tc, core_schema_integers);
	tcase_add_test(tc, nearest_word);
	tcase_add_test(tc, error_codes);
	tcase_add_test(tc, order_errors);
	tcase_add_test(tc, alias_bomb);
	tcase_add_test(tc, limits);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(input_suite());
}
