#include <ctype.h>
#include <ini.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ini-doc.h"
#include "xalloc.h"

/*
 * inih does the key/value parsing and the continuation lines, but knows
 * nothing of quotes or '#' comments, and Debian builds it with a fixed line
 * buffer. So this reader hands it the file one physical line per call, after
 * checking the line's shape itself: a comment is stripped, a key line loses
 * its indentation (inih would take it for a continuation), and a malformed
 * line becomes an error of ours and a blank line for inih, so that every
 * problem is reported with its own line number. What inih gets is never
 * longer than the line in the file, and a line longer than inih's buffer is
 * an error naming it, not a truncated value.
 */

struct reader {
	const char *name;
	const char *text;
	size_t len, pos;
	int line;
	struct diag_list *diags;
	struct ini_doc *doc;

	bool in_bad_section;
	bool have_key; /* a key line was seen in this section: continuations may follow */
	bool continuing; /* the line inih has now continues the last entry */
	bool dropped; /* a line was refused: so are its continuations, quietly */
	size_t value_len, value_cap; /* of the last entry's value, for continuations */
	int syntax_errors;
};

/* Past this many malformed lines the file is not a seat map at all. */
#define MAX_SYNTAX_ERRORS 10

static bool valid_key_char(char c) {
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Strips a comment: # or ; at the start or after a blank (as inih counts
 * blanks, so that it finds no comment of its own). A backslash before it
 * keeps it as text. */
static size_t strip_comment(const char *s, size_t len) {
	for (size_t i = 0; i < len; i++) {
		if ((s[i] == '#' || s[i] == ';') && (i == 0 || isspace((unsigned char)s[i - 1]))) {
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
		doc->sections = xrealloc(doc->sections, doc->cap * sizeof(*doc->sections));
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

/* The next physical line, without its newline (and the BOM on line 1);
 * false at the end, or when the file is plainly not a seat map. */
static bool take_line(struct reader *r, const char **line, size_t *len) {
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
	size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
	r->pos += n + (nl != NULL);
	r->line++;
	if (r->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
		s += 3;
		n -= 3;
	}
	*line = s;
	*len = n;
	return true;
}

/* A section header, body[0] == '['. Returns how much of body inih gets. */
static size_t section_line(struct reader *r, const char *body, size_t blen) {
	r->have_key = false;
	r->dropped = false;
	if (body[blen - 1] != ']') {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line,
				"section header has no closing ']'; write e.g. [seat:lab-1]");
		r->in_bad_section = true;
		return 0;
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
		return 0;
	}
	r->in_bad_section = false;
	add_section(r, name, nlen);
	return blen;
}

static void not_a_setting(struct reader *r, const char *body, size_t blen) {
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
	r->have_key = false;
	r->dropped = true;
}

/* A line that is not a section header: a key line, a continuation or an
 * error. Returns how much of it inih gets: the key line without its
 * indentation, or the continuation with one blank of it. */
static size_t setting_line(struct reader *r, const char *body, size_t blen, bool indented) {
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
		return 0;
	}
	/* An indented line continues the last key, unless it is a key line itself. */
	if (!key_line && indented && (r->have_key || r->dropped)) {
		r->continuing = !r->dropped;
		return r->continuing ? blen + 1 : 0;
	}
	if (!key_line) {
		not_a_setting(r, body, blen);
		return 0;
	}
	r->have_key = false;
	r->dropped = true;
	if (current_section(r) == NULL) {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line,
				"'%.*s' comes before any section; put it under [general] or a [seat:NAME]",
				(int)k, body);
		return 0;
	}
	if (k > INI_DOC_MAX_KEY) {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line, "key '%.*s...' is too long to be a key",
				40, body);
		return 0;
	}
	r->have_key = true;
	r->dropped = false;
	return blen;
}

/* What inih may read from a line of num bytes: inih's own rule is three
 * bytes for "\r\n" and the terminator. */
static size_t line_limit(int num) {
	size_t room = num > 3 ? (size_t)num - 3 : 0;
	return room < INI_DOC_MAX_LINE ? room : INI_DOC_MAX_LINE;
}

/* Checks one physical line and writes what inih is to parse of it to out,
 * which has room for its length and a terminator. */
static void shape_line(struct reader *r, const char *s, size_t len, char *out) {
	len = rtrim(s, strip_comment(s, len));
	size_t indent = 0;
	while (indent < len && (s[indent] == ' ' || s[indent] == '\t')) {
		indent++;
	}
	const char *body = s + indent;
	size_t blen = len - indent;
	size_t n = 0;
	if (blen > 0 && body[0] == '[') {
		n = section_line(r, body, blen);
		memcpy(out, body, n);
	} else if (blen > 0) {
		n = setting_line(r, body, blen, indent > 0);
		if (r->continuing) {
			out[0] = ' ';
			memcpy(out + 1, body, blen);
		} else {
			memcpy(out, body, n);
		}
	}
	out[n] = '\0';
}

static char *reader_fn(char *str, int num, void *stream) {
	struct reader *r = stream;
	const char *s;
	size_t len;
	if (num < 1 || !take_line(r, &s, &len)) {
		return NULL;
	}
	r->continuing = false;
	size_t limit = line_limit(num);
	if (len > limit) {
		diag_add(r->diags, DIAG_ERROR, r->name, r->line,
				"line is %zu bytes long; a line may be at most %zu bytes "
				"(continue a long value on the next lines, each indented)", len, limit);
		r->dropped = true;
		str[0] = '\0';
	} else {
		shape_line(r, s, len, str);
	}
	return str;
}

/* Appends a continuation to the last entry's value, one blank between;
 * the buffer doubles, so a long value costs linear time. */
static void continue_value(struct reader *r, struct ini_entry *e, const char *value) {
	size_t add = strlen(value);
	if (add == 0) {
		return;
	}
	size_t need = r->value_len + (r->value_len > 0) + add + 1;
	if (need > r->value_cap) {
		r->value_cap = need > 2 * r->value_cap ? need : 2 * r->value_cap;
		e->value = xrealloc(e->value, r->value_cap);
	}
	if (r->value_len > 0) {
		e->value[r->value_len++] = ' ';
	}
	memcpy(e->value + r->value_len, value, add + 1);
	r->value_len += add;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
	struct reader *r = user;
	/* section is ours too (current_section), with its line and spelling. */
	struct ini_section *sec = current_section(r);
	if (sec == NULL) {
		return 1;
	}
	if (r->continuing && sec->n_entries > 0) {
		continue_value(r, &sec->entries[sec->n_entries - 1], value);
		return 1;
	}
	if (sec->n_entries == sec->cap) {
		sec->cap = sec->cap ? sec->cap * 2 : 8;
		sec->entries = xrealloc(sec->entries, sec->cap * sizeof(*sec->entries));
	}
	r->value_len = strlen(value);
	r->value_cap = r->value_len + 1;
	sec->entries[sec->n_entries++] = (struct ini_entry){
		.key = xstrndup(name, strlen(name)),
		.value = xstrndup(value, r->value_len),
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
#if HAVE_INI_MAX_LINE_VAR
	/* Debian's inih sizes its line buffer by this variable: room for the
	 * longest line seats.ini(5) allows. */
	int saved_max_line = ini_max_line;
	ini_max_line = INI_DOC_MAX_LINE + 3;
#endif
	/* Every malformed line was turned into a diagnostic and a blank line, so
	 * inih's own error return has nothing left to report. */
	ini_parse_stream(reader_fn, &r, handler, &r);
#if HAVE_INI_MAX_LINE_VAR
	ini_max_line = saved_max_line;
#endif
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
