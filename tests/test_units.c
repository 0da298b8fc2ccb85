/* Byte sizes with units: exact decimals, overflow, zero, typos. */
#include <stdint.h>
#include <string.h>

#include "input/units.h"
#include "testlib.h"

static uint64_t ok(const char *text, int need_unit)
{
	char msg[256] = "";
	uint64_t v = 0;

	ck_assert_msg(cgs_size_parse(text, strlen(text), need_unit, &v, msg,
				     sizeof(msg)) == 0,
		      "'%s' rejected: %s", text, msg);
	return v;
}

/* Rejected, with a message containing `want`. */
static void bad(const char *text, int need_unit, const char *want)
{
	char msg[256] = "";
	uint64_t v = 12345;

	ck_assert_msg(cgs_size_parse(text, strlen(text), need_unit, &v, msg,
				     sizeof(msg)) == -1,
		      "'%s' accepted as %llu", text, (unsigned long long)v);
	ck_assert_uint_eq(v, 12345);
	ck_assert_msg(strstr(msg, want) != NULL, "'%s': message '%s' lacks '%s'",
		      text, msg, want);
}

START_TEST(units)
{
	ck_assert_uint_eq(ok("1", 0), 1);
	ck_assert_uint_eq(ok("007", 0), 7);
	ck_assert_uint_eq(ok("1B", 1), 1);
	ck_assert_uint_eq(ok("1KiB", 1), 1024);
	ck_assert_uint_eq(ok("64MiB", 1), 64ull << 20);
	ck_assert_uint_eq(ok("3GiB", 1), 3ull << 30);
	ck_assert_uint_eq(ok("2TiB", 1), 2ull << 40);
	ck_assert_uint_eq(ok("1KB", 1), 1000);
	ck_assert_uint_eq(ok("5MB", 1), 5000000);
	ck_assert_uint_eq(ok("7GB", 1), 7000000000ull);
}
END_TEST

START_TEST(decimals_are_exact)
{
	ck_assert_uint_eq(ok("1.5GiB", 1), 3ull << 29);
	ck_assert_uint_eq(ok("1.125GiB", 1), 1207959552ull);
	ck_assert_uint_eq(ok("0.5KiB", 1), 512);
	ck_assert_uint_eq(ok("1.5KB", 1), 1500);
	ck_assert_uint_eq(ok("0.001KB", 1), 1);
	ck_assert_uint_eq(ok("2.0B", 1), 2);
	ck_assert_uint_eq(ok("1.50000000000000000000000000GiB", 1), 3ull << 29);
	/* 2^-40 TiB is one byte: the finest fraction a unit allows */
	ck_assert_uint_eq(ok("0.0000000000009094947017729282379150390625TiB",
			     1), 1);
	bad("1.3B", 1, "not a whole number of bytes");
	bad("0.1KiB", 1, "not a whole number of bytes");
	bad("0.0001KB", 1, "not a whole number of bytes");
	bad("1.5", 0, "not a whole number of bytes");
	bad("1.00000000000000000001GiB", 1, "not a whole number of bytes");
	bad("1.", 1, "digits must follow");
	bad(".5GiB", 1, "is not a size");
}
END_TEST

START_TEST(bounds)
{
	ck_assert_uint_eq(ok("18446744073709551615", 0), UINT64_MAX);
	ck_assert_uint_eq(ok("18446744073709551615B", 1), UINT64_MAX);
	ck_assert_uint_eq(ok("16777215.999999046325683593750TiB", 1),
			  (16777216ull << 40) - (1ull << 20));
	bad("18446744073709551616", 0, "exceeds 2^64-1 bytes");
	bad("99999999999999999999999999", 0, "exceeds 2^64-1 bytes");
	bad("16777216TiB", 1, "exceeds 2^64-1 bytes");
	bad("18446744073.709551616GB", 1, "exceeds 2^64-1 bytes");
	bad("0", 0, "is zero");
	bad("0GiB", 1, "is zero");
	bad("0.0MiB", 1, "is zero");
	bad("-1", 0, "is negative");
	bad("-5MiB", 1, "is negative");
}
END_TEST

START_TEST(unit_typos)
{
	bad("64Mib", 1, "unit 'Mib' in '64Mib' is not known (did you mean 'MiB'?); "
		"accepted: B, KiB, MiB, GiB, TiB, KB, MB, GB");
	bad("64mb", 1, "did you mean 'MB'?");
	bad("64XB", 1, "unit 'XB' in '64XB' is not known; accepted: B, KiB");
	bad("64 MiB", 1, "unit ' MiB'");
	bad("1PiB", 1, "not known");
	bad("64", 1, "needs a unit");
	bad("", 0, "is not a size");
	bad("MiB", 1, "is not a size");
	bad("+5", 0, "is not a size");
	bad("0x10", 0, "not known");
}
END_TEST

static Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, units);
	tcase_add_test(tc, decimals_are_exact);
	tcase_add_test(tc, bounds);
	tcase_add_test(tc, unit_typos);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cgs_test_run(units_suite());
}
