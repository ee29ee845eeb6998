#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"
#include "log.h"
#include "sock.h"

/* A request is a seat name and a few words: anything longer is not one. */
#define REQUEST_MAX 512
/* A client gets this long to send its request. */
#define REQUEST_TIMEOUT_MS 5000
/* The most a client's reply may hold in the daemon: a reply is queued and
 * sent from the loop as the client reads it, never waited for. */
#define REPLY_MAX (1024 * 1024)
/* A client gets this long to read its whole reply; then it is dropped. */
#define REPLY_TIMEOUT_MS 5000

struct control_client {
	struct control *control;
	int fd;
	struct poller_source *source, *timer;
	char buf[REQUEST_MAX];
	size_t len;
	struct ucred cred;
	/* The reply, once there is one: what is not sent yet is reply + sent. */
	char *reply;
	size_t reply_len, sent;
	struct control_client *next;
};

struct control {
	struct poller *poller;
	int fd;
	struct poller_source *source;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	gid_t gid;
	bool have_group;
	const char *group;
	control_fn fn;
	void *data;
	struct control_client *clients;
};

static int socket_path(const char *runtime_dir, struct sockaddr_un *addr) {
	*addr = (struct sockaddr_un){.sun_family = AF_UNIX};
	int n = snprintf(addr->sun_path, sizeof(addr->sun_path), "%s/control", runtime_dir);
	return n > 0 && (size_t)n < sizeof(addr->sun_path) ? 0 : -1;
}

static void client_close(struct control_client *c) {
	struct control_client **p = &c->control->clients;
	while (*p != c) {
		p = &(*p)->next;
	}
	*p = c->next;
	poller_remove(c->source);
	poller_remove(c->timer);
	close(c->fd);
	free(c->reply);
	free(c);
}

/* Sends what the socket takes now, never waiting: true when nothing is left
 * to do with the client (all sent, or it is gone). */
static bool flush_reply(struct control_client *c) {
	while (c->sent < c->reply_len) {
		ssize_t w = send(c->fd, c->reply + c->sent, c->reply_len - c->sent,
				MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return false;
		}
		if (w <= 0) {
			return true;
		}
		c->sent += (size_t)w;
	}
	return true;
}

/* Gives c its reply: what the socket takes now, the rest from the loop as
 * the client reads (client_event), within REPLY_TIMEOUT_MS. c is closed
 * once it has it all, or is gone, or runs out of time: the caller must not
 * use c after this. */
static void queue_reply(struct control_client *c, int status, const char *text, size_t len) {
	static const char too_large[] = "the reply is too large to send; refused\n";
	if (len > REPLY_MAX) {
		log_warning("control: a reply of %zu bytes to uid %d is over %d; not sent", len,
				(int)c->cred.uid, REPLY_MAX);
		status = EXIT_FAILED;
		text = too_large;
		len = strlen(too_large);
	}
	char head[16];
	int n = snprintf(head, sizeof(head), "%d\n", status);
	c->reply = malloc((size_t)n + len);
	if (c->reply == NULL) {
		abort();
	}
	memcpy(c->reply, head, (size_t)n);
	memcpy(c->reply + n, text, len);
	c->reply_len = (size_t)n + len;
	if (flush_reply(c) || poller_fd_update(c->source, EPOLLOUT) != 0 ||
			poller_timer_arm(c->timer, REPLY_TIMEOUT_MS) != 0) {
		client_close(c);
	}
}

/* Whether the buffer is one line of text (its newline at len - 1). */
static bool one_line(const char *buf, size_t len) {
	for (size_t i = 0; i + 1 < len; i++) {
		unsigned char ch = (unsigned char)buf[i];
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			return false;
		}
	}
	return len > 0 && buf[len - 1] == '\n';
}

