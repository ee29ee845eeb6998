#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syntax-common.h"
#include "xorg-syntax.h"

static void *grow(void *array, size_t n, size_t size) {
	void *p = realloc(array, (n + 1) * size);
	if (p == NULL) {
		abort();
	}
	return p;
}

/* The tokens of one line (Xorg's lexer ends a line at '\n' or '\r'). */
enum tok_kind { TOK_WORD, TOK_STRING };

struct line_tokens {
	enum tok_kind kind[4];
	char *text[4];
	size_t n;
	char *comment; /* NULL when the line has none */
};

static void tokens_finish(struct line_tokens *t) {
	for (size_t i = 0; i < t->n; i++) {
		free(t->text[i]);
	}
	free(t->comment);
}

/* Lexes line (len bytes, no line end in it) as scan.c does. */
static bool lex_line(const char *line, size_t len, struct line_tokens *t, char *err,
		size_t errlen) {
	*t = (struct line_tokens){0};
	size_t i = 0;
	for (;;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t')) {
			i++;
		}
		if (i == len) {
			return true;
		}
		if (line[i] == '#') {
			t->comment = syntax_dup(line + i + 1, len - i - 1);
			return true;
		}
		if (t->n == 4) {
			tokens_finish(t);
			return syntax_refuse(err, errlen, "more than 4 tokens on a line");
		}
		size_t start = i;
		if (line[i] == '"') {
			const char *q = memchr(line + i + 1, '"', len - i - 1);
			if (q == NULL) {
				tokens_finish(t);
				return syntax_refuse(err, errlen, "a string not closed on its line: %.60s", line);
			}
			t->kind[t->n] = TOK_STRING;
			t->text[t->n++] = syntax_dup(line + start + 1, (size_t)(q - line) - start - 1);
			i = (size_t)(q - line) + 1;
			continue;
		}
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '#') {
			if (!isalpha((unsigned char)line[i])) {
				tokens_finish(t);
				return syntax_refuse(err, errlen, "not a keyword (letters only): %.60s", line);
			}
			i++;
		}
		t->kind[t->n] = TOK_WORD;
		t->text[t->n++] = syntax_dup(line + start, i - start);
	}
}

static void section_finish(struct xorg_section *s) {
	for (size_t i = 0; i < s->n_entries; i++) {
		struct xorg_entry *e = &s->entries[i];
		free(e->keyword);
		for (size_t a = 0; a < e->n_args; a++) {
			free(e->args[a]);
		}
	}
	free(s->entries);
	free(s->name);
}

void xorg_conf_finish(struct xorg_conf *conf) {
	for (size_t i = 0; i < conf->n_sections; i++) {
		section_finish(&conf->sections[i]);
	}
	free(conf->sections);
	for (size_t i = 0; i < conf->n_comments; i++) {
		free(conf->comments[i]);
	}
	free(conf->comments);
	*conf = (struct xorg_conf){0};
}

static bool is_word(const struct line_tokens *t, size_t i, const char *word) {
	return t->kind[i] == TOK_WORD && strcasecmp(t->text[i], word) == 0;
}

/* One line's tokens into conf; *open is the section being read, or NULL. */
static bool take_line(struct xorg_conf *conf, struct line_tokens *t,
		struct xorg_section **open, char *err, size_t errlen) {
	if (t->n == 0) {
		return true;
	}
	if (t->kind[0] != TOK_WORD) {
		return syntax_refuse(err, errlen, "a line starts with a string: \"%.60s\"", t->text[0]);
	}
	if (is_word(t, 0, "Section")) {
		if (*open != NULL || t->n != 2 || t->kind[1] != TOK_STRING) {
			return syntax_refuse(err, errlen, "a bad Section line");
		}
		conf->sections = grow(conf->sections, conf->n_sections, sizeof(*conf->sections));
		*open = &conf->sections[conf->n_sections++];
		**open = (struct xorg_section){.name = t->text[1]};
		t->text[1] = NULL;
		return true;
	}
	if (is_word(t, 0, "EndSection")) {
		if (*open == NULL || t->n != 1) {
			return syntax_refuse(err, errlen, "a bad EndSection line");
		}
		*open = NULL;
		return true;
	}
	if (*open == NULL || t->n < 2 || t->n > 3 || t->kind[1] != TOK_STRING ||
			(t->n == 3 && t->kind[2] != TOK_STRING)) {
		return syntax_refuse(err, errlen, "not KEYWORD \"STRING\" [\"STRING\"] in a section: %s",
				t->text[0]);
	}
	struct xorg_section *s = *open;
	s->entries = grow(s->entries, s->n_entries, sizeof(*s->entries));
	struct xorg_entry *e = &s->entries[s->n_entries++];
	*e = (struct xorg_entry){.keyword = t->text[0], .n_args = t->n - 1};
	for (size_t a = 1; a < t->n; a++) {
		e->args[a - 1] = t->text[a];
		t->text[a] = NULL;
	}
	t->text[0] = NULL;
	return true;
}

bool xorg_parse_text(const char *text, struct xorg_conf *out, char *err, size_t errlen) {
	*out = (struct xorg_conf){0};
	struct xorg_section *open = NULL;
	for (const char *p = text; *p != '\0';) {
		size_t len = strcspn(p, "\n\r");
		struct line_tokens t;
		bool lexed = lex_line(p, len, &t, err, errlen), ok = lexed;
		if (ok && t.comment != NULL) {
			out->comments = grow(out->comments, out->n_comments, sizeof(char *));
			out->comments[out->n_comments++] = t.comment;
			t.comment = NULL;
		}
		ok = ok && take_line(out, &t, &open, err, errlen);
		if (lexed) {
			tokens_finish(&t);
		}
		if (!ok) {
			xorg_conf_finish(out);
			return false;
		}
		p += len + (p[len] != '\0');
	}
	if (open != NULL) {
		xorg_conf_finish(out);
		return syntax_refuse(err, errlen, "a section without EndSection");
	}
	return true;
}

static const char *skip_ignored(const char *s) {
	while (*s == '_' || *s == ' ' || *s == '\t') {
		s++;
	}
	return s;
}

bool xorg_name_equal(const char *a, const char *b) {
	if (*a == '\0' || *b == '\0') {
		return *a == *b; /* as Xorg: only "" equals "" */
	}
	for (;;) {
		a = skip_ignored(a);
		b = skip_ignored(b);
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
			return false;
		}
		if (*a == '\0') {
			return true;
		}
		a++;
		b++;
	}
}

const char *xorg_option(const struct xorg_section *section, const char *name) {
	for (size_t i = 0; i < section->n_entries; i++) {
		const struct xorg_entry *e = &section->entries[i];
		if (strcasecmp(e->keyword, "Option") == 0 && xorg_name_equal(e->args[0], name)) {
			return e->n_args == 2 ? e->args[1] : NULL;
		}
	}
	return NULL;
}
