#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syntax-common.h"
#include "udev-syntax.h"

static void token_finish(struct udev_token *t) {
	free(t->key);
	free(t->attr);
	free(t->value);
}

static bool is_key_char(char c) {
	return (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_attr_char(char c) {
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			c == '_' || c == '-' || c == '.';
}

/* The operator at p, as udevd's parse_operator reads it; its length, or 0. */
static size_t parse_op(const char *p, char op[3]) {
	static const char *const ops[] = {"==", "!=", "+=", "-=", ":="};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strncmp(p, ops[i], 2) == 0) {
			memcpy(op, ops[i], 3);
			return 2;
		}
	}
	if (p[0] == '=') {
		memcpy(op, "=", 2);
		return 1;
	}
	return 0;
}

/* A "..." value at *p, unescaped as udevd does (only \" is an escape);
 * *p moves past the closing quote. */
static bool parse_value(const char **p, char **value, char *err, size_t errlen) {
	const char *s = *p;
	if (s[0] != '"') {
		return syntax_refuse(err, errlen, "a value must start with '\"' (no e\"\" or i\"\" prefix): %.40s",
				s);
	}
	s++;
	size_t cap = strlen(s) + 1, n = 0;
	char *out = malloc(cap);
	if (out == NULL) {
		abort();
	}
	for (; *s != '"'; s++) {
		if (*s == '\0') {
			free(out);
			return syntax_refuse(err, errlen, "unterminated value");
		}
		if (s[0] == '\\' && s[1] == '"') {
			s++;
		}
		out[n++] = *s;
	}
	out[n] = '\0';
	*value = out;
	*p = s + 1;
	return true;
}

/* One KEY[{ATTR}]OP"VALUE" at *p; *p moves past it. */
static bool parse_token(const char **p, struct udev_token *t, char *err, size_t errlen) {
	const char *s = *p, *k = s;
	*t = (struct udev_token){0};
	while (is_key_char(*s)) {
		s++;
	}
	if (s == k) {
		return syntax_refuse(err, errlen, "a token must start with a key: %.40s", k);
	}
	t->key = syntax_dup(k, (size_t)(s - k));
	if (*s == '{') {
		const char *a = ++s;
		while (is_attr_char(*s)) {
			s++;
		}
		if (*s != '}' || s == a) {
			token_finish(t);
			return syntax_refuse(err, errlen, "a bad {attribute} after %s", k);
		}
		t->attr = syntax_dup(a, (size_t)(s - a));
		s++;
	}
	size_t oplen = parse_op(s, t->op);
	if (oplen == 0) {
		token_finish(t);
		return syntax_refuse(err, errlen, "no operator after key: %.40s", k);
	}
	s += oplen;
	if (!parse_value(&s, &t->value, err, errlen)) {
		token_finish(t);
		return false;
	}
	*p = s;
	return true;
}

static void line_finish(struct udev_line *l) {
	for (size_t i = 0; i < l->n_tokens; i++) {
		token_finish(&l->tokens[i]);
	}
	free(l->tokens);
}

/* One rule line (no '\n' in it, not a comment): tokens joined by ", ". */
static bool parse_line(const char *line, struct udev_line *out, char *err, size_t errlen) {
	*out = (struct udev_line){0};
	const char *p = line;
	for (;;) {
		struct udev_token t;
		if (!parse_token(&p, &t, err, errlen)) {
			line_finish(out);
			return false;
		}
		out->tokens = realloc(out->tokens, (out->n_tokens + 1) * sizeof(*out->tokens));
		if (out->tokens == NULL) {
			abort();
		}
		out->tokens[out->n_tokens++] = t;
		if (*p == '\0') {
			return true;
		}
		if (strncmp(p, ", ", 2) != 0) {
			line_finish(out);
			return syntax_refuse(err, errlen, "tokens must be separated by \", \": %.40s", p);
		}
		p += 2;
	}
}

/* Whether line (without its '\n') is one udevd reads as written. */
static bool line_plain(const char *line, size_t len, char *err, size_t errlen) {
	if (len + 1 >= UDEV_LINE_SIZE) {
		return syntax_refuse(err, errlen, "a line of %zu bytes (udevd reads less than %d)", len,
				UDEV_LINE_SIZE);
	}
	if (memchr(line, '\r', len) != NULL) {
		return syntax_refuse(err, errlen, "a carriage return ends a line for udevd");
	}
	if (len > 0 && line[len - 1] == '\\') {
		return syntax_refuse(err, errlen, "a line ending in '\\' continues on the next");
	}
	return true;
}

int udev_parse_text(const char *text, struct udev_line **lines, char *err, size_t errlen) {
	*lines = NULL;
	struct udev_line *out = NULL;
	size_t n = 0;
	for (const char *p = text; *p != '\0';) {
		const char *end = strchr(p, '\n');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
		char *line = syntax_dup(p, len);
		p += len + (end != NULL);
		bool ok = line_plain(line, len, err, errlen);
		const char *start = line + strspn(line, " \t");
		if (ok && *start != '\0' && *start != '#') {
			if (start != line) {
				ok = syntax_refuse(err, errlen, "a rule line starts with a blank");
			} else {
				out = realloc(out, (n + 1) * sizeof(*out));
				if (out == NULL) {
					abort();
				}
				ok = parse_line(line, &out[n], err, errlen);
				n += ok;
			}
		}
		free(line);
		if (!ok) {
			udev_lines_free(out, n);
			return -1;
		}
	}
	*lines = out;
	return (int)n;
}

void udev_lines_free(struct udev_line *lines, size_t n) {
	for (size_t i = 0; i < n; i++) {
		line_finish(&lines[i]);
	}
	free(lines);
}
