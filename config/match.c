#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "match.h"
#include "xalloc.h"

static const char *const prefixes[] = {
	[MATCH_PATH] = "path",
	[MATCH_SYSFS] = "sysfs",
	[MATCH_NAME] = "name",
	[MATCH_USB] = "usb",
	[MATCH_NODE] = "node",
};

const char *match_kind_prefix(enum match_kind kind) {
	return prefixes[kind];
}

static bool parse_hex4(const char *s, uint16_t *out) {
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
		v = v * 16 + (unsigned)(isdigit((unsigned char)s[i]) ? s[i] - '0'
				: tolower((unsigned char)s[i]) - 'a' + 10);
	}
	*out = (uint16_t)v;
	return true;
}

/* An ID_PATH's first part always has a dash (pci-0000:...); a bare word
 * before the colon is a misspelt prefix, not a path: says so in err. */
static bool misspelt_prefix(const char *word, size_t plen, char *err, size_t errlen) {
	bool word_like = plen > 0 && plen <= 16;
	for (size_t i = 0; i < plen && word_like; i++) {
		word_like = isalpha((unsigned char)word[i]);
	}
	if (!word_like) {
		return false;
	}
	char prefix[17];
	memcpy(prefix, word, plen);
	prefix[plen] = '\0';
	const char *const candidates[] = {"path", "sysfs", "name", "usb", "node", NULL};
	const char *hint = diag_suggest(prefix, candidates);
	if (hint != NULL) {
		snprintf(err, errlen, "unknown match '%s:'; did you mean '%s:'?", prefix, hint);
	} else {
		snprintf(err, errlen, "unknown match '%s:'; use path:, sysfs:, name:, usb: or node:",
				prefix);
	}
	return true;
}

bool input_match_parse(const char *word, struct input_match *out, char *err, size_t errlen) {
	*out = (struct input_match){.kind = MATCH_PATH};
	const char *value = word;
	const char *colon = strchr(word, ':');
	bool prefixed = false;
	if (colon != NULL) {
		size_t plen = (size_t)(colon - word);
		for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
			if (strlen(prefixes[k]) == plen && strncmp(word, prefixes[k], plen) == 0) {
				out->kind = (enum match_kind)k;
				value = colon + 1;
				prefixed = true;
				break;
			}
		}
		if (!prefixed && misspelt_prefix(word, plen, err, errlen)) {
			return false;
		}
	}
	if (*value == '\0') {
		snprintf(err, errlen, "'%s' matches nothing; write what to match after the colon, "
				"e.g. %s:%s", word, prefixes[out->kind],
				out->kind == MATCH_USB ? "046d:c31c" : out->kind == MATCH_NODE
				? "/dev/input/by-id/..." : out->kind == MATCH_SYSFS
				? "/sys/devices/..." : "...");
		return false;
	}
	switch (out->kind) {
	case MATCH_USB:
		if (strlen(value) != 9 || value[4] != ':' || !parse_hex4(value, &out->vendor) ||
				!parse_hex4(value + 5, &out->product)) {
			snprintf(err, errlen, "'%s' is not a USB id; write usb:VVVV:PPPP with four hex "
					"digits each, as lsusb shows them (e.g. usb:046d:c31c)", word);
			return false;
		}
		break;
	case MATCH_SYSFS:
		if (strncmp(value, "/sys/", 5) != 0) {
			snprintf(err, errlen, "'%s' is not a sysfs path; write the full path, starting "
					"with /sys/ (e.g. sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1)",
					word);
			return false;
		}
		break;
	case MATCH_NODE:
		if (value[0] != '/') {
			snprintf(err, errlen, "'%s' is not an absolute path; write e.g. "
					"node:/dev/input/by-id/usb-Logitech_USB_Keyboard-event-kbd", word);
			return false;
		}
		break;
	case MATCH_PATH:
	case MATCH_NAME:
		break;
	}
	out->pattern = xstrdup(value);
	/* A sysfs prefix names a directory; a trailing slash would stop it matching itself. */
	size_t len = strlen(out->pattern);
	while (out->kind == MATCH_SYSFS && len > 5 && out->pattern[len - 1] == '/') {
		out->pattern[--len] = '\0';
	}
	if (!input_match_check(out, err, errlen)) {
		input_match_finish(out);
		return false;
	}
	return true;
}

bool input_match_check(const struct input_match *match, char *err, size_t errlen) {
	if (match->kind == MATCH_USB) {
		return true; /* four hex digits each, nothing else */
	}
	/* A rules file value is a "..." string in which udev reads \" as a quote
	 * and keeps other backslashes, which fnmatch() then reads as ours does
	 * not; a control character has no place in a device's properties. */
	for (const char *c = match->pattern; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20 || *c == 0x7f) {
			char *text = input_match_format(match);
			snprintf(err, errlen, "%s: a match may not hold a double quote, a backslash or "
					"a control character (udev's rules cannot say them as seatd-lease "
					"reads them); in a path: or name: pattern, write ? in place of one",
					text);
			free(text);
			return false;
		}
	}
	const char *udev_reads = match->kind == MATCH_SYSFS || match->kind == MATCH_NODE
		? "|*?[" : "|";
	const char *c = strpbrk(match->pattern, udev_reads);
	if (c != NULL) {
		char *text = input_match_format(match);
		if (*c == '|') {
			snprintf(err, errlen, "%s: udev reads '|' as 'or', seatd-lease as a plain "
					"character; give each alternative its own match (e.g. name:A name:B)",
					text);
		} else {
			snprintf(err, errlen, "%s: a %s: path is compared as written, but udev would "
					"read '%c' as a pattern; write the path itself (path: and name: take "
					"patterns)", text, match_kind_prefix(match->kind), *c);
		}
		free(text);
		return false;
	}
	return true;
}

