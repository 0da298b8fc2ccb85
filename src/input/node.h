/*
 * The document tree both input syntaxes load into: mappings (key order
 * kept), sequences and scalars, each with its 1-based position.  The YAML
 * and JSON adapters build it; the schedule validator reads only this, so
 * both syntaxes are validated by one piece of code.
 */
#ifndef CGS_INPUT_NODE_H
#define CGS_INPUT_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "cgslot/error.h"
#include "input/limits.h"

enum cgs_node_kind {
	CGS_NODE_SCALAR = 0,
	CGS_NODE_MAP = 1,
	CGS_NODE_SEQ = 2,
};

/*
 * What a scalar is, resolved the same way for both syntaxes: a quoted YAML
 * scalar or a JSON string is a string; a plain YAML scalar or a JSON
 * literal is null, bool, int or float when its text has that form, else a
 * string (YAML plain text such as 1.5GiB).
 */
enum cgs_scalar_type {
	CGS_SCALAR_STRING = 0,
	CGS_SCALAR_INT = 1,    /* [-+]?[0-9]+ */
	CGS_SCALAR_FLOAT = 2,  /* a decimal fraction or exponent */
	CGS_SCALAR_BOOL = 3,
	CGS_SCALAR_NULL = 4,
};

struct cgs_node {
	uint8_t kind;        /* enum cgs_node_kind */
	uint8_t type;        /* enum cgs_scalar_type, scalars only */
	uint8_t quoted;      /* scalar was quoted (YAML) or a JSON string */
	unsigned line;       /* 1-based */
	unsigned column;     /* 1-based, in characters */
	unsigned height;     /* 1 for a scalar, 1 + tallest child otherwise */
	size_t len;          /* scalar text bytes */
	char *text;          /* scalar text, NUL-terminated (may hold NULs) */
	/*
	 * seq: items[0..count); map: items[2i] the key scalar and
	 * items[2i+1] its value, so a mapping has count / 2 pairs.
	 */
	size_t count, cap;
	struct cgs_node **items;
};

/* A parsed document with the budget it was built under. */
struct cgs_doc {
	const char *file;          /* for messages; borrowed */
	const struct cgs_limits *limits;
	uint64_t nodes;            /* nodes created so far */
	int failure;               /* status of the last failed node call */
	struct cgs_node *root;
};

/*
 * Allocate a node; counts it against limits->nodes.  NULL on failure,
 * with the status (CGS_E_LIMIT or CGS_E_NOMEM) in doc->failure.
 */
struct cgs_node *cgs_node_new(struct cgs_doc *doc, enum cgs_node_kind kind,
			      unsigned line, unsigned column,
			      struct cgs_error *err);

/* Set a scalar's text (copied) and resolve its type. */
int cgs_node_set_text(struct cgs_node *n, const char *text, size_t len,
		      int quoted, struct cgs_error *err);

/* Append a child to a sequence, or a key or value to a mapping. */
int cgs_node_append(struct cgs_node *parent, struct cgs_node *child,
		    struct cgs_error *err);

/*
 * Reject a mapping that holds a key twice, naming the later occurrence
 * and where the first one is.  Runs in O(n log n).
 */
int cgs_node_check_keys(const struct cgs_doc *doc, const struct cgs_node *map,
			struct cgs_error *err);

/*
 * Deep copy (for YAML aliases), counted against the node budget; NULL on
 * failure with the status in doc->failure.
 */
struct cgs_node *cgs_node_copy(struct cgs_doc *doc, const struct cgs_node *n,
			       struct cgs_error *err);

void cgs_node_free(struct cgs_node *n);

/* The value of `key` in a mapping, or NULL. */
struct cgs_node *cgs_node_get(const struct cgs_node *map, const char *key);

/*
 * Quote a scalar's text for a message: at most `max` characters, with
 * control bytes escaped.  Writes into buf and returns it.
 */
const char *cgs_node_quote(const struct cgs_node *n, char *buf, size_t size);

/* The type of a scalar or kind of node in words: "a string", "a mapping". */
const char *cgs_node_describe(const struct cgs_node *n);

/* Resolve the type of plain (unquoted) scalar text. */
enum cgs_scalar_type cgs_scalar_resolve(const char *text, size_t len);

/*
 * Parse UTF-8 YAML or JSON text into doc->root.  The text must already be
 * checked to be valid UTF-8 without NUL bytes.  These two functions live
 * in the only files that include libyaml and jansson.
 */
int cgs_yaml_parse(struct cgs_doc *doc, const char *text, size_t len,
		   struct cgs_error *err);
int cgs_json_parse(struct cgs_doc *doc, const char *text, size_t len,
		   struct cgs_error *err);

/* Free the tree of a document. */
void cgs_doc_release(struct cgs_doc *doc);

#endif
