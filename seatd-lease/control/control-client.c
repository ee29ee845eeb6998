#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control-client.h"
#include "control-wire.h"
#include "poller.h"
#include "xalloc.h"

static int connect_daemon(const char *runtime_dir, struct sockaddr_un *addr) {
	if (control_socket_path(runtime_dir, addr) != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -1;
	}
	if (connect(fd, (struct sockaddr *)addr, sizeof(*addr)) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

bool control_daemon_running(const char *runtime_dir) {
	struct sockaddr_un addr;
	int fd = connect_daemon(runtime_dir, &addr);
	if (fd < 0) {
		return false;
	}
	close(fd);
	return true;
}

/* Reads until EOF into out: false when the deadline came first. */
static bool read_reply(int fd, FILE *out, uint64_t deadline) {
	char buf[4096];
	for (;;) {
		uint64_t now = poller_now_ms();
		if (now >= deadline) {
			return false;
		}
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int r = poll(&pfd, 1, (int)(deadline - now));
		ssize_t n = r > 0 ? read(fd, buf, sizeof(buf)) : r;
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (r == 0) {
			return false;
		}
		/* An error ends the reply as EOF does: the caller finds it cut short. */
		if (n <= 0) {
			return true;
		}
		fwrite(buf, 1, (size_t)n, out);
	}
}

int control_request(const char *runtime_dir, int argc, char **argv, int timeout_ms) {
	struct sockaddr_un addr;
	int fd = connect_daemon(runtime_dir, &addr);
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM) {
			fprintf(stderr, "seatd-lease %s: permission denied on %s: run it as root, or "
					"as a member of the seat map's control_group\n", argv[0], addr.sun_path);
			return EXIT_DENIED;
		}
		fprintf(stderr, "seatd-lease %s: no seatd-lease is running (%s: %s)\n", argv[0],
				addr.sun_path, strerror(errno));
		return EXIT_NO_DAEMON;
	}
	return control_exchange(fd, addr.sun_path, argc, argv, timeout_ms);
}

int control_exchange(int fd, const char *path, int argc, char **argv, int timeout_ms) {
	uint64_t deadline = poller_now_ms() + (uint64_t)timeout_ms;
	char request[CONTROL_REQUEST_MAX];
	size_t len = 0;
	for (int i = 0; i < argc; i++) {
		int n = snprintf(request + len, sizeof(request) - len, "%s%s", i > 0 ? " " : "",
				argv[i]);
		if (n < 0 || (size_t)n >= sizeof(request) - len - 1) {
			fprintf(stderr, "seatd-lease %s: request too long\n", argv[0]);
			close(fd);
			return EXIT_USAGE;
		}
		len += (size_t)n;
	}
	request[len++] = '\n';
	/* A daemon that refuses the peer answers and closes without reading: the
	 * request then meets a closed socket (EPIPE, and no SIGPIPE), but the
	 * answer is already here to read. */
	if (send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len && errno != EPIPE &&
			errno != ECONNRESET) {
		fprintf(stderr, "seatd-lease %s: cannot send to %s: %s\n", argv[0], path,
				strerror(errno));
		close(fd);
		return EXIT_NO_DAEMON;
	}
	char *reply = NULL;
	size_t reply_len = 0;
	FILE *out = xopen_memstream(&reply, &reply_len);
	bool whole = read_reply(fd, out, deadline);
	fclose(out);
	close(fd);
	if (!whole) {
		fprintf(stderr, "seatd-lease %s: the daemon on %s did not answer within %g s; "
				"it may be stopped or stuck: see its log\n", argv[0], path,
				timeout_ms / 1000.0);
		free(reply);
		return EXIT_FAILED;
	}
	char *body = reply != NULL ? strchr(reply, '\n') : NULL;
	int status;
	/* The status is what this process exits with: 256 would be 0. */
	if (body == NULL || sscanf(reply, "%d", &status) != 1 || status < 0 || status > 255) {
		fprintf(stderr, "seatd-lease %s: the daemon closed the connection without an "
				"answer\n", argv[0]);
		free(reply);
		return EXIT_FAILED;
	}
	body++;
	FILE *dest = status == EXIT_OK ? stdout : stderr;
	if (status != EXIT_OK) {
		fprintf(dest, "seatd-lease %s: ", argv[0]);
	}
	fputs(body, dest);
	free(reply);
	return status;
}
