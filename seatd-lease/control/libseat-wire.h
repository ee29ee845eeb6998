#ifndef SEATD_LEASE_LIBSEAT_WIRE_H
#define SEATD_LEASE_LIBSEAT_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The seatd protocol: what libseat speaks to the socket SEATD_SOCK names
 * when LIBSEAT_BACKEND=seatd (a stream socket), as libseat 0.7's
 * backend/seatd.c and include/protocol.h have it. Each message is a header
 * of two native-order uint16, its opcode and its body's size, then the
 * body; integers in bodies are native ints.
 *
 *   client                          server
 *   OPEN_SEAT 1      (no body)      SEAT_OPENED 0x8001: uint16 length of
 *                                   the seat's name with its NUL, the name;
 *                                   then ENABLE_SEAT 0x8006 (no body)
 *   CLOSE_SEAT 2                    SEAT_CLOSED 0x8002
 *   OPEN_DEVICE 3    uint16 length  DEVICE_OPENED 0x8003: int device id, the
 *                    of the path    device's descriptor with it (SCM_RIGHTS)
 *                    with its NUL,
 *                    the path
 *   CLOSE_DEVICE 4   int device id  DEVICE_CLOSED 0x8004
 *   DISABLE_SEAT 5   (the client has let go, after the server's
 *                    DISABLE_SEAT 0x8005)
 *                                   SEAT_DISABLED 0x8009
 *   SWITCH_SESSION 6 int session    SESSION_SWITCHED 0x8008
 *   PING 7                          PONG 0x8007
 *
 * Any request may be answered ERROR 0xFFFF instead: int, a positive errno.
 *
 * Two dialects: libseat before 0.9 (Debian 12 has 0.7) sends DISABLE_SEAT
 * and SWITCH_SESSION without waiting for an answer, and takes whatever
 * comes that is not an event (ERROR too) for the answer to its next request;
 * 0.9 and later wait for one. LIBSEAT_ANSWERS_SWITCH says which the build
 * speaks: 1 where the libseat it was built beside is 0.9 or later.
 */

#ifndef LIBSEAT_ANSWERS_SWITCH
#define LIBSEAT_ANSWERS_SWITCH 0
#endif

enum libseat_op {
	LIBSEAT_OPEN_SEAT = 1,
	LIBSEAT_CLOSE_SEAT = 2,
	LIBSEAT_OPEN_DEVICE = 3,
	LIBSEAT_CLOSE_DEVICE = 4,
	LIBSEAT_DISABLE_SEAT = 5,
	LIBSEAT_SWITCH_SESSION = 6,
	LIBSEAT_PING = 7,

	LIBSEAT_SEAT_OPENED = 0x8001,
	LIBSEAT_SEAT_CLOSED = 0x8002,
	LIBSEAT_DEVICE_OPENED = 0x8003,
	LIBSEAT_DEVICE_CLOSED = 0x8004,
	LIBSEAT_ASK_DISABLE = 0x8005,
	LIBSEAT_ENABLE_SEAT = 0x8006,
	LIBSEAT_PONG = 0x8007,
	LIBSEAT_SESSION_SWITCHED = 0x8008,
	LIBSEAT_SEAT_DISABLED = 0x8009,
	LIBSEAT_ERROR = 0xffff,
};

/* libseat's own limits: a path's length with its NUL, a seat name's. */
#define LIBSEAT_PATH_MAX 256
#define LIBSEAT_SEAT_NAME_MAX 64
/* The longest request (OPEN_DEVICE) and the longest answer (SEAT_OPENED). */
#define LIBSEAT_REQUEST_MAX (4 + 2 + LIBSEAT_PATH_MAX)
#define LIBSEAT_ANSWER_MAX (4 + 2 + LIBSEAT_SEAT_NAME_MAX)

struct libseat_request {
	enum libseat_op op;
	int arg;                     /* CLOSE_DEVICE's device id, SWITCH_SESSION's session */
	char path[LIBSEAT_PATH_MAX]; /* OPEN_DEVICE's, NUL-terminated */
};

/*
 * The first request in the len bytes at buf: its size in bytes, with *req
 * filled; 0 when buf holds less than a whole one; -1 when it is not one (an
 * opcode no client sends, a body of the wrong size, a path without its NUL,
 * with one inside it or longer than LIBSEAT_PATH_MAX), with *why saying
 * which: the stream cannot be read on. Pure.
 */
ssize_t libseat_parse_request(const void *buf, size_t len, struct libseat_request *req,
		const char **why);

/* An answer into out (LIBSEAT_ANSWER_MAX bytes), its size returned. Pure. */
/* A message with no body: SEAT_CLOSED, DEVICE_CLOSED, ENABLE_SEAT, PONG... */
size_t libseat_empty(void *out, enum libseat_op op);
/* SEAT_OPENED: name is cut to LIBSEAT_SEAT_NAME_MAX - 1 bytes. */
size_t libseat_seat_opened(void *out, const char *name);
/* DEVICE_OPENED: its descriptor goes with it. */
size_t libseat_device_opened(void *out, int device_id);
/* ERROR: error, a positive errno. */
size_t libseat_error(void *out, int error);

#endif
