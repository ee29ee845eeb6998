#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdpass.h"
#include "libseat-socket.h"
#include "libseat-wire.h"
#include "log.h"
#include "sock.h"
#include "xalloc.h"

/* libseat's own bound on a client's devices (seatd's MAX_SEAT_DEVICES),
 * and ours on a seat's: each input device is a descriptor of the daemon's,
 * which a seat's user must not be able to use up. A compositor is one
 * client; a few more are let in. */
#define CLIENT_DEVICES_MAX 128
#define SOCKET_DEVICES_MAX 128
#define SOCKET_CLIENTS_MAX 8

struct device {
	int id;
	void *token;
};

struct client {
	struct libseat_socket *s;
	int fd;
	struct poller_source *source;
	struct ucred cred;
	bool seat_open;
	char in[2 * LIBSEAT_REQUEST_MAX + 1]; /* fdpass_recv ends what it reads with a NUL */
	size_t in_len;
	struct device devices[CLIENT_DEVICES_MAX];
	size_t n_devices;
	int last_id;
	struct client *next;
};

struct libseat_socket {
	struct poller *poller;
	int fd;
	struct poller_source *source;
	char *path, *seat, *seat_name;
	uid_t uid;
	libseat_open_fn open_fn;
	libseat_close_fn close_fn;
	void *data;
	struct client *clients;
};

/* Gives back every device c holds. */
static void close_devices(struct client *c) {
	while (c->n_devices > 0) {
		c->n_devices--;
		c->s->close_fn(c->s->data, c->devices[c->n_devices].token);
	}
}

static void client_drop(struct client *c) {
	for (struct client **p = &c->s->clients; *p != NULL; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			break;
		}
	}
	close_devices(c);
	poller_remove(c->source);
	close(c->fd);
	free(c);
}

/* Sends one answer (with fd, unless -1); false if the client is not
 * reading it (its buffer full) or gone: it is to be dropped. */
static bool send_answer(struct client *c, const void *msg, size_t len, int fd) {
	if (fdpass_send(c->fd, msg, len, fd) == 0) {
		return true;
	}
	log_info("seat %s: libseat client pid %d dropped: cannot answer it (%s)",
			c->s->seat, (int)c->cred.pid, strerror(errno));
	return false;
}

static bool send_empty(struct client *c, enum libseat_op op) {
	char out[LIBSEAT_ANSWER_MAX];
	return send_answer(c, out, libseat_empty(out, op), -1);
}

static bool send_error(struct client *c, int error) {
	char out[LIBSEAT_ANSWER_MAX];
	return send_answer(c, out, libseat_error(out, error), -1);
}

static bool open_device(struct client *c, const char *path) {
	if (c->n_devices == CLIENT_DEVICES_MAX ||
			libseat_socket_devices(c->s) >= SOCKET_DEVICES_MAX) {
		return send_error(c, EMFILE);
	}
	void *token = NULL;
	int fd = c->s->open_fn(c->s->data, path, &c->cred, &token);
	if (fd < 0) {
		return send_error(c, errno > 0 ? errno : EACCES);
	}
	/* Ids as libseat's seatd gives them: positive, never reused while the
	 * client is connected. */
	int id = c->last_id < 0x7fffffff ? ++c->last_id : 0;
	char out[LIBSEAT_ANSWER_MAX];
	bool sent = id > 0 && send_answer(c, out, libseat_device_opened(out, id), fd);
	close(fd);
	if (!sent) {
		c->s->close_fn(c->s->data, token);
		return id > 0 ? false : send_error(c, EMFILE);
	}
	c->devices[c->n_devices++] = (struct device){.id = id, .token = token};
	return true;
}

static bool close_device(struct client *c, int id) {
	for (size_t i = 0; i < c->n_devices; i++) {
		if (c->devices[i].id == id) {
			void *token = c->devices[i].token;
			c->devices[i] = c->devices[--c->n_devices];
			c->s->close_fn(c->s->data, token);
			return send_empty(c, LIBSEAT_DEVICE_CLOSED);
		}
	}
	return send_error(c, EBADF);
}

/* One request, answered; false: drop the client. */
static bool take_request(struct client *c, const struct libseat_request *r) {
	if (r->op == LIBSEAT_PING) {
		return send_empty(c, LIBSEAT_PONG);
	}
	if (r->op == LIBSEAT_OPEN_SEAT) {
		if (c->seat_open) {
			return send_error(c, EALREADY);
		}
		char out[LIBSEAT_ANSWER_MAX];
		c->seat_open = send_answer(c, out, libseat_seat_opened(out, c->s->seat_name), -1) &&
			send_empty(c, LIBSEAT_ENABLE_SEAT);
		return c->seat_open;
	}
	if (!c->seat_open) {
		return send_error(c, EPERM);
	}
	switch (r->op) {
	case LIBSEAT_CLOSE_SEAT:
		close_devices(c);
		c->seat_open = false;
		return send_empty(c, LIBSEAT_SEAT_CLOSED);
	case LIBSEAT_OPEN_DEVICE:
		return open_device(c, r->path);
	case LIBSEAT_CLOSE_DEVICE:
		return close_device(c, r->arg);
	default:
		/* DISABLE_SEAT answers a request to disable that never comes;
		 * SWITCH_SESSION: a seat of ours has no other session. Refused, in
		 * the client's dialect (libseat-wire.h): libseat before 0.9 waits
		 * for no answer and would take one for the next request's. */
		return LIBSEAT_ANSWERS_SWITCH ? send_error(c, EINVAL) : true;
	}
}

