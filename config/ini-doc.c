#include <ctype.h>
#include <ini.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ini-doc.h"

/*
 * inih does the key/value parsing, but Debian builds it with a 200-byte line
 * buffer, `;`-only inline comments and no notion of quotes. So this reader
 * hands it one line at a time after checking the line's shape itself: long
 * values go to inih as continuation lines (which it supports), comments are
 * stripped here, and a malformed line becomes an error of ours and a blank
 * line for inih, so that every problem is reported with its own line number.
 */

/* inih's buffer is 200 bytes; keep room for "key=" and the terminator. */
#define PIECE 150

struct reader {
	const char *name;
	const char *text;
	size_t len, pos;
	int line;
	struct diag_list *diags;
	struct ini_doc *doc;

	/* The current physical line, cut into pieces for inih. */
	char *pieces;
	size_t n_pieces, next_piece;
	bool in_bad_section;
	bool have_key; /* a key line was seen in this section: continuations may follow */
	bool continuing; /* the next handler call continues the last entry */
	int syntax_errors;
};

/* Past this many malformed lines the file is not a seat map at all. */
#define MAX_SYNTAX_ERRORS 10

static void *xmalloc(size_t n) {
	void *p = malloc(n);
	if (p == NULL) {
		abort();
	}
	return p;
}

static char *xstrndup(const char *s, size_t n) {
	char *p = strndup(s, n);
	if (p == NULL) {
		abort();
	}
	return p;
}

