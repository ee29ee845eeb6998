#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control-wire.h"
#include "control.h"
#include "log.h"
#include "sock.h"
#include "xalloc.h"

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
	char buf[CONTROL_REQUEST_MAX];
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
		if (w < 0 && errno == EAGAIN) {
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
	c->reply = xmalloc((size_t)n + len);
	memcpy(c->reply, head, (size_t)n);
	memcpy(c->reply + n, text, len);
	c->reply_len = (size_t)n + len;
	if (flush_reply(c) || poller_fd_update(c->source, EPOLLOUT) != 0 ||
			poller_timer_arm(c->timer, REPLY_TIMEOUT_MS) != 0) {
		client_close(c);
	}
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
	FILE *out = xopen_memstream(&text, &len);
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
	struct ucred cred;
	int cfd = sock_accept(fd, &cred, "control");
	if (cfd < 0) {
		return;
	}
	struct control_client *c = xcalloc(1, sizeof(*c));
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
	if (control_socket_path(runtime_dir, &addr) != 0) {
		log_error("control: runtime_dir %s is too long for a socket path", runtime_dir);
		return NULL;
	}
	struct control *c = xcalloc(1, sizeof(*c));
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
