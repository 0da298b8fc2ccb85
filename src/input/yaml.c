/*
 * The libyaml adapter: the only file that includes <yaml.h>.  It turns
 * libyaml's events into the document tree, converting positions to
 * 1-based, rejecting duplicate keys (libyaml does not), and expanding
 * aliases by copying under the node budget, so an alias bomb stops at the
 * `nodes` limit instead of exhausting memory.
 */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/error.h"
#include "input/node.h"

struct anchor {
	char *name;
	const struct cgs_node *node;
};

/* Where libyaml's character index `index` is: byte `at`, line, column. */
struct cursor {
	size_t index, at;
	unsigned line, column;
};

struct builder {
	struct cgs_doc *doc;
	struct cursor cursor;
	const char *text;
	size_t len;
	struct cgs_node **stack;   /* open mappings and sequences */
	char **stack_anchor;       /* anchor of each open node, or NULL */
	size_t depth;
	struct anchor *anchors;
	size_t n_anchors, cap_anchors;
	int documents;
};

/*
 * libyaml follows YAML 1.1, where U+0085, U+2028 and U+2029 break lines
 * even inside a quoted string; YAML 1.2, editors and the JSON adapter
 * break lines at LF, CRLF and a lone CR only.  So positions are not taken
 * from libyaml's line and column but recounted from its character index:
 * a cursor walks the text once, forward, as the events arrive.
 */
static void seek_mark(struct builder *b, const yaml_mark_t *m)
{
	struct cursor *c = &b->cursor;

	if (m->index < c->index)
		*c = (struct cursor){.line = 1, .column = 1};
	while (c->index < m->index && c->at < b->len) {
		unsigned char ch = (unsigned char)b->text[c->at++];

		if (ch == '\n' ||
		    (ch == '\r' && (c->at >= b->len || b->text[c->at] != '\n'))) {
			c->line++;
			c->column = 1;
		} else if (ch != '\r') {
			c->column++;
		}
		/* one character: skip its continuation bytes */
		while (c->at < b->len &&
		       ((unsigned char)b->text[c->at] & 0xc0) == 0x80)
			c->at++;
		c->index++;
	}
}

static unsigned line_of(struct builder *b, const yaml_mark_t *m)
{
	seek_mark(b, m);
	return b->cursor.line;
}

static unsigned column_of(struct builder *b, const yaml_mark_t *m)
{
	seek_mark(b, m);
	return b->cursor.column;
}

/*
 * Line and character column of a byte offset (libyaml reader errors),
 * counted as seek_mark() counts.
 */
static void offset_position(const char *text, size_t len, size_t offset,
			    unsigned *line, unsigned *column)
{
	size_t i;

	*line = 1;
	*column = 1;
	for (i = 0; i < offset && i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n' ||
		    (c == '\r' && (i + 1 >= len || text[i + 1] != '\n'))) {
			(*line)++;
			*column = 1;
		} else if ((c & 0xc0) != 0x80 && c != '\r') {
			(*column)++;
		}
	}
}

static int parser_error(struct builder *b, const yaml_parser_t *p,
			struct cgs_error *err)
{
	unsigned line, column;
	const char *problem = p->problem ? p->problem : "malformed YAML";

	if (p->error == YAML_MEMORY_ERROR)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	if (p->error == YAML_READER_ERROR) {
		offset_position(b->text, b->len, p->problem_offset, &line,
				&column);
	} else {
		line = line_of(b, &p->problem_mark);
		column = column_of(b, &p->problem_mark);
	}
	if (p->context)
		return cgs_error_at(err, CGS_E_SYNTAX, b->doc->file, line,
				    column, "invalid YAML: %s, %s", p->context,
				    problem);
	return cgs_error_at(err, CGS_E_SYNTAX, b->doc->file, line, column,
			    "invalid YAML: %s", problem);
}

static int reject_tag(struct builder *b, const yaml_char_t *tag,
		      const yaml_mark_t *m, struct cgs_error *err)
{
	if (!tag)
		return 0;
	return cgs_error_at(err, CGS_E_SYNTAX, b->doc->file, line_of(b, m),
			    column_of(b, m),
			    "YAML tag '%.64s' is not supported; write plain "
			    "values without tags", (const char *)tag);
}