static bool valid_key_char(char c) {
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Strips a comment: # or ; at the start or after a blank. A backslash before
 * it keeps it as text. */
static size_t strip_comment(const char *s, size_t len) {
	for (size_t i = 0; i < len; i++) {
		if ((s[i] == '#' || s[i] == ';') && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
			return i;
		}
	}
	return len;
}

static size_t rtrim(const char *s, size_t len) {
	while (len > 0 && isspace((unsigned char)s[len - 1])) {
		len--;
	}
	return len;
}

static struct ini_section *current_section(struct reader *r) {
	struct ini_doc *doc = r->doc;
	return doc->n_sections > 0 ? &doc->sections[doc->n_sections - 1] : NULL;
}

static void add_section(struct reader *r, const char *name, size_t len) {
	struct ini_doc *doc = r->doc;
	if (doc->n_sections == doc->cap) {
		doc->cap = doc->cap ? doc->cap * 2 : 8;
		doc->sections = realloc(doc->sections, doc->cap * sizeof(*doc->sections));
		if (doc->sections == NULL) {
			abort();
		}
	}
	doc->sections[doc->n_sections++] = (struct ini_section){
		.name = xstrndup(name, len),
		.line = r->line,
	};
}

/* Names are judged by what they mean, in interpret.c; here only the shape. */
static bool valid_section_name(const char *s, size_t len) {
	return len > 0 && len <= 64 && memchr(s, '[', len) == NULL && memchr(s, ']', len) == NULL;
}

/* Queues pieces for inih: "key=" + the value cut at blanks outside quotes
 * into pieces of at most PIECE bytes, each after the first as an indented
 * continuation line. */
static bool queue_value(struct reader *r, const char *key, size_t klen, const char *val,
		size_t vlen, bool continuation) {
	/* Each piece: at most PIECE bytes of value, a key or a blank, a newline. */
	size_t max_pieces = vlen / 16 + 2;
	r->pieces = xmalloc(max_pieces * 200);
	r->n_pieces = 0;
	r->next_piece = 0;
	size_t i = 0;
	bool first = true;
	do {
		size_t end = vlen;
		if (vlen - i > PIECE) {
			/* The last blank outside quotes within the piece. */
			end = 0;
			char quote = 0;
			for (size_t j = i; j < i + PIECE; j++) {
				char c = val[j];
				if (quote != 0) {
					quote = c == quote ? 0 : quote;
				} else if (c == '\\') {
					j++;
				} else if (c == '"' || c == '\'') {
					quote = c;
				} else if (c == ' ' || c == '\t') {
					end = j;
				}
			}
			if (end <= i) {
				return false;
			}
		}
		if (r->n_pieces == max_pieces) {
			return false;
		}
		char *out = r->pieces + r->n_pieces * 200;
		size_t n;
		if (first && !continuation) {
			memcpy(out, key, klen);
			out[klen] = '=';
			n = klen + 1;
		} else {
			out[0] = ' ';
			n = 1;
		}
		memcpy(out + n, val + i, end - i);
		n += end - i;
		out[n++] = '\n';
		out[n] = '\0';
		r->n_pieces++;
		first = false;
		i = end;
		while (i < vlen && (val[i] == ' ' || val[i] == '\t')) {
			i++;
		}
	} while (i < vlen);
	return true;
}

static void free_pieces(struct reader *r) {
	free(r->pieces);
	r->pieces = NULL;
	r->n_pieces = r->next_piece = 0;
}

/* Turns the next physical line into pieces; returns false at the end. */
static bool next_line(struct reader *r) {
	if (r->pos >= r->len) {
		return false;
	}
	if (r->syntax_errors >= MAX_SYNTAX_ERRORS) {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line,
				"stopped reading after %d lines that are not INI; is this a seat map? "
				"(see seats.ini(5))", MAX_SYNTAX_ERRORS);
		return false;
	}
	const char *s = r->text + r->pos;
	const char *nl = memchr(s, '\n', r->len - r->pos);
	size_t len = nl ? (size_t)(nl - s) : r->len - r->pos;
	r->pos += len + (nl != NULL);
	r->line++;
	r->continuing = false;

	if (r->line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
		s += 3;
		len -= 3;
	}
	if (len > INI_DOC_MAX_LINE) {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line,
				"line is %zu bytes long; a line may be at most %d bytes "
				"(continue a long value on the next lines, each indented)",
				len, INI_DOC_MAX_LINE);
		return true;
	}
	len = rtrim(s, strip_comment(s, len));
	size_t indent = 0;
	while (indent < len && (s[indent] == ' ' || s[indent] == '\t')) {
		indent++;
	}
	const char *body = s + indent;
	size_t blen = len - indent;
	if (blen == 0) {
		return true;
	}

	if (body[0] == '[') {
		r->have_key = false;
		if (body[blen - 1] != ']') {
			diag_add(r->diags, DIAG_ERROR, r->name, r->line,
					"section header has no closing ']'; write e.g. [seat:lab-1]");
			r->in_bad_section = true;
			return true;
		}
		const char *name = body + 1;
		size_t nlen = blen - 2;
		while (nlen > 0 && isspace((unsigned char)*name)) {
			name++;
			nlen--;
		}
		nlen = rtrim(name, nlen);
		if (!valid_section_name(name, nlen)) {
			diag_add(r->diags, DIAG_ERROR, r->name, r->line,
					"'[%.*s]' is not a section header; write [general], [seat:*] "
					"or [seat:NAME]", (int)(nlen > 80 ? 80 : nlen), name);
			r->in_bad_section = true;
			return true;
		}
		r->in_bad_section = false;
		add_section(r, name, nlen);
		return true;
	}

	/* An indented line continues the last key, unless it is a key line itself. */
	size_t k = 0;
	while (k < blen && valid_key_char(body[k])) {
		k++;
	}
	size_t eq = k;
	while (eq < blen && (body[eq] == ' ' || body[eq] == '\t')) {
		eq++;
	}
	bool key_line = k > 0 && eq < blen && body[eq] == '=';
	if (r->in_bad_section) {
		return true;
	}
	if (!key_line && indent > 0 && r->have_key) {
		if (!queue_value(r, NULL, 0, body, blen, true)) {
			diag_add(r->diags, DIAG_ERROR, r->name, r->line,
					"a word on this line is longer than %d bytes", PIECE);
		}
		return true;
	}
	if (!key_line) {
		const char *eqp = memchr(body, '=', blen);
		if (eqp != NULL) {
			size_t shown = (size_t)(eqp - body);
			shown = rtrim(body, shown > 60 ? 60 : shown);
			diag_add(r->diags, DIAG_ERROR, r->name, r->line,
					"'%.*s' is not a key name; keys are letters, digits, '_' and '-', "
					"as in 'restart = always'", (int)shown, body);
		} else {
			diag_add(r->diags, DIAG_ERROR, r->name, r->line,
					"'%.*s%s' is neither a section header nor a setting; write "
					"[section] or key = value", (int)(blen > 60 ? 60 : blen), body,
					blen > 60 ? "..." : "");
		}
		r->syntax_errors++;
		return true;
	}
	if (current_section(r) == NULL) {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line,
				"'%.*s' comes before any section; put it under [general] or a [seat:NAME]",
				(int)k, body);
		return true;
	}
	if (k > 48) {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line, "key '%.*s...' is too long to be a key",
				40, body);
		return true;
	}
	const char *val = body + eq + 1;
	size_t vlen = blen - eq - 1;
	while (vlen > 0 && (*val == ' ' || *val == '\t')) {
		val++;
		vlen--;
	}
	r->have_key = true;
	if (!queue_value(r, body, k, val, vlen, false)) {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line,
				"a word on this line is longer than %d bytes", PIECE);
	}
	return true;
}

