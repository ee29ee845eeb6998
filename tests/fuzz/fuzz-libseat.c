/*
 * A Wayland seat's libseat socket (libseat-wire.h) on any bytes its client
 * may send: the stream is read request by request as the daemon reads it,
 * and each step must be what the seatd protocol says, read here on its own:
 * a header of two native uint16 (opcode, body size); opcodes 1 to 7; no
 * body for OPEN_SEAT, CLOSE_SEAT, DISABLE_SEAT and PING, an int for
 * CLOSE_DEVICE and SWITCH_SESSION; OPEN_DEVICE's body a uint16 that is the
 * rest's size, 1 to 256 bytes ending in the path's one NUL. A request cut
 * short waits for more (0) unless its header already rules it out; anything
 * else is refused (-1) with a reason. Answers are built for any name and
 * any number and read back.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libseat-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the protocol says of the bytes at m (len of them): the request's
 * size, 0 for "wait for more", -1 for "not one". */
static ssize_t expected(const uint8_t *m, size_t len) {
	if (len < 4) {
		return 0;
	}
	uint16_t op, body;
	memcpy(&op, m, 2);
	memcpy(&body, m + 2, 2);
	if (op < 1 || op > 7) {
		return -1;
	}
	if (op == 4 || op == 6) {
		if (body != sizeof(int)) {
			return -1;
		}
	} else if (op != 3) {
		if (body != 0) {
			return -1;
		}
	} else if (body > 2 + 256) {
		return -1;
	}
	if (len < 4 + (size_t)body) {
		return 0;
	}
	if (op == 3) {
		uint16_t n;
		if (body < 2) {
			return -1;
		}
		memcpy(&n, m + 4, 2);
		if (n != body - 2 || n == 0 || m[4 + 2 + n - 1] != 0 ||
				memchr(m + 6, 0, n) != m + 6 + n - 1) {
			return -1;
		}
	}
	return 4 + body;
}

static void check_request(const uint8_t *m, size_t len, ssize_t *used) {
	struct libseat_request r;
	memset(&r, 0xa5, sizeof(r));
	const char *why = NULL;
	*used = libseat_parse_request(m, len, &r, &why);
	if (*used != expected(m, len) || (*used < 0) != (why != NULL)) {
		abort();
	}
	if (*used <= 0) {
		return;
	}
	uint16_t op;
	memcpy(&op, m, 2);
	if ((uint16_t)r.op != op) {
		abort();
	}
	if (op == 3 && (strlen(r.path) + 1 != (size_t)*used - 6 ||
			memcmp(r.path, m + 6, strlen(r.path)) != 0)) {
		abort();
	}
	if ((op == 4 || op == 6) && memcmp(&r.arg, m + 4, sizeof(int)) != 0) {
		abort();
	}
}

/* Answers, from the input's bytes: a name and a number, read back. */
static void check_answers(const uint8_t *data, size_t size) {
	char name[128] = "", out[LIBSEAT_ANSWER_MAX + 16];
	memcpy(name, data, size < sizeof(name) - 1 ? size : sizeof(name) - 1);
	size_t n = libseat_seat_opened(out, name), want = strnlen(name, LIBSEAT_SEAT_NAME_MAX - 1);
	uint16_t h[3];
	memcpy(h, out, sizeof(h));
	if (n > LIBSEAT_ANSWER_MAX || h[0] != LIBSEAT_SEAT_OPENED || h[1] != n - 4 ||
			h[2] != want + 1 || memcmp(out + 6, name, want) != 0 || out[6 + want] != 0) {
		abort();
	}
	int number = 0;
	memcpy(&number, data, size < sizeof(number) ? size : sizeof(number));
	n = libseat_device_opened(out, number);
	memcpy(h, out, 4);
	if (n != 4 + sizeof(int) || h[0] != LIBSEAT_DEVICE_OPENED || h[1] != sizeof(int) ||
			memcmp(out + 4, &number, sizeof(int)) != 0) {
		abort();
	}
	n = libseat_error(out, number);
	memcpy(h, out, 4);
	if (n != 4 + sizeof(int) || h[0] != LIBSEAT_ERROR || memcmp(out + 4, &number, 4) != 0) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	size_t at = 0;
	ssize_t used = 1;
	while (at < size && used > 0) {
		check_request(data + at, size - at, &used);
		at += used > 0 ? (size_t)used : 0;
	}
	check_answers(data, size);
	return 0;
}
