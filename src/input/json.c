/*
 * The jansson adapter: the only file that includes <jansson.h>.
 *
 * jansson parses and rejects duplicate keys (JSON_REJECT_DUPLICATES) but
 * keeps no positions, so once it has accepted the text a small scanner
 * walks the text again in document order, alongside jansson's tree (which
 * keeps object keys in insertion order), and records where each value and
 * key starts.  Numbers are taken from the text itself, so integers past
 * 64 bits reach the validator as written instead of failing inside
 * jansson.  Before jansson runs, a pre-scan bounds the nesting depth and
 * the number of values, so hostile input is refused before it is built.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "input/node.h"

struct scanner {
	struct cgs_doc *doc;
	const char *text;
	size_t len, at;
	unsigned line, column;
};

static void advance(struct scanner *s)
{
	unsigned char c = (unsigned char)s->text[s->at++];

	if (c == '\n') {
		s->line++;
		s->column = 1;
	} else if ((c & 0xc0) != 0x80) {
		s->column++;
	}
}

static void skip_space(struct scanner *s)
{
	while (s->at < s->len && strchr(" \t\r\n", s->text[s->at]) &&
	       s->text[s->at])
		advance(s);
}

/* Skip a string token, starting at its opening quote. */
static void skip_string(struct scanner *s)
{
	advance(s);
	while (s->at < s->len && s->text[s->at] != '"') {
		if (s->text[s->at] == '\\' && s->at + 1 < s->len)
			advance(s);
		advance(s);
	}
	if (s->at < s->len)
		advance(s);
}

static void position_of(const char *text, size_t len, size_t offset,
			unsigned *line, unsigned *column)
{
	struct scanner s = {.text = text, .len = len, .line = 1, .column = 1};

	while (s.at < offset && s.at < len)
		advance(&s);
	*line = s.line;
	*column = s.column;
}

/*
 * Bound depth and node count before jansson builds anything.  Every value
 * but the root follows '[', ',' or ':' and every key follows '{' or ',',
 * so 1 + their count bounds keys plus values.
 */
static int prescan(struct cgs_doc *doc, const char *text, size_t len,
		   struct cgs_error *err)
{
	struct scanner s = {.doc = doc, .text = text, .len = len, .line = 1,
			    .column = 1};
	uint64_t depth = 0, nodes = 1;

	while (s.at < len) {
		char c = text[s.at];

		if (c == '"') {
			skip_string(&s);
			continue;
		}
		if (c == '[' || c == '{') {
			if (++depth > doc->limits->depth)
				return cgs_limit_error(err, doc->file, s.line,
						       s.column, "depth",
						       doc->limits->depth,
						       "the nesting depth of "
						       "the document");
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
		if (c == '[' || c == '{' || c == ',' || c == ':') {
			if (++nodes > doc->limits->nodes)
				return cgs_limit_error(err, doc->file, s.line,
						       s.column, "nodes",
						       doc->limits->nodes,
						       "the document's node "
						       "count");
		}
		advance(&s);
	}
	return 0;
}

/*
 * jansson reports a failed allocation inside its lexer as a syntax error
 * ("invalid token"), so its allocations go through these wrappers, which
 * remember a failure for the parse in progress on this thread.
 */
static _Thread_local int jansson_out_of_memory;

static void *jansson_malloc(size_t size)
{
	void *p = malloc(size);

	if (!p)
		jansson_out_of_memory = 1;
	return p;
}

static void jansson_free(void *p)
{
	free(p);
}

static int jansson_error(struct cgs_doc *doc, const char *text, size_t len,
			 const json_error_t *je, struct cgs_error *err)
{
	const char *near = strstr(je->text, " near '");
	size_t token = 0, offset = je->position > 0 ? (size_t)je->position : 0;
	unsigned line, column;

	/* jansson reports where it stopped: step back to the token's start */
	if (near) {
		const char *end = strrchr(near, '\'');

		token = (size_t)(end - (near + 7));
	}
	offset = offset >= token ? offset - token : 0;
	position_of(text, len, offset, &line, &column);
	/* the token is the key as written, quotes included */
	if (json_error_code(je) == json_error_duplicate_key && token >= 2)
		return cgs_error_at(err, CGS_E_SYNTAX, doc->file, line, column,
				    "duplicate key '%.*s'; each key may appear "
				    "once in a mapping", (int)(token - 2),
				    near + 8);
	if (json_error_code(je) == json_error_out_of_memory ||
	    jansson_out_of_memory)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	if (json_error_code(je) == json_error_null_character)
		return cgs_error_at(err, CGS_E_SYNTAX, doc->file, line, column,
				    "a string holds \\u0000 (a NUL character), "
				    "which no name or value of a schedule may "
				    "contain");
	return cgs_error_at(err, CGS_E_SYNTAX, doc->file, line, column,
			    "invalid JSON: %s", je->text);
}

static int lost(struct scanner *s, struct cgs_error *err)
{
	return cgs_error_at(err, CGS_E_SYNTAX, s->doc->file, s->line, s->column,
			    "internal error: the JSON position scanner lost "
			    "its place");
}

static int expect(struct scanner *s, char c, struct cgs_error *err)
{
	skip_space(s);
	if (s->at >= s->len || s->text[s->at] != c)
		return lost(s, err);
	advance(s);
	return 0;
}

static int build(struct scanner *s, json_t *value, struct cgs_node **out,
		 struct cgs_error *err);

static int build_key(struct scanner *s, const char *key, size_t key_len,
		     struct cgs_node *map, struct cgs_error *err)
{
	struct cgs_node *k;
	size_t start;

