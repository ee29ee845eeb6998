/*
 * text_escape (text.h), which every text from outside goes through on its
 * way to a terminal or the log (identify's and check --probe's device
 * names, nodes and ports; status; the STATUS= line), on any bytes and any
 * room for its output. The output is NUL-terminated within its room, shows
 * as text (shown-text.h: valid UTF-8, no control character), and reads back
 * (\\ as a backslash, \xHH as that byte) as the start of the input: all of
 * it with 4 * its length + 1 bytes of room, else cut only where the next
 * escape or character would not fit whole.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shown-text.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hex(char c) {
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The escaped text read back into back; its length, or -1 if it is not
 * what text_escape writes. */
static long unescape(const char *s, char *back) {
	size_t n = 0;
	while (*s != '\0') {
		if (*s != '\\') {
			back[n++] = *s++;
		} else if (s[1] == '\\') {
			back[n++] = '\\';
			s += 2;
		} else if (s[1] == 'x' && hex(s[2]) >= 0 && hex(s[3]) >= 0) {
			back[n++] = (char)(hex(s[2]) << 4 | hex(s[3]));
			s += 4;
		} else {
			return -1;
		}
	}
	return (long)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 2 || size > 4096) {
		return 0;
	}
	/* The room: from none to more than enough. */
	size_t room = ((size_t)data[0] << 8 | data[1]) % (4 * size + 8);
	char *in = malloc(size + 1);
	char *out = malloc(room + 1), *all = malloc(4 * size + 1), *back = malloc(4 * size + 1);
	if (in == NULL || out == NULL || all == NULL || back == NULL) {
		abort();
	}
	memcpy(in, data + 2, size - 2);
	in[size - 2] = '\0';
	size_t in_len = strlen(in);
	out[room] = '\1'; /* beyond the room: never written */
	text_escape(in, out, room);
	if (out[room] != '\1') {
		abort();
	}
	if (room > 0) {
		size_t out_len = strnlen(out, room), bad;
		long n = out_len < room ? unescape(out, back) : -1;
		if (n < 0 || !shown_text(out, out_len, &bad) || memcmp(back, in, (size_t)n) != 0) {
			abort();
		}
		/* Cut short only where the rest's first piece would not fit. */
		text_escape(in + n, all, 4 * size + 1);
		size_t piece = all[0] == '\\' ? (all[1] == '\\' ? 2 : 4)
			: all[0] == '\0' ? 0 : shown_char((const unsigned char *)all,
					(const unsigned char *)all + strlen(all));
		if ((size_t)n < in_len && (piece == 0 || out_len + piece < room)) {
			abort();
		}
		if (room >= 4 * in_len + 1 && (size_t)n != in_len) {
			abort();
		}
	}
	free(in);
	free(out);
	free(all);
	free(back);
	return 0;
}
