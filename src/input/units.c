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

#define FAIL(...)                                        \
	do {                                             \
		snprintf(msg, msg_size, __VA_ARGS__);    \
		return -1;                               \
	} while (0)

/* The longest digit string accepted; no sane size comes near it. */
#define MAX_DIGITS 128

int cgs_size_parse(const char *text, size_t len, int need_unit,
		   uint64_t *out, char *msg, size_t msg_size)
{
	unsigned char digits[MAX_DIGITS + 16];
	size_t i = 0, n = 0, int_digits = 0, frac_digits = 0, u, k;
	uint64_t factor = 1, carry, result = 0;
	const char *unit;
	size_t unit_len;
	char shown[48];

	excerpt(text, len, shown, sizeof(shown));
	if (len && text[0] == '-')
		FAIL("'%s' is negative; sizes are positive numbers of bytes",
		     shown);
	for (; i < len && text[i] >= '0' && text[i] <= '9'; i++)
		int_digits++;
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
	 * Exact decimal arithmetic: the digits without the point, times the
	 * unit, must end in as many zeros as there were fraction digits;
	 * what is left is the size.  Leading zeros of the whole part and
	 * trailing zeros of the fraction are dropped first.
	 */
	k = frac_digits;
	while (k && text[int_digits + k] == '0')
		k--;
	for (i = 0; i < int_digits + (k ? k + 1 : 0); i++) {
		if (text[i] == '.' || (n == 0 && text[i] == '0' && i < int_digits))
			continue;
		if (n == MAX_DIGITS)
			FAIL("'%s' has too many digits to be a size", shown);
		digits[n++] = (unsigned char)(text[i] - '0');
	}
	/* multiply in place, least significant digit last */
	carry = 0;
	for (i = n; i > 0; i--) {
		uint64_t d = digits[i - 1] * factor + carry;

		digits[i - 1] = (unsigned char)(d % 10);
		carry = d / 10;
	}
	/* the carry holds the leading digits: at most 13 of them */
	for (i = 0; i < k; i++)
		if (digits[n - k + i])
			FAIL("'%s' is not a whole number of bytes", shown);
	if (n < k)
		FAIL("'%s' is not a whole number of bytes", shown);
	result = carry;
	for (i = 0; i < n - k; i++) {
		if (result > (UINT64_MAX - digits[i]) / 10)
			FAIL("'%s' exceeds 2^64-1 bytes", shown);
		result = result * 10 + digits[i];
	}
	if (result == 0)
		FAIL("'%s' is zero; sizes are at least 1 byte", shown);
	*out = result;
	return 0;
}