int control_parse(char *buf, size_t len, char *argv[CONTROL_MAX_WORDS + 1]) {
	/* A request ends at its first newline: nothing may follow it, and
	 * nothing after a NUL may hide in it. */
	if (!one_line(buf, len)) {
		return -1;
	}
	buf[len - 1] = '\0';
	int argc = 0;
	char *save = NULL;
	for (char *w = strtok_r(buf, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
		if (argc == CONTROL_MAX_WORDS) {
			return -2;
		}
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	return argc;
}

static void handle_request(struct control_client *c) {
	char *argv[CONTROL_MAX_WORDS + 1];
	int argc = control_parse(c->buf, c->len, argv);
	if (argc < 0) {
		log_warning("control: refused a request of uid %d (pid %d): %s",
				(int)c->cred.uid, (int)c->cred.pid, argc == -1
				? "not one line of text" : "too many words");
		const char *msg = argc == -1
			? "a request is one line of words, and nothing after it; refused\n"
			: "a request has at most 8 words; refused\n";
		queue_reply(c, EXIT_USAGE, msg, strlen(msg));
		return;
	}
	/* assign-begin and assign-end take input devices: root's alone. */
	if (argc > 0 && c->cred.uid != 0 && strncmp(argv[0], "assign-", 7) == 0) {
		log_warning("control: refused %s of uid %d (pid %d): root's alone", argv[0],
				(int)c->cred.uid, (int)c->cred.pid);
		const char *msg = "permission denied: only root may assign input devices\n";
		queue_reply(c, EXIT_DENIED, msg, strlen(msg));
		return;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (out == NULL) {
		abort();
	}
	int status = argc == 0 ? EXIT_USAGE : c->control->fn(c->control->data, argc, argv, out);
	if (argc == 0) {
		fprintf(out, "empty request\n");
	}
	fclose(out);
	queue_reply(c, status, text, len);
	free(text);
}

static void client_event(int fd, uint32_t events, void *data) {
	struct control_client *c = data;
	(void)events;
	if (c->reply != NULL) {
		if (flush_reply(c)) {
			client_close(c);
		}
		return;
	}
	ssize_t n = read(fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	if (n <= 0) {
		client_close(c);
		return;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	if (memchr(c->buf, '\n', c->len) == NULL) {
		if (c->len + 1 < sizeof(c->buf)) {
			return;
		}
		const char *msg = "request too long\n";
		queue_reply(c, EXIT_USAGE, msg, strlen(msg));
	} else {
		handle_request(c);
	}
}

static void client_timed_out(void *data) {
	struct control_client *c = data;
	if (c->reply != NULL) {
		log_warning("control: uid %d (pid %d) did not read its reply in %d ms (%zu of "
				"%zu bytes sent); dropped", (int)c->cred.uid, (int)c->cred.pid,
				REPLY_TIMEOUT_MS, c->sent, c->reply_len);
	} else {
		log_info("control: a client sent no request in %d ms; closed", REQUEST_TIMEOUT_MS);
	}
	client_close(c);
}

static bool in_group(int fd, gid_t gid, gid_t primary) {
	if (primary == gid) {
		return true;
	}
	gid_t groups[256];
	socklen_t len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) {
		return false;
	}
	for (size_t i = 0; i < len / sizeof(gid_t); i++) {
		if (groups[i] == gid) {
			return true;
		}
	}
	return false;
}

static void accept_client(int fd, uint32_t events, void *data) {
	struct control *control = data;
	(void)events;
	struct ucred cred;
	int cfd = sock_accept(fd, &cred, "control");
	if (cfd < 0) {
		return;
	}
	struct control_client *c = calloc(1, sizeof(*c));
	if (c == NULL) {
		abort();
	}
	c->control = control;
	c->fd = cfd;
	c->cred = cred;
	c->source = poller_add_fd(control->poller, cfd, EPOLLIN, client_event, c);
	c->timer = poller_add_timer(control->poller, client_timed_out, c);
	c->next = control->clients;
	control->clients = c;
	if (c->source == NULL || c->timer == NULL ||
			poller_timer_arm(c->timer, REQUEST_TIMEOUT_MS) != 0) {
		client_close(c);
		return;
	}
	/* The socket's mode keeps others out already; this holds even if the
	 * file's mode or the directory's is ever wrong. */
	if (cred.uid != 0 && !(control->have_group && in_group(cfd, control->gid, cred.gid))) {
		log_warning("control: refused uid %d (pid %d): only root%s%s may use %s",
				(int)cred.uid, (int)cred.pid, control->have_group ? " and group " : "",
				control->have_group ? control->group : "", control->path);
		const char *msg = "permission denied\n";
		queue_reply(c, EXIT_DENIED, msg, strlen(msg));
	}
}

struct control *control_open(struct poller *poller, const char *runtime_dir,
		const char *group, control_fn fn, void *data) {
	struct sockaddr_un addr;
	if (socket_path(runtime_dir, &addr) != 0) {
		log_error("control: runtime_dir %s is too long for a socket path", runtime_dir);
		return NULL;
	}
	struct control *c = calloc(1, sizeof(*c));
	if (c == NULL) {
		abort();
	}
	*c = (struct control){.poller = poller, .fn = fn, .data = data, .group = group};
	snprintf(c->path, sizeof(c->path), "%s", addr.sun_path);
	if (group != NULL) {
		struct group *gr = getgrnam(group);
		if (gr == NULL) {
			log_error("control: group %s does not exist; only root may use %s", group,
					c->path);
		} else {
			c->gid = gr->gr_gid;
			c->have_group = true;
		}
	}
	/* A live daemon was ruled out before (control_daemon_running). */
	c->fd = sock_bind(c->path, SOCK_STREAM);
	if (c->fd < 0 || (c->have_group && (chown(c->path, 0, c->gid) != 0 ||
			chmod(c->path, 0660) != 0)) || listen(c->fd, 16) != 0) {
		log_error("control: cannot set up %s: %s; status, start, stop and reload will "
				"not work", c->path, strerror(errno));
		if (c->fd >= 0) {
			close(c->fd);
			unlink(c->path);
		}
		free(c);
		return NULL;
	}
	c->source = poller_add_fd(poller, c->fd, EPOLLIN, accept_client, c);
	return c;
}

void control_close(struct control *control) {
	if (control == NULL) {
		return;
	}
	while (control->clients != NULL) {
		client_close(control->clients);
	}
	poller_remove(control->source);
	close(control->fd);
	unlink(control->path);
	free(control);
}

static int connect_daemon(const char *runtime_dir, struct sockaddr_un *addr) {
	if (socket_path(runtime_dir, addr) != 0) {
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
	char request[REQUEST_MAX];
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
	FILE *out = open_memstream(&reply, &reply_len);
	if (out == NULL) {
		abort();
	}
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
