#include "input/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

struct cgs_node *cgs_node_new(struct cgs_doc *doc, enum cgs_node_kind kind,
			      unsigned line, unsigned column,
			      struct cgs_error *err)
{
	struct cgs_node *n;

	if (doc->nodes >= doc->limits->nodes) {
		doc->failure = cgs_limit_error(err, doc->file, line, column,
					       "nodes", doc->limits->nodes,
					       "the document's node count "
					       "(aliases expanded)");
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		doc->failure = cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		return NULL;
	}
	doc->nodes++;
	n->kind = (uint8_t)kind;
	n->line = line;
	n->column = column;
	n->height = 1;
	return n;
}

static int all_digits(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int is_word(const char *s, size_t len, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == len && memcmp(*words, s, len) == 0)
			return 1;
	return 0;
}

/* Decimal fractions and exponents: [-+]?(d+(.d*)?|.d+)([eE][-+]?d+)? */
static int is_float(const char *s, size_t len)
{
	static const char *const special[] = {
		".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
		"-.Inf", "-.INF", ".nan", ".NaN", ".NAN", NULL,
	};
	size_t i = 0, digits = 0, frac = 0;

	if (is_word(s, len, special))
		return 1;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++, frac++;
	}
	if (!digits && !frac)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		if (i >= len || s[i] < '0' || s[i] > '9')
			return 0;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == len;
}

enum cgs_scalar_type cgs_scalar_resolve(const char *s, size_t len)
{
	static const char *const nulls[] = {"~", "null", "Null", "NULL", NULL};
	static const char *const bools[] = {"true", "True", "TRUE", "false",
					    "False", "FALSE", NULL};

	if (len == 0 || is_word(s, len, nulls))
		return CGS_SCALAR_NULL;
	if (is_word(s, len, bools))
		return CGS_SCALAR_BOOL;
	if ((s[0] == '-' || s[0] == '+') ? all_digits(s + 1, len - 1) :
					   all_digits(s, len))
		return CGS_SCALAR_INT;
	if (is_float(s, len))
		return CGS_SCALAR_FLOAT;
	return CGS_SCALAR_STRING;
}

/*
 * YAML 1.2's core schema also writes integers as 0o17 and 0x1F.  They
 * become their decimal text here, so the validator reads every integer
 * one way.  Returns the digits' base (8 or 16), or 0 for other text.
 * Beyond 256 bits a literal is left a string: no count is that large,
 * and converting it would cost time quadratic in its length.
 */
static unsigned prefixed_base(const char *s, size_t len)
{
	unsigned base;
	size_t i;

	if (len < 3 || s[0] != '0' || (s[1] != 'o' && s[1] != 'x'))
		return 0;
	base = s[1] == 'o' ? 8 : 16;
	for (i = 2; i < len; i++) {
		char c = s[i];
		int ok = base == 8 ? (c >= '0' && c <= '7') :
				     ((c >= '0' && c <= '9') ||
				      (c >= 'a' && c <= 'f') ||
				      (c >= 'A' && c <= 'F'));

		if (!ok)
			return 0;
	}
	for (i = 2; i + 1 < len && s[i] == '0'; i++)
		;
	if ((len - i) * (base == 8 ? 3 : 4) > 256)
		return 0;
	return base;
}

/* The decimal text of a 0o/0x literal (prefixed_base() accepted it). */
static char *prefixed_to_decimal(const char *s, size_t len, unsigned base,
				 size_t *out_len)
{
	/* 256 bits take at most 78 decimal digits */
	unsigned char dec[80];
	size_t n = 1, i, j;
	char *text;

	dec[0] = 0; /* least significant digit first */
	for (i = 2; i < len; i++) {
		char c = s[i];
		unsigned carry = (unsigned)(c <= '9' ? c - '0' :
					    (c | 0x20) - 'a' + 10);

		for (j = 0; j < n; j++) {
			unsigned v = dec[j] * base + carry;

			dec[j] = (unsigned char)(v % 10);
			carry = v / 10;
		}
		while (carry) {
			dec[n++] = (unsigned char)(carry % 10);
			carry /= 10;
		}
	}
	while (n > 1 && dec[n - 1] == 0)
		n--;
	text = malloc(n + 1);
	if (!text)
		return NULL;
	for (j = 0; j < n; j++)
		text[j] = (char)('0' + dec[n - 1 - j]);
	text[n] = '\0';
	*out_len = n;
	return text;
}

int cgs_node_set_text(struct cgs_node *n, const char *text, size_t len,
		      int quoted, struct cgs_error *err)
{
	unsigned base = quoted ? 0 : prefixed_base(text, len);

	if (base) {
		n->text = prefixed_to_decimal(text, len, base, &n->len);
		if (!n->text)
			return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		n->quoted = 0;
		n->type = CGS_SCALAR_INT;
		return 0;
	}
	n->text = malloc(len + 1);
	if (!n->text)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	memcpy(n->text, text, len);
	n->text[len] = '\0';
	n->len = len;
	n->quoted = quoted != 0;
	n->type = (uint8_t)(quoted ? CGS_SCALAR_STRING :
				     cgs_scalar_resolve(text, len));
	return 0;
}