static char *reader_fn(char *str, int num, void *stream) {
	struct reader *r = stream;
	while (r->next_piece >= r->n_pieces) {
		free_pieces(r);
		if (!next_line(r)) {
			return NULL;
		}
		if (r->n_pieces == 0) {
			/* Nothing for inih on this line; keep its line count in step. */
			if (num < 2) {
				return NULL;
			}
			str[0] = '\n';
			str[1] = '\0';
			return str;
		}
	}
	const char *piece = r->pieces + r->next_piece * 200;
	r->continuing = r->next_piece > 0 || piece[0] == ' ';
	r->next_piece++;
	size_t n = strlen(piece);
	if ((size_t)num <= n) {
		/* Cannot happen with inih's 200-byte buffer and PIECE; fail loudly. */
		abort();
	}
	memcpy(str, piece, n + 1);
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
	struct reader *r = user;
	(void)section; /* ours is the same, and keeps its line and its spelling */
	struct ini_section *sec = current_section(r);
	if (sec == NULL) {
		return 1;
	}
	if (r->continuing && sec->n_entries > 0) {
		struct ini_entry *e = &sec->entries[sec->n_entries - 1];
		size_t old = strlen(e->value), add = strlen(value);
		char *joined = xmalloc(old + add + 2);
		memcpy(joined, e->value, old);
		size_t n = old;
		if (old > 0 && add > 0) {
			joined[n++] = ' ';
		}
		memcpy(joined + n, value, add + 1);
		free(e->value);
		e->value = joined;
		return 1;
	}
	if (sec->n_entries == sec->cap) {
		sec->cap = sec->cap ? sec->cap * 2 : 8;
		sec->entries = realloc(sec->entries, sec->cap * sizeof(*sec->entries));
		if (sec->entries == NULL) {
			abort();
		}
	}
	sec->entries[sec->n_entries++] = (struct ini_entry){
		.key = xstrndup(name, strlen(name)),
		.value = xstrndup(value, strlen(value)),
		.line = r->line,
	};
	return 1;
}

/* A seat map is text: a control byte means a binary or corrupt file. */
static bool check_text(const char *name, const char *text, size_t len, struct diag_list *diags) {
	int line = 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n') {
			line++;
		} else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
			diag_add(diags, DIAG_ERROR, name, line,
					"byte 0x%02x is not text: this is not a seat map (a binary file?); "
					"point --config at an INI file such as seats.ini.example", c);
			return false;
		}
	}
	return true;
}

void ini_doc_parse(const char *name, const char *text, size_t len, struct ini_doc *doc,
		struct diag_list *diags) {
	*doc = (struct ini_doc){0};
	if (len > INI_DOC_MAX_FILE) {
		diag_add(diags, DIAG_ERROR, name, 0, "file is %zu bytes; a seat map is at most %d MiB",
				len, INI_DOC_MAX_FILE / (1024 * 1024));
		return;
	}
	if (!check_text(name, text, len, diags)) {
		return;
	}
	struct reader r = {
		.name = name,
		.text = text,
		.len = len,
		.diags = diags,
		.doc = doc,
	};
	/* Every malformed line was turned into a diagnostic and a blank line, so
	 * inih's own error return has nothing left to report. */
	ini_parse_stream(reader_fn, &r, handler, &r);
	free_pieces(&r);
}

void ini_doc_finish(struct ini_doc *doc) {
	for (size_t i = 0; i < doc->n_sections; i++) {
		struct ini_section *s = &doc->sections[i];
		for (size_t j = 0; j < s->n_entries; j++) {
			free(s->entries[j].key);
			free(s->entries[j].value);
		}
		free(s->entries);
		free(s->name);
	}
	free(doc->sections);
	*doc = (struct ini_doc){0};
}
