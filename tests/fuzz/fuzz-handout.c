/*
 * The lease hand-out's messages (handout-wire.h) on any bytes a peer may
 * send, both ways. Each message goes through a SOCK_SEQPACKET pair as the
 * hand-out sends them, now and then with a descriptor: fdpass_recv gives
 * it whole and NUL-terminated with its descriptor, or refuses it (EMSGSIZE,
 * no descriptor) in the daemon's request buffer when it is longer. Then it
 * is read as the daemon reads a request and as the client reads a reply,
 * and each must take it exactly when it is one: a request is
 * "lease NAME\n", NAME 1 to 255 bytes, none a blank or a control character,
 * and gives NAME; a reply is 1 to 3 digits and a newline, then, without a
 * NUL, anything (status 0) or one line (else), and gives its status and its
 * text, within the message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"
#include "handout-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* handout.c's: a seat name's room, and its request buffer. */
#define SEAT_NAME_MAX 256
#define REQUEST_BUF (SEAT_NAME_MAX + 16)

static bool request_expected(const char *m, size_t len) {
	if (len < 8 || memcmp(m, "lease ", 6) != 0 || m[len - 1] != '\n' ||
			len - 7 >= SEAT_NAME_MAX) {
		return false;
	}
	for (size_t i = 6; i < len - 1; i++) {
		unsigned char c = (unsigned char)m[i];
		if (c <= ' ' || c == 0x7f) {
			return false;
		}
	}
	return true;
}

static void check_request(const char *m, size_t len) {
	char seat[SEAT_NAME_MAX];
	bool taken = handout_parse_request(m, len, seat, sizeof(seat));
	if (taken != request_expected(m, len)) {
		abort();
	}
	if (taken && (strlen(seat) != len - 7 || memcmp(seat, m + 6, len - 7) != 0)) {
		abort();
	}
}

static void check_reply(const char *m, size_t len) {
	const char *nl = memchr(m, '\n', len);
	size_t digits = nl != NULL ? (size_t)(nl - m) : 0;
	bool expected = digits >= 1 && digits <= 3 && memchr(m, '\0', len) == NULL;
	int want_status = 0;
	for (size_t i = 0; expected && i < digits; i++) {
		expected = m[i] >= '0' && m[i] <= '9';
		want_status = want_status * 10 + (m[i] - '0');
	}
	const char *want_text = m + digits + 1;
	size_t want_len = expected ? len - digits - 1 : 0;
	if (expected && want_status != 0) {
		/* one line, its newline not in the text */
		expected = want_len > 0 && want_text[want_len - 1] == '\n' &&
			memchr(want_text, '\n', want_len - 1) == NULL;
		want_len--;
	}
	int status = -1;
	const char *text = NULL;
	size_t tlen = 0;
	bool taken = handout_parse_reply(m, len, &status, &text, &tlen);
	if (taken != expected) {
		abort();
	}
	if (taken && (status != want_status || text != want_text || tlen != want_len)) {
		abort();
	}
}

/* Sends the message and receives it into a buffer of cap bytes; its length. */
static ssize_t through(const int sv[2], const uint8_t *data, size_t size, char *buf,
		size_t cap) {
	static int passed = -1;
	if (passed < 0) {
		passed = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	bool with_fd = size % 2 == 1;
	if (fdpass_send(sv[0], (const char *)data, size, with_fd ? passed : -1) != 0) {
		abort();
	}
	int fd;
	errno = 0;
	ssize_t n = fdpass_recv(sv[1], buf, cap, &fd);
	if (size >= cap) {
		if (n != -1 || errno != EMSGSIZE || fd != -1) {
			abort();
		}
		return n;
	}
	if (n != (ssize_t)size || buf[n] != '\0' || memcmp(buf, data, size) != 0 ||
			(fd >= 0) != with_fd) {
		abort();
	}
	if (fd >= 0) {
		close(fd);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	static int sv[2] = {-1, -1};
	if (size >= HANDOUT_MSG_MAX) {
		return 0; /* the client reads no more than this */
	}
	if (sv[0] < 0 && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		abort();
	}
	static char reply[HANDOUT_MSG_MAX + 1];
	ssize_t n = through(sv, data, size, reply, sizeof(reply));
	check_reply(reply, (size_t)n);
	char request[REQUEST_BUF];
	n = through(sv, data, size, request, sizeof(request));
	if (n >= 0) {
		check_request(request, (size_t)n);
	}
	return 0;
}
