#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "handout-wire.h"

/* A name of words' characters: what a seat's section name may hold. */
static bool seat_name_ok(const char *s, size_t len) {
	if (len == 0) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == 0x7f) {
			return false;
		}
	}
	return true;
}

bool handout_parse_request(const char *buf, size_t len, char *seat, size_t seatlen) {
	static const char verb[] = "lease ";
	size_t vlen = sizeof(verb) - 1;
	if (len < vlen + 2 || memcmp(buf, verb, vlen) != 0 || buf[len - 1] != '\n') {
		return false;
	}
	const char *name = buf + vlen;
	size_t nlen = len - vlen - 1;
	if (!seat_name_ok(name, nlen) || nlen >= seatlen) {
		return false;
	}
	memcpy(seat, name, nlen);
	seat[nlen] = '\0';
	return true;
}

bool handout_parse_reply(const char *buf, size_t len, int *status, const char **text,
		size_t *textlen) {
	const char *nl = memchr(buf, '\n', len);
	if (nl == NULL || nl == buf || nl - buf > 3) {
		return false;
	}
	int n = 0;
	for (const char *p = buf; p < nl; p++) {
		if (*p < '0' || *p > '9') {
			return false;
		}
		n = n * 10 + (*p - '0');
	}
	const char *t = nl + 1;
	size_t tlen = (size_t)(buf + len - t);
	if (memchr(t, '\0', tlen) != NULL) {
		return false;
	}
	if (n != 0) {
		/* One line, why. */
		if (tlen == 0 || t[tlen - 1] != '\n' || memchr(t, '\n', tlen - 1) != NULL) {
			return false;
		}
		tlen--;
	}
	*status = n;
	*text = t;
	*textlen = tlen;
	return true;
}
