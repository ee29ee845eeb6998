#include <string.h>

#include "libseat-wire.h"

struct header {
	uint16_t op, size;
};

/* The body's size a request must have; -1 for OPEN_DEVICE's, which varies,
 * -2 for an opcode no client sends. */
static int body_size(uint16_t op) {
	switch (op) {
	case LIBSEAT_OPEN_SEAT:
	case LIBSEAT_CLOSE_SEAT:
	case LIBSEAT_DISABLE_SEAT:
	case LIBSEAT_PING:
		return 0;
	case LIBSEAT_CLOSE_DEVICE:
	case LIBSEAT_SWITCH_SESSION:
		return (int)sizeof(int);
	case LIBSEAT_OPEN_DEVICE:
		return -1;
	default:
		return -2;
	}
}

/* OPEN_DEVICE's body (size bytes at body) into req. */
static int parse_path(const char *body, size_t size, struct libseat_request *req,
		const char **why) {
	uint16_t n;
	if (size < sizeof(n)) {
		*why = "an OPEN_DEVICE without its path's length";
		return -1;
	}
	memcpy(&n, body, sizeof(n));
	if (n != size - sizeof(n)) {
		*why = "an OPEN_DEVICE whose path's length is not its body's";
		return -1;
	}
	if (n == 0 || n > LIBSEAT_PATH_MAX) {
		*why = n == 0 ? "an OPEN_DEVICE with no path" : "an OPEN_DEVICE path over 256 bytes";
		return -1;
	}
	const char *path = body + sizeof(n);
	if (memchr(path, '\0', n) != path + n - 1) {
		*why = "an OPEN_DEVICE path not ending at its one NUL";
		return -1;
	}
	memcpy(req->path, path, n);
	return 0;
}

ssize_t libseat_parse_request(const void *buf, size_t len, struct libseat_request *req,
		const char **why) {
	struct header h;
	if (len < sizeof(h)) {
		return 0;
	}
	memcpy(&h, buf, sizeof(h));
	int want = body_size(h.op);
	if (want == -2) {
		*why = "an opcode no libseat client sends";
		return -1;
	}
	if (want >= 0 && h.size != want) {
		*why = "a request whose body has the wrong size";
		return -1;
	}
	if (h.size > LIBSEAT_REQUEST_MAX - sizeof(h)) {
		*why = "a request over 262 bytes";
		return -1;
	}
	if (len < sizeof(h) + h.size) {
		return 0;
	}
	const char *body = (const char *)buf + sizeof(h);
	*req = (struct libseat_request){.op = h.op};
	if (h.op == LIBSEAT_OPEN_DEVICE) {
		if (parse_path(body, h.size, req, why) != 0) {
			return -1;
		}
	} else if (want > 0) {
		memcpy(&req->arg, body, sizeof(req->arg));
	}
	return (ssize_t)(sizeof(h) + h.size);
}

static size_t put(void *out, enum libseat_op op, const void *body, size_t size) {
	struct header h = {.op = (uint16_t)op, .size = (uint16_t)size};
	memcpy(out, &h, sizeof(h));
	if (size > 0) {
		memcpy((char *)out + sizeof(h), body, size);
	}
	return sizeof(h) + size;
}

size_t libseat_empty(void *out, enum libseat_op op) {
	return put(out, op, NULL, 0);
}

size_t libseat_seat_opened(void *out, const char *name) {
	char body[2 + LIBSEAT_SEAT_NAME_MAX];
	uint16_t n = (uint16_t)strnlen(name, LIBSEAT_SEAT_NAME_MAX - 1);
	memcpy(body + 2, name, n);
	body[2 + n] = '\0';
	n++;
	memcpy(body, &n, sizeof(n));
	return put(out, LIBSEAT_SEAT_OPENED, body, sizeof(n) + n);
}

size_t libseat_device_opened(void *out, int device_id) {
	return put(out, LIBSEAT_DEVICE_OPENED, &device_id, sizeof(device_id));
}

size_t libseat_error(void *out, int error) {
	return put(out, LIBSEAT_ERROR, &error, sizeof(error));
}