/* As udev's ATTRS{name}: the value's trailing blanks do not count, unless
 * the pattern ends with one. */
static bool name_matches(const char *pattern, const char *name) {
	size_t plen = strlen(pattern), len = strlen(name), trimmed = len;
	while (trimmed > 0 && strchr(" \t\n\r", name[trimmed - 1]) != NULL) {
		trimmed--;
	}
	if (trimmed == len || (plen > 0 && isspace((unsigned char)pattern[plen - 1]))) {
		return fnmatch(pattern, name, 0) == 0;
	}
	char *copy = xstrndup(name, trimmed);
	bool match = fnmatch(pattern, copy, 0) == 0;
	free(copy);
	return match;
}

bool input_match_test(const struct input_match *match, const struct input_device *dev) {
	switch (match->kind) {
	case MATCH_PATH:
		return dev->id_path != NULL && fnmatch(match->pattern, dev->id_path, 0) == 0;
	case MATCH_NAME:
		return dev->name != NULL && name_matches(match->pattern, dev->name);
	case MATCH_USB:
		for (size_t i = 0; i < dev->n_usb_ids; i++) {
			if (dev->usb_ids[i].vendor == match->vendor &&
					dev->usb_ids[i].product == match->product) {
				return true;
			}
		}
		return false;
	case MATCH_SYSFS: {
		if (dev->syspath == NULL) {
			return false;
		}
		size_t len = strlen(match->pattern);
		/* Below the prefix means the next character starts a new path
		 * component: port 1-1 must not take devices on port 1-10. */
		return strncmp(dev->syspath, match->pattern, len) == 0 &&
				(dev->syspath[len] == '\0' || dev->syspath[len] == '/');
	}
	case MATCH_NODE:
		if (dev->devnode != NULL && strcmp(dev->devnode, match->pattern) == 0) {
			return true;
		}
		for (const char *const *l = dev->devlinks; l != NULL && *l != NULL; l++) {
			if (strcmp(*l, match->pattern) == 0) {
				return true;
			}
		}
		return false;
	}
	return false;
}

/* The length of the PCI address "DDDD:BB:SS.F" at s (udev writes its hex
 * digits in lower case), or 0. */
static size_t pci_address_len(const char *s) {
	static const char form[] = "xxxx:xx:xx.x";
	size_t i = 0;
	for (; form[i] != '\0'; i++) {
		bool ok = form[i] == 'x' ? isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f')
				: s[i] == form[i];
		if (!ok) {
			return 0;
		}
	}
	return i;
}

bool input_match_root(const struct input_match *match, char *root, size_t len) {
	const char *p = match->pattern;
	int n = -1;
	if (match->kind == MATCH_SYSFS) {
		n = snprintf(root, len, "%s", p);
	} else if (match->kind == MATCH_PATH && strncmp(p, "pci-", 4) == 0) {
		size_t a = pci_address_len(p + 4);
		/* After the address, the next component or the end: anything else
		 * (a wildcard) could make it another address. */
		if (a > 0 && (p[4 + a] == '-' || p[4 + a] == '\0')) {
			n = snprintf(root, len, "/sys/bus/pci/devices/%.*s", (int)a, p + 4);
		}
	}
	return n > 0 && (size_t)n < len;
}

char *input_match_format(const struct input_match *match) {
	const char *p = match->pattern;
	bool quote = false;
	size_t extra = 0;
	for (const char *c = p; *c != '\0'; c++) {
		quote |= *c == ' ' || *c == '\t' || *c == '"' || *c == '\'' || *c == '\\' ||
			*c == '#' || *c == ';';
		/* In a value, '#' and ';' after a blank start a comment, quoted or
		 * not: a backslash keeps them (seats.ini(5)). */
		extra += *c == '"' || *c == '\\' || *c == '#' || *c == ';';
	}
	size_t len = strlen(match_kind_prefix(match->kind)) + 1 + strlen(p) + extra + 3;
	char *out = xrealloc(NULL, len);
	char *o = out + sprintf(out, "%s:", match_kind_prefix(match->kind));
	if (quote) {
		*o++ = '"';
	}
	for (const char *c = p; *c != '\0'; c++) {
		if (quote && (*c == '"' || *c == '\\' || *c == '#' || *c == ';')) {
			*o++ = '\\';
		}
		*o++ = *c;
	}
	if (quote) {
		*o++ = '"';
	}
	*o = '\0';
	return out;
}

bool input_match_equal(const struct input_match *a, const struct input_match *b) {
	if (a->kind != b->kind) {
		return false;
	}
	if (a->kind == MATCH_USB) {
		return a->vendor == b->vendor && a->product == b->product;
	}
	return strcmp(a->pattern, b->pattern) == 0;
}

struct input_match input_match_copy(const struct input_match *match) {
	struct input_match copy = *match;
	copy.pattern = match->pattern != NULL ? xstrdup(match->pattern) : NULL;
	return copy;
}

void input_match_finish(struct input_match *match) {
	free(match->pattern);
	match->pattern = NULL;
}

void input_overlap_format(char *buf, size_t len, const char *name, const char *node,
		const char *const *seats, size_t n_seats) {
	char list[512] = "";
	size_t used = 0;
	for (size_t i = 0; i < n_seats && used < sizeof(list); i++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s", i > 0 ? " and " : "",
				seats[i]);
		used += n > 0 ? (size_t)n : 0;
	}
	snprintf(buf, len, "input device %s (%s) is matched by seats %s; a device belongs to "
			"one seat: make their inputs tell it apart", name != NULL ? name : "?",
			node != NULL ? node : "?", list);
}
