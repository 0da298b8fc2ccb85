/*
 * Reading a schedule file: size limit, UTF-8 check, choice of syntax, then
 * the adapter (yaml.c or json.c) and the validator (schedule.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/error.h"
#include "input/node.h"
#include "input/schedule.h"
#include "input/validate.h"

/* Length of the valid UTF-8 sequence at p, or 0 (overlong, surrogate...). */
static size_t utf8_sequence(const unsigned char *p, size_t left)
{
	unsigned char c = p[0];
	size_t n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int check_text(const char *name, const char *text, size_t len,
		      struct cgs_error *err)
{
	const unsigned char *p = (const unsigned char *)text;
	unsigned line = 1, column = 1;
	size_t i = 0, n;

	while (i < len) {
		if (p[i] == 0)
			return cgs_error_at(err, CGS_E_SYNTAX, name, line, column,
					    "the file contains a NUL byte, so it "
					    "looks binary; schedules are UTF-8 "
					    "YAML or JSON text");
		n = utf8_sequence(p + i, len - i);
		if (!n)
			return cgs_error_at(err, CGS_E_SYNTAX, name, line, column,
					    "byte 0x%02x is not valid UTF-8; "
					    "schedules are UTF-8 YAML or JSON "
					    "text", p[i]);
		if (p[i] == '\n') {
			line++;
			column = 1;
		} else {
			column++;
		}
		i += n;
	}
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* 1 for JSON: by extension, else a first non-blank '{'. */
static int is_json(const char *name, const char *text, size_t len)
{
	size_t i;

	if (ends_with(name, ".json"))
		return 1;
	if (ends_with(name, ".yaml") || ends_with(name, ".yml"))
		return 0;
	for (i = 0; i < len && strchr(" \t\r\n", text[i]); i++)
		;
	return i < len && text[i] == '{';
}

static int blank(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!strchr(" \t\r\n", text[i]) || !text[i])
			return 0;
	return 1;
}

static int file_limit(const char *name, uint64_t size,
		      const struct cgs_limits *limits, struct cgs_error *err)
{
	char what[96];

	snprintf(what, sizeof(what), "the file's size (%llu bytes)",
		 (unsigned long long)size);
	return cgs_limit_error(err, name, 0, 0, "file_bytes",
			       limits->file_bytes, what);
}

int cgs_schedule_parse_buffer(const char *name, const void *buf, size_t len,
			      const struct cgs_limits *limits,
			      struct cgs_schedule **out, struct cgs_error *err)
{
	struct cgs_limits defaults;
	struct cgs_doc doc = {0};
	const char *text = buf;
	int rc;

	if (!out)
		return cgs_error_set(err, CGS_E_ARG, "no output pointer");
	*out = NULL;
	if (!name)
		name = "<buffer>";
	if (!limits) {
		cgs_limits_init(&defaults);
		limits = &defaults;
	}
	if (!buf && len)
		return cgs_error_set(err, CGS_E_ARG, "no buffer");
	if (len > limits->file_bytes)
		return file_limit(name, len, limits, err);
	rc = check_text(name, text, len, err);
	if (rc)
		return rc;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	if (blank(text, len))
		goto empty;
	doc.file = name;
	doc.limits = limits;
	rc = is_json(name, text, len) ? cgs_json_parse(&doc, text, len, err) :
					cgs_yaml_parse(&doc, text, len, err);
	if (rc)
		goto out;
	if (!doc.root)
		goto empty;
	if (doc.root->kind == CGS_NODE_SCALAR &&
	    doc.root->type == CGS_SCALAR_NULL && !doc.root->quoted) {
		char q[32];

		rc = cgs_error_at(err, CGS_E_INVALID, name, doc.root->line,
				  doc.root->column,
				  "the document is the null value %s, not a "
				  "schedule; a schedule is a mapping that starts "
				  "with 'cgslot: 1'",
				  cgs_node_quote(doc.root, q, sizeof(q)));
		goto out;
	}
	rc = cgs_schedule_from_doc(&doc, limits, out, err);
	goto out;
empty:
	rc = cgs_error_at(err, CGS_E_SYNTAX, name, 0, 0,
			  "the file is empty; a schedule starts with "
			  "'cgslot: 1'");
out:
	cgs_doc_release(&doc);
	return rc;
}

int cgs_schedule_parse(const char *path, const struct cgs_limits *limits,
		       struct cgs_schedule **out, struct cgs_error *err)
{
	struct cgs_limits defaults;
	char what[96];
	char *buf = NULL;
	size_t len = 0, cap;
	struct stat st;
	FILE *f;
	int rc;

	if (!out || !path)
		return cgs_error_set(err, CGS_E_ARG, "no path or output pointer");
	*out = NULL;
	if (!limits) {
		cgs_limits_init(&defaults);
		limits = &defaults;
	}
	f = fopen(path, "rb");
	if (!f)
		return cgs_error_at(err, errno == ENOMEM ? CGS_E_NOMEM : CGS_E_IO,
				    path, 0, 0, "cannot open: %s",
				    strerror(errno));
	if (fstat(fileno(f), &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			rc = cgs_error_at(err, CGS_E_IO, path, 0, 0,
					  "is a directory; expected a schedule "
					  "file");
			goto out;
		}
		if (S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size > limits->file_bytes) {
			rc = file_limit(path, (uint64_t)st.st_size, limits, err);
			goto out;
		}
	}
	/* read at most one byte past the limit, so pipes are bounded too */
	cap = 65536;
	for (;;) {
		size_t got, want;
		uint64_t room;

		if (len == cap || !buf) {
			char *grown;

			if (buf)
				cap *= 2;
			grown = realloc(buf, cap);
			if (!grown) {
				rc = cgs_error_set(err, CGS_E_NOMEM,
						   "out of memory");
				goto out;
			}
			buf = grown;
		}
		/* At most one byte past the limit (len <= file_bytes here). */
		room = limits->file_bytes - len;
		if (room < UINT64_MAX)
			room++;
		want = cap - len;
		if ((uint64_t)want > room)
			want = (size_t)room;
		got = fread(buf + len, 1, want, f);
		len += got;
		if ((uint64_t)len > limits->file_bytes) {
			/* No size to report: a device or pipe, or a growing file. */
			snprintf(what, sizeof(what),
				 "the input (more than %llu bytes read before "
				 "stopping)", (unsigned long long)limits->file_bytes);
			rc = cgs_limit_error(err, path, 0, 0, "file_bytes",
					     limits->file_bytes, what);
			goto out;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = cgs_error_at(err, CGS_E_IO, path, 0, 0, "cannot read: %s",
				  strerror(errno));
		goto out;
	}
	rc = cgs_schedule_parse_buffer(path, buf, len, limits, out, err);
out:
	free(buf);
	fclose(f);
	return rc;
}