	skip_space(s);
	if (s->at >= s->len || s->text[s->at] != '"')
		return lost(s, err);
	k = cgs_node_new(s->doc, CGS_NODE_SCALAR, s->line, s->column, err);
	if (!k)
		return s->doc->failure;
	start = s->at;
	skip_string(s);
	/* a key without escapes must match its text: proves we are in step */
	if (!memchr(s->text + start, '\\', s->at - start) &&
	    (s->at - start != key_len + 2 ||
	     memcmp(s->text + start + 1, key, key_len) != 0)) {
		cgs_node_free(k);
		return lost(s, err);
	}
	if (cgs_node_set_text(k, key, key_len, 1, err) ||
	    cgs_node_append(map, k, err)) {
		cgs_node_free(k);
		return CGS_E_NOMEM;
	}
	return 0;
}

static int build_children(struct scanner *s, json_t *value,
			  struct cgs_node *n, struct cgs_error *err)
{
	struct cgs_node *child;
	const char *key;
	json_t *item;
	size_t i, count = 0;
	int rc;

	if (json_is_object(value)) {
		if ((rc = expect(s, '{', err)))
			return rc;
		json_object_foreach(value, key, item) {
			if (count++ && (rc = expect(s, ',', err)))
				return rc;
			rc = build_key(s, key, strlen(key), n, err);
			if (!rc)
				rc = expect(s, ':', err);
			if (!rc)
				rc = build(s, item, &child, err);
			if (rc)
				return rc;
			if (cgs_node_append(n, child, err)) {
				cgs_node_free(child);
				return CGS_E_NOMEM;
			}
		}
		return expect(s, '}', err);
	}
	if ((rc = expect(s, '[', err)))
		return rc;
	json_array_foreach(value, i, item) {
		if (i && (rc = expect(s, ',', err)))
			return rc;
		if ((rc = build(s, item, &child, err)))
			return rc;
		if (cgs_node_append(n, child, err)) {
			cgs_node_free(child);
			return CGS_E_NOMEM;
		}
	}
	return expect(s, ']', err);
}

static int build_scalar(struct scanner *s, json_t *value, struct cgs_node *n,
			struct cgs_error *err)
{
	size_t start = s->at;

	if (json_is_string(value)) {
		if (s->text[s->at] != '"')
			return lost(s, err);
		skip_string(s);
		return cgs_node_set_text(n, json_string_value(value),
					 json_string_length(value), 1, err);
	}
	/* numbers, true, false and null: the literal as written */
	while (s->at < s->len && strchr("+-.0123456789eEtrufalsn", s->text[s->at]) &&
	       s->text[s->at])
		advance(s);
	if (s->at == start)
		return lost(s, err);
	return cgs_node_set_text(n, s->text + start, s->at - start, 0, err);
}

static int build(struct scanner *s, json_t *value, struct cgs_node **out,
		 struct cgs_error *err)
{
	enum cgs_node_kind kind = json_is_object(value) ? CGS_NODE_MAP :
				  json_is_array(value) ? CGS_NODE_SEQ :
							 CGS_NODE_SCALAR;
	struct cgs_node *n;
	int rc;

	*out = NULL;
	skip_space(s);
	if (s->at >= s->len)
		return lost(s, err);
	n = cgs_node_new(s->doc, kind, s->line, s->column, err);
	if (!n)
		return s->doc->failure;
	rc = kind == CGS_NODE_SCALAR ? build_scalar(s, value, n, err) :
				       build_children(s, value, n, err);
	if (rc) {
		cgs_node_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

int cgs_json_parse(struct cgs_doc *doc, const char *text, size_t len,
		   struct cgs_error *err)
{
	struct scanner s = {.doc = doc, .text = text, .len = len, .line = 1,
			    .column = 1};
	json_error_t je;
	json_t *root;
	int rc;

	rc = prescan(doc, text, len, err);
	if (rc)
		return rc;
	json_set_alloc_funcs(jansson_malloc, jansson_free);
	jansson_out_of_memory = 0;
	root = json_loadb(text, len,
			  JSON_REJECT_DUPLICATES | JSON_DECODE_ANY |
				  JSON_DECODE_INT_AS_REAL,
			  &je);
	if (!root)
		return jansson_error(doc, text, len, &je, err);
	rc = build(&s, root, &doc->root, err);
	json_decref(root);
	if (rc && jansson_out_of_memory) {
		/* a string jansson could not copy reads as a lost position */
		cgs_error_clear(err);
		rc = cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	}
	return rc;
}
