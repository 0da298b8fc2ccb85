/*
 * The nearest word of a list to a misspelt one, for "did you mean"
 * hints: commands, schedule keys.
 */
#ifndef CGS_COMMON_NEAREST_H
#define CGS_COMMON_NEAREST_H

#include <stddef.h>

/*
 * Optimal-string-alignment distance of a (a_len bytes) and b: insertions,
 * deletions, substitutions and swaps of neighbours each cost 1.  Words
 * past CGS_NEAREST_MAX bytes are at distance (size_t)-1.
 */
#define CGS_NEAREST_MAX 64
size_t cgs_edit_distance(const char *a, size_t a_len, const char *b);

/*
 * The word of the NULL-terminated list `words` nearest to a (a_len
 * bytes) when at most max_distance away (the first of equals), else
 * NULL.  An exact match is at distance 0.
 */
const char *cgs_nearest(const char *a, size_t a_len,
			const char *const *words, size_t max_distance);

#endif