static int add_anchor(struct builder *b, const char *name,
		      const struct cgs_node *node, struct cgs_error *err)
{
	if (!name)
		return 0;
	if (b->n_anchors == b->cap_anchors) {
		size_t cap = b->cap_anchors ? b->cap_anchors * 2 : 8;
		struct anchor *a = realloc(b->anchors, cap * sizeof(*a));

		if (!a)
			return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
		b->anchors = a;
		b->cap_anchors = cap;
	}
	b->anchors[b->n_anchors].name = strdup(name);
	if (!b->anchors[b->n_anchors].name)
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	b->anchors[b->n_anchors++].node = node;
	return 0;
}

/* The most recent definition wins, as YAML requires. */
static const struct cgs_node *find_anchor(struct builder *b, const char *name)
{
	size_t i;

	for (i = b->n_anchors; i > 0; i--)
		if (strcmp(b->anchors[i - 1].name, name) == 0)
			return b->anchors[i - 1].node;
	return NULL;
}

/* Attach a new node to the open container, or make it the root. */
static int attach(struct builder *b, struct cgs_node *n, struct cgs_error *err)
{
	struct cgs_node *parent;

	if (!b->depth) {
		if (b->doc->root) {
			cgs_node_free(n);
			return cgs_error_at(err, CGS_E_SYNTAX, b->doc->file,
					    n->line, n->column,
					    "invalid YAML: more than one root "
					    "value");
		}
		b->doc->root = n;
		return 0;
	}
	parent = b->stack[b->depth - 1];
	if (parent->kind == CGS_NODE_MAP && parent->count % 2 == 0 &&
	    n->kind != CGS_NODE_SCALAR) {
		unsigned line = n->line, column = n->column;

		cgs_node_free(n);
		return cgs_error_at(err, CGS_E_SYNTAX, b->doc->file, line,
				    column, "a mapping key must be a scalar, "
				    "not a mapping or a list");
	}
	if (cgs_node_append(parent, n, err)) {
		cgs_node_free(n);
		return CGS_E_NOMEM;
	}
	return 0;
}

static int open_node(struct builder *b, enum cgs_node_kind kind,
		     const yaml_event_t *ev, const yaml_char_t *anchor,
		     struct cgs_error *err)
{
	unsigned line = line_of(b, &ev->start_mark);
	unsigned column = column_of(b, &ev->start_mark);
	struct cgs_node *n;
	int rc;

	if (b->depth + 1 > b->doc->limits->depth)
		return cgs_limit_error(err, b->doc->file, line, column, "depth",
				       b->doc->limits->depth,
				       "the nesting depth of the document");
	n = cgs_node_new(b->doc, kind, line, column, err);
	if (!n)
		return b->doc->failure;
	rc = attach(b, n, err);
	if (rc)
		return rc;
	b->stack[b->depth] = n;
	b->stack_anchor[b->depth] = NULL;
	if (anchor) {
		b->stack_anchor[b->depth] = strdup((const char *)anchor);
		if (!b->stack_anchor[b->depth])
			return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	}
	b->depth++;
	return 0;
}

static int close_node(struct builder *b, struct cgs_error *err)
{
	struct cgs_node *n = b->stack[b->depth - 1];
	char *anchor = b->stack_anchor[b->depth - 1];
	int rc = 0;

	b->stack_anchor[b->depth - 1] = NULL;
	b->depth--;
	if (b->depth) {
		struct cgs_node *parent = b->stack[b->depth - 1];

		if (n->height + 1 > parent->height)
			parent->height = n->height + 1;
	}
	if (n->kind == CGS_NODE_MAP)
		rc = cgs_node_check_keys(b->doc, n, err);
	if (!rc)
		rc = add_anchor(b, anchor, n, err);
	free(anchor);
	return rc;
}

static int on_scalar(struct builder *b, const yaml_event_t *ev,
		     struct cgs_error *err)
{
	struct cgs_node *n;
	int rc;

