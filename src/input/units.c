#include "input/units.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	uint64_t factor;
} units[] = {
	{"B", 1},
	{"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30},
	{"TiB", 1ull << 40},
	{"KB", 1000ull}, {"MB", 1000000ull}, {"GB", 1000000000ull},
};
#define N_UNITS (sizeof(units) / sizeof(units[0]))

/* The text for a message: at most 40 bytes, control bytes as '?'. */
static void excerpt(const char *text, size_t len, char *out, size_t size)
{
	size_t i, n = len < 40 ? len : 40;

	if (n + 4 > size)
		n = size > 4 ? size - 4 : 0;
	for (i = 0; i < n; i++)
		out[i] = (unsigned char)text[i] < 0x20 ? '?' : text[i];
	if (n < len && n >= 3)
		memcpy(out + n - 3, "...", 3);
	out[n] = '\0';
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

#define FAIL(...)                                        \
	do {                                             \
		snprintf(msg, msg_size, __VA_ARGS__);    \
		return -1;                               \
	} while (0)

int cgs_size_parse(const char *text, size_t len, int need_unit,
		   uint64_t *out, char *msg, size_t msg_size)
{
	uint64_t whole = 0, frac = 0, pow10 = 1, factor = 1, q, g, result;
	size_t i = 0, int_digits = 0, frac_digits = 0, u;
	const char *unit;
	size_t unit_len;
	char shown[48];

	excerpt(text, len, shown, sizeof(shown));
	if (len && text[0] == '-')
		FAIL("'%s' is negative; sizes are positive numbers of bytes",
		     shown);
	for (; i < len && text[i] >= '0' && text[i] <= '9'; i++, int_digits++) {
		unsigned d = (unsigned)(text[i] - '0');

		if (whole > (UINT64_MAX - d) / 10)
			FAIL("'%s' exceeds 2^64-1 bytes", shown);
		whole = whole * 10 + d;
	}
	if (!int_digits)
		FAIL("'%s' is not a size; accepted: an integer number of "
		     "bytes or a number with a unit (" CGS_UNITS_ACCEPTED ")",
		     shown);
	if (i < len && text[i] == '.') {
		for (i++; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			frac_digits++;
		if (!frac_digits)
			FAIL("'%s' is not a size: digits must follow the "
			     "decimal point", shown);
	}
	unit = text + i;
	unit_len = len - i;
	if (unit_len == 0 && need_unit)
		FAIL("'%s' needs a unit; accepted: " CGS_UNITS_ACCEPTED, shown);
	if (unit_len) {
		for (u = 0; u < N_UNITS; u++)
			if (strlen(units[u].name) == unit_len &&
			    memcmp(units[u].name, unit, unit_len) == 0)
				break;
		if (u == N_UNITS) {
			char uname[48];

			excerpt(unit, unit_len, uname, sizeof(uname));
			for (u = 0; u < N_UNITS; u++)
				if (strlen(units[u].name) == unit_len &&
				    strncasecmp(units[u].name, unit, unit_len) == 0)
					FAIL("unit '%s' in '%s' is not known (did "
					     "you mean '%s'?); accepted: "
					     CGS_UNITS_ACCEPTED, uname, shown,
					     units[u].name);
			FAIL("unit '%s' in '%s' is not known; accepted: "
			     CGS_UNITS_ACCEPTED, uname, shown);
		}
		factor = units[u].factor;
	}

	/*
	 * The fraction f / 10^k, reduced to lowest terms p / q, adds whole
	 * bytes only when q divides the unit; then it adds p * (factor / q),
	 * which is below factor and cannot overflow.  Trailing zeros are
	 * dropped first so "1.50000000000000000000GiB" still parses.
	 */
	if (frac_digits) {
		const char *f = text + int_digits + 1;
		size_t k = frac_digits;

		while (k && f[k - 1] == '0')
			k--;
		if (k > 19)
			FAIL("'%s' is not a whole number of bytes", shown);
		for (i = 0; i < k; i++) {
			frac = frac * 10 + (uint64_t)(f[i] - '0');
			pow10 *= 10;
		}
	}
	g = frac ? gcd(frac, pow10) : pow10;
	q = pow10 / g;
	if (frac && factor % q != 0)
		FAIL("'%s' is not a whole number of bytes", shown);
	if (whole > UINT64_MAX / factor)
		FAIL("'%s' exceeds 2^64-1 bytes", shown);
	result = whole * factor;
	if (frac) {
		uint64_t extra = (frac / g) * (factor / q);

		if (result > UINT64_MAX - extra)
			FAIL("'%s' exceeds 2^64-1 bytes", shown);
		result += extra;
	}
	if (result == 0)
		FAIL("'%s' is zero; sizes are at least 1 byte", shown);
	*out = result;
	return 0;
}