static void client_event(int fd, uint32_t events, void *data) {
	struct client *c = data;
	int got = -1;
	/* What is left of the last read is less than one request: there is
	 * room for one more. */
	ssize_t n = (events & EPOLLIN) ? fdpass_recv(fd, c->in + c->in_len,
			sizeof(c->in) - c->in_len, &got) : 0;
	if (got >= 0) {
		close(got); /* no client has one to send */
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	if (n <= 0) {
		client_drop(c);
		return;
	}
	c->in_len += (size_t)n;
	size_t at = 0;
	for (;;) {
		struct libseat_request r;
		const char *why = NULL;
		ssize_t used = libseat_parse_request(c->in + at, c->in_len - at, &r, &why);
		if (used < 0) {
			log_warning("seat %s: libseat client pid %d sent %s; dropped",
					c->s->seat, (int)c->cred.pid, why);
		}
		if (used < 0 || (used > 0 && !take_request(c, &r))) {
			client_drop(c);
			return;
		}
		if (used == 0) {
			break;
		}
		at += (size_t)used;
	}
	memmove(c->in, c->in + at, c->in_len - at);
	c->in_len -= at;
}

static void accept_client(int fd, uint32_t events, void *data) {
	struct libseat_socket *s = data;
	struct ucred cred;
	int cfd = sock_accept(fd, &cred, "libseat");
	if (cfd < 0) {
		return;
	}
	/* The file's mode keeps others out already; this holds even if it is
	 * ever wrong. */
	if (cred.uid != s->uid) {
		log_warning("seat %s: refused uid %d (pid %d) on %s: only the seat's user (uid %d) "
				"may open its devices", s->seat, (int)cred.uid, (int)cred.pid, s->path,
				(int)s->uid);
		close(cfd);
		return;
	}
	size_t n = 0;
	for (struct client *o = s->clients; o != NULL; o = o->next) {
		n++;
	}
	if (n >= SOCKET_CLIENTS_MAX) {
		log_warning("seat %s: refused pid %d on %s: %d clients already", s->seat,
				(int)cred.pid, s->path, SOCKET_CLIENTS_MAX);
		close(cfd);
		return;
	}
	struct client *c = xcalloc(1, sizeof(*c));
	*c = (struct client){.s = s, .fd = cfd, .cred = cred, .next = s->clients};
	s->clients = c;
	c->source = poller_add_fd(s->poller, cfd, EPOLLIN, client_event, c);
	if (c->source == NULL) {
		client_drop(c);
	}
}

struct libseat_socket *libseat_socket_open(struct poller *poller, const char *path,
		const char *seat, const char *seat_name, uid_t uid, gid_t gid,
		libseat_open_fn open_fn, libseat_close_fn close_fn, void *data) {
	struct libseat_socket *s = xcalloc(1, sizeof(*s));
	*s = (struct libseat_socket){.poller = poller, .uid = uid, .open_fn = open_fn,
		.close_fn = close_fn, .data = data, .path = xstrdup(path),
		.seat = xstrdup(seat), .seat_name = xstrdup(seat_name)};
	s->fd = sock_bind(path, SOCK_STREAM);
	/* By path: its directory is root's alone. */
	if (s->fd < 0 || lchown(path, uid, gid) != 0 || listen(s->fd, 16) != 0 ||
			(s->source = poller_add_fd(poller, s->fd, EPOLLIN, accept_client, s)) == NULL) {
		log_error("seat %s: cannot set up its libseat socket %s: %s", seat, path,
				strerror(errno));
		if (s->fd >= 0) {
			close(s->fd);
			unlink(path);
		}
		free(s->path);
		free(s->seat);
		free(s->seat_name);
		free(s);
		return NULL;
	}
	return s;
}

void libseat_socket_close(struct libseat_socket *s) {
	if (s == NULL) {
		return;
	}
	while (s->clients != NULL) {
		client_drop(s->clients);
	}
	poller_remove(s->source);
	close(s->fd);
	unlink(s->path);
	free(s->path);
	free(s->seat);
	free(s->seat_name);
	free(s);
}

size_t libseat_socket_devices(const struct libseat_socket *s) {
	size_t n = 0;
	for (const struct client *c = s != NULL ? s->clients : NULL; c != NULL; c = c->next) {
		n += c->n_devices;
	}
	return n;
}
