#include "common/nearest.h"

#include <string.h>

size_t cgs_edit_distance(const char *a, size_t la, const char *b)
{
	/* Three rows: the one before the previous is needed for swaps. */
	size_t rows[3][CGS_NEAREST_MAX + 1];
	size_t lb = strlen(b), i, j;
	size_t *back2, *back, *cur;

	if (la > CGS_NEAREST_MAX || lb > CGS_NEAREST_MAX)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		rows[0][j] = j;
	back2 = rows[2];
	back = rows[0];
	cur = rows[1];
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = back[j - 1] + (a[i - 1] != b[j - 1]);

			if (back[j] + 1 < best)
				best = back[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && back2[j - 2] + 1 < best)
				best = back2[j - 2] + 1;
			cur[j] = best;
		}
		{
			size_t *t = back2;

			back2 = back;
			back = cur;
			cur = t;
		}
	}
	return back[lb];
}

const char *cgs_nearest(const char *a, size_t a_len,
			const char *const *words, size_t max_distance)
{
	const char *best = NULL;
	size_t best_dist = max_distance + 1, d;

	for (; *words; words++) {
		d = cgs_edit_distance(a, a_len, *words);
		if (d < best_dist) {
			best_dist = d;
			best = *words;
		}
	}
	return best;
}