int cgs_node_append(struct cgs_node *parent, struct cgs_node *child,
		    struct cgs_error *err)
{
	if (parent->count == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 4;
		struct cgs_node **items;

		items = realloc(parent->items, cap * sizeof(*items));
		if (!items)
			return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		parent->items = items;
		parent->cap = cap;
	}
	parent->items[parent->count++] = child;
	if (child->height + 1 > parent->height)
		parent->height = child->height + 1;
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct cgs_node *x = *(struct cgs_node *const *)a;
	const struct cgs_node *y = *(struct cgs_node *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->text, y->text, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	/* document order among equal keys, so the first duplicate is found */
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->column < y->column ? -1 : x->column > y->column;
}

static int same_key(const struct cgs_node *x, const struct cgs_node *y)
{
	return x->len == y->len && memcmp(x->text, y->text, x->len) == 0;
}

static int before(const struct cgs_node *x, const struct cgs_node *y)
{
	return x->line < y->line || (x->line == y->line && x->column < y->column);
}

int cgs_node_check_keys(const struct cgs_doc *doc, const struct cgs_node *map,
			struct cgs_error *err)
{
	size_t pairs = map->count / 2, i;
	const struct cgs_node *dup = NULL, *first = NULL;
	struct cgs_node **keys;
	char q[96];

	if (pairs < 2)
		return 0;
	keys = malloc(pairs * sizeof(*keys));
	if (!keys)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	for (i = 0; i < pairs; i++)
		keys[i] = map->items[2 * i];
	qsort(keys, pairs, sizeof(*keys), key_cmp);
	for (i = 1; i < pairs; i++) {
		if (!same_key(keys[i - 1], keys[i]) ||
		    (i >= 2 && same_key(keys[i - 2], keys[i])))
			continue;
		if (!dup || before(keys[i], dup)) {
			dup = keys[i];
			first = keys[i - 1];
		}
	}
	free(keys);
	if (!dup)
		return 0;
	return cgs_error_at(err, CGS_E_SYNTAX, doc->file, dup->line, dup->column,
			    "duplicate key %s (first at line %u, column %u); "
			    "each key may appear once in a mapping",
			    cgs_node_quote(dup, q, sizeof(q)), first->line,
			    first->column);
}

struct cgs_node *cgs_node_copy(struct cgs_doc *doc, const struct cgs_node *n,
			       struct cgs_error *err)
{
	struct cgs_node *c = cgs_node_new(doc, (enum cgs_node_kind)n->kind,
					  n->line, n->column, err);
	size_t i;

	if (!c)
		return NULL;
	if (n->kind == CGS_NODE_SCALAR) {
		if (cgs_node_set_text(c, n->text, n->len, n->quoted, err)) {
			doc->failure = CGS_E_NOMEM;
			goto fail;
		}
		c->type = n->type;
		return c;
	}
	for (i = 0; i < n->count; i++) {
		struct cgs_node *child = cgs_node_copy(doc, n->items[i], err);

		if (!child)
			goto fail;
		if (cgs_node_append(c, child, err)) {
			doc->failure = CGS_E_NOMEM;
			cgs_node_free(child);
			goto fail;
		}
	}
	return c;
fail:
	cgs_node_free(c);
	return NULL;
}

void cgs_node_free(struct cgs_node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->count; i++)
		cgs_node_free(n->items[i]);
	free(n->items);
	free(n->text);
	free(n);
}

void cgs_doc_release(struct cgs_doc *doc)
{
	if (!doc)
		return;
	cgs_node_free(doc->root);
	doc->root = NULL;
}

struct cgs_node *cgs_node_get(const struct cgs_node *map, const char *key)
{
	size_t i, len = strlen(key);

	if (!map || map->kind != CGS_NODE_MAP)
		return NULL;
	for (i = 0; i + 1 < map->count; i += 2) {
		const struct cgs_node *k = map->items[i];

		if (k->len == len && memcmp(k->text, key, len) == 0)
			return map->items[i + 1];
	}
	return NULL;
}

const char *cgs_node_quote(const struct cgs_node *n, char *buf, size_t size)
{
	size_t i, o = 0;

	if (size < 8) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	buf[o++] = '\'';
	for (i = 0; i < n->len; i++) {
		unsigned char ch = (unsigned char)n->text[i];

		if (o + 8 >= size && (ch & 0xc0) != 0x80) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (ch < 0x20 || ch == 0x7f)
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", ch);
		else
			buf[o++] = (char)ch;
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

const char *cgs_node_describe(const struct cgs_node *n)
{
	if (n->kind == CGS_NODE_MAP)
		return "a mapping";
	if (n->kind == CGS_NODE_SEQ)
		return "a list";
	switch (n->type) {
	case CGS_SCALAR_INT:
		return "an integer";
	case CGS_SCALAR_FLOAT:
		if (memchr(n->text, 'n', n->len) || memchr(n->text, 'N', n->len))
			return n->text[n->len - 1] == 'n' ||
			       n->text[n->len - 1] == 'N' ?
				"the not-a-number value" : "an infinity";
		if (memchr(n->text, 'e', n->len) || memchr(n->text, 'E', n->len))
			return "a number in exponent notation (a float)";
		return "a number with a fraction";
	case CGS_SCALAR_BOOL:
		return "a boolean";
	case CGS_SCALAR_NULL:
		return "null";
	default:
		return "a string";
	}
}