	rc = reject_tag(b, ev->data.scalar.tag, &ev->start_mark, err);
	if (rc)
		return rc;
	n = cgs_node_new(b->doc, CGS_NODE_SCALAR, line_of(b, &ev->start_mark),
			 column_of(b, &ev->start_mark), err);
	if (!n)
		return b->doc->failure;
	rc = cgs_node_set_text(n, (const char *)ev->data.scalar.value,
			       ev->data.scalar.length,
			       ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE,
			       err);
	if (rc) {
		cgs_node_free(n);
		return rc;
	}
	rc = attach(b, n, err);
	if (rc)
		return rc;
	return add_anchor(b, (const char *)ev->data.scalar.anchor, n, err);
}

static int on_alias(struct builder *b, const yaml_event_t *ev,
		    struct cgs_error *err)
{
	const char *name = (const char *)ev->data.alias.anchor;
	unsigned line = line_of(b, &ev->start_mark);
	unsigned column = column_of(b, &ev->start_mark);
	const struct cgs_node *target = find_anchor(b, name);
	struct cgs_node *copy;

	if (!target)
		return cgs_error_at(err, CGS_E_SYNTAX, b->doc->file, line,
				    column, "alias '*%.64s' refers to no "
				    "complete anchor before it", name);
	if (b->depth + target->height > b->doc->limits->depth)
		return cgs_limit_error(err, b->doc->file, line, column, "depth",
				       b->doc->limits->depth,
				       "the nesting depth of the document "
				       "(aliases expanded)");
	copy = cgs_node_copy(b->doc, target, err);
	if (!copy) {
		/* point a budget error at the alias, not at the anchor */
		if (err && err->code == CGS_E_LIMIT) {
			err->line = line;
			err->column = column;
		}
		return b->doc->failure;
	}
	/*
	 * The copy stands where the alias is written: a duplicate key or a
	 * wrong value reached through it is reported there.  (Nodes inside
	 * a copied mapping keep their anchor's positions, where they are
	 * written.)
	 */
	copy->line = line;
	copy->column = column;
	return attach(b, copy, err);
}

static int on_event(struct builder *b, const yaml_event_t *ev,
		    struct cgs_error *err)
{
	int rc;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->documents++)
			return cgs_error_at(err, CGS_E_SYNTAX, b->doc->file,
					    line_of(b, &ev->start_mark),
					    column_of(b, &ev->start_mark),
					    "a schedule file holds one YAML "
					    "document; found a second one");
		return 0;
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev, err);
	case YAML_ALIAS_EVENT:
		return on_alias(b, ev, err);
	case YAML_SEQUENCE_START_EVENT:
		rc = reject_tag(b, ev->data.sequence_start.tag,
				&ev->start_mark, err);
		return rc ? rc : open_node(b, CGS_NODE_SEQ, ev,
					   ev->data.sequence_start.anchor, err);
	case YAML_MAPPING_START_EVENT:
		rc = reject_tag(b, ev->data.mapping_start.tag,
				&ev->start_mark, err);
		return rc ? rc : open_node(b, CGS_NODE_MAP, ev,
					   ev->data.mapping_start.anchor, err);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return close_node(b, err);
	default:
		return 0;
	}
}

int cgs_yaml_parse(struct cgs_doc *doc, const char *text, size_t len,
		   struct cgs_error *err)
{
	struct builder b = {.doc = doc, .text = text, .len = len,
			    .cursor = {.line = 1, .column = 1}};
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0, done = 0;
	size_t i;

	b.stack = calloc(doc->limits->depth + 1, sizeof(*b.stack));
	b.stack_anchor = calloc(doc->limits->depth + 1, sizeof(*b.stack_anchor));
	if (!b.stack || !b.stack_anchor || !yaml_parser_initialize(&parser)) {
		free(b.stack);
		free(b.stack_anchor);
		return cgs_error_set(err, CGS_E_NOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (!done && !rc) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parser_error(&b, &parser, err);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(&b, &ev, err);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	for (i = 0; i < doc->limits->depth + 1; i++)
		free(b.stack_anchor[i]);
	for (i = 0; i < b.n_anchors; i++)
		free(b.anchors[i].name);
	free(b.anchors);
	free(b.stack);
	free(b.stack_anchor);
	if (rc)
		cgs_doc_release(doc);
	return rc;
}
