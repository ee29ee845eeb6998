#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "exit-status.h"
#include "fdpass.h"
#include "handout-client.h"
#include "handout-wire.h"
#include "xalloc.h"

/* Between two asks while the seat is not ready. */
#define RETRY_MS 200

static long long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One ask: 0, a status, with *sock open only on 0. */
static int ask_once(const struct sockaddr_un *addr, const char *seat, long long deadline,
		int *sock, int *lease_fd, char **conf, char *why, size_t whylen) {
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, whylen, "socket: %s", strerror(errno));
		return EXIT_FAILED;
	}
	if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) != 0) {
		int e = errno;
		close(fd);
		snprintf(why, whylen, "no seatd-lease daemon answers on %s (%s); is "
				"seatd-lease.service running?", addr->sun_path, strerror(e));
		return e == ENOENT || e == ECONNREFUSED ? EXIT_NO_DAEMON : EXIT_FAILED;
	}
	static char msg[HANDOUT_MSG_MAX + 1];
	int n = snprintf(msg, sizeof(msg), "lease %s\n", seat);
	/* A daemon that refuses the peer answers and closes without reading: the
	 * request then meets a closed socket, but the answer is here to read. */
	if (n < 0 || (size_t)n >= sizeof(msg) || (fdpass_send(fd, msg, (size_t)n, -1) != 0 &&
			errno != EPIPE && errno != ECONNRESET)) {
		snprintf(why, whylen, "cannot send the request to %s: %s", addr->sun_path,
				n > 0 && (size_t)n < sizeof(msg) ? strerror(errno) : "seat name too long");
		close(fd);
		return EXIT_FAILED;
	}
	struct pollfd p = {.fd = fd, .events = POLLIN};
	long long left = deadline - now_ms();
	if (poll(&p, 1, left > 0 ? (int)left : 0) != 1) {
		snprintf(why, whylen, "the daemon did not answer on %s in time", addr->sun_path);
		close(fd);
		return EXIT_FAILED;
	}
	int got;
	ssize_t len = fdpass_recv(fd, msg, sizeof(msg), &got);
	/* A daemon that closed with our request unread resets the connection,
	 * and the kernel reports that before the answer it sent: read on. */
	if (len < 0 && errno == ECONNRESET) {
		len = fdpass_recv(fd, msg, sizeof(msg), &got);
	}
	int status;
	const char *text;
	size_t tlen;
	if (len <= 0 || !handout_parse_reply(msg, (size_t)len, &status, &text, &tlen)) {
		snprintf(why, whylen, "the daemon's answer on %s is not one", addr->sun_path);
		status = EXIT_FAILED;
	} else if (status != 0) {
		snprintf(why, whylen, "%.*s", (int)tlen, text);
	} else if (got < 0) {
		snprintf(why, whylen, "the daemon's answer on %s came without the lease",
				addr->sun_path);
		status = EXIT_FAILED;
	}
	if (status != 0) {
		if (got >= 0) {
			close(got);
		}
		close(fd);
		return status;
	}
	*sock = fd;
	*lease_fd = got;
	*conf = xstrndup(text, tlen);
	why[0] = '\0'; /* an earlier ask's reason to wait is over */
	return 0;
}

int handout_request(const char *runtime_dir, const char *seat, int timeout_ms, int *sock,
		int *lease_fd, char **conf, char *why, size_t whylen) {
	/* The seat's own process's socket, else the daemon's. */
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/" HANDOUT_SOCKET ".%s",
			runtime_dir, seat);
	if (n < 0 || (size_t)n >= sizeof(addr.sun_path)) {
		snprintf(why, whylen, "runtime_dir %s is too long for a socket path", runtime_dir);
		return EXIT_FAILED;
	}
	if (access(addr.sun_path, F_OK) != 0) {
		snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/" HANDOUT_SOCKET, runtime_dir);
	}
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		int status = ask_once(&addr, seat, deadline, sock, lease_fd, conf, why, whylen);
		if (status != EXIT_NOT_READY) {
			return status;
		}
		if (now_ms() + RETRY_MS >= deadline) {
			return EXIT_FAILED;
		}
		usleep(RETRY_MS * 1000);
	}
}
