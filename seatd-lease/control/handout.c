#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "exit-status.h"
#include "fdpass.h"
#include "handout-wire.h"
#include "handout.h"
#include "log.h"
#include "sock.h"
#include "xalloc.h"

/* A client gets this long to send its request. */
#define REQUEST_TIMEOUT_MS 5000
#define SEAT_NAME_MAX 256

struct hold {
	struct handout *h;
	int fd;
	struct poller_source *source, *timer;
	struct ucred cred;
	char seat[SEAT_NAME_MAX]; /* "" until granted */
	struct hold *next;
};

struct handout {
	struct poller *poller;
	int fd;
	struct poller_source *source;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	handout_ask_fn ask;
	handout_gone_fn gone;
	void *data;
	struct hold *holds;
};

static void hold_close(struct hold *c) {
	for (struct hold **p = &c->h->holds; *p != NULL; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			break;
		}
	}
	poller_remove(c->source);
	poller_remove(c->timer);
	close(c->fd);
	free(c);
}

/* Sends status and text (for 0, the configuration as it is; else why, a
 * line); false if it could not. */
static bool reply(struct hold *c, int status, const char *text, int fd) {
	char *msg = status == 0 ? xasprintf("0\n%s", text) : xasprintf("%d\n%s\n", status, text);
	size_t n = strlen(msg);
	bool ok = n <= HANDOUT_MSG_MAX && fdpass_send(c->fd, msg, n, fd) == 0;
	if (!ok) {
		log_warning("handout: cannot answer pid %d: %s", (int)c->cred.pid,
				(size_t)n > HANDOUT_MSG_MAX ? "the X server's configuration is over 64 KiB"
				: strerror(errno));
	}
	free(msg);
	return ok;
}

static struct hold *find_hold(const struct handout *h, const char *seat);

/* Whether c's holder has let go already, though the loop has not seen it
 * yet: its X server ended just before the next one asked. */
static bool let_go(const struct hold *c) {
	struct pollfd p = {.fd = c->fd, .events = POLLIN};
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLIN));
}

/* Lets c go: the lease is back with the seat. */
static void release(struct hold *c) {
	struct handout *h = c->h;
	char seat[SEAT_NAME_MAX];
	snprintf(seat, sizeof(seat), "%s", c->seat);
	log_info("seat %s: pid %d let go of its lease", seat, (int)c->cred.pid);
	hold_close(c);
	h->gone(h->data, seat);
}

/* The first message: a request, answered; a grant keeps the connection. */
static bool take_request(struct hold *c, const char *buf, size_t len) {
	char seat[SEAT_NAME_MAX], why[1024] = "";
	if (!handout_parse_request(buf, len, seat, sizeof(seat))) {
		reply(c, EXIT_USAGE, "not a request: send 'lease NAME'", -1);
		return false;
	}
	struct hold *old = find_hold(c->h, seat);
	if (old != NULL && let_go(old)) {
		release(old);
	}
	int fd = -1;
	const char *conf = NULL;
	int status = c->h->ask(c->h->data, seat, c->cred.pid, &fd, &conf, why, sizeof(why));
	if (status != 0) {
		if (status != EXIT_NOT_READY) {
			log_info("handout: pid %d asked for seat %s: %s", (int)c->cred.pid, seat, why);
		}
		reply(c, status, why, -1);
		return false;
	}
	if (!reply(c, 0, conf != NULL ? conf : "", fd)) {
		/* Never handed out: the seat's holder is not this one. */
		c->h->gone(c->h->data, seat);
		return false;
	}
	snprintf(c->seat, sizeof(c->seat), "%s", seat);
	poller_timer_arm(c->timer, 0);
	log_info("seat %s: lease handed out to pid %d", seat, (int)c->cred.pid);
	return true;
}

static void hold_event(int fd, uint32_t events, void *data) {
	struct hold *c = data;
	char buf[SEAT_NAME_MAX + 16]; /* a request; anything longer is not one */
	int got = -1;
	ssize_t n = (events & EPOLLIN) ? fdpass_recv(fd, buf, sizeof(buf), &got) : 0;
	if (got >= 0) {
		close(got); /* no client has one to send */
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	if (c->seat[0] == '\0') {
		/* A request, or a client that went before sending one. */
		if (n <= 0 || !take_request(c, buf, (size_t)n)) {
			hold_close(c);
		}
		return;
	}
	/* The holder has ended (the connection closed everywhere it was
	 * inherited), or says it lets go: either way, the lease is back. */
	release(c);
}

static void hold_timed_out(void *data) {
	struct hold *c = data;
	log_info("handout: pid %d sent no request in %d ms; closed", (int)c->cred.pid,
			REQUEST_TIMEOUT_MS);
	hold_close(c);
}

static void accept_hold(int fd, uint32_t events, void *data) {
	struct handout *h = data;
	struct ucred cred;
	int cfd = sock_accept(fd, &cred, "handout");
	if (cfd < 0) {
		return;
	}
	struct hold *c = xcalloc(1, sizeof(*c));
	*c = (struct hold){.h = h, .fd = cfd, .cred = cred, .next = h->holds};
	h->holds = c;
	c->source = poller_add_fd(h->poller, cfd, EPOLLIN, hold_event, c);
	c->timer = poller_add_timer(h->poller, hold_timed_out, c);
	if (c->source == NULL || c->timer == NULL ||
			poller_timer_arm(c->timer, REQUEST_TIMEOUT_MS) != 0) {
		hold_close(c);
		return;
	}
	/* The socket's mode keeps others out already; this holds even if the
	 * file's mode or the directory's is ever wrong. */
	if (cred.uid != 0) {
		log_warning("handout: refused uid %d (pid %d): only root may take a seat's lease "
				"from %s", (int)cred.uid, (int)cred.pid, h->path);
		reply(c, EXIT_DENIED, "permission denied: only root may take a seat's lease", -1);
		hold_close(c);
	}
}

struct handout *handout_open(struct poller *poller, const char *runtime_dir, const char *name,
		handout_ask_fn ask, handout_gone_fn gone, void *data) {
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", runtime_dir, name);
	if (n < 0 || (size_t)n >= sizeof(addr.sun_path)) {
		log_error("handout: runtime_dir %s is too long for a socket path", runtime_dir);
		return NULL;
	}
	struct handout *h = xcalloc(1, sizeof(*h));
	*h = (struct handout){.poller = poller, .ask = ask, .gone = gone, .data = data};
	snprintf(h->path, sizeof(h->path), "%s", addr.sun_path);
	h->fd = sock_bind(h->path, SOCK_SEQPACKET);
	if (h->fd < 0 || listen(h->fd, 16) != 0 ||
			(h->source = poller_add_fd(poller, h->fd, EPOLLIN, accept_hold, h)) == NULL) {
		log_error("handout: cannot set up %s: %s; display managers' seats get no lease",
				h->path, strerror(errno));
		if (h->fd >= 0) {
			close(h->fd);
			unlink(h->path);
		}
		free(h);
		return NULL;
	}
	return h;
}

void handout_close(struct handout *h) {
	if (h == NULL) {
		return;
	}
	while (h->holds != NULL) {
		hold_close(h->holds);
	}
	poller_remove(h->source);
	close(h->fd);
	unlink(h->path);
	free(h);
}

static struct hold *find_hold(const struct handout *h, const char *seat) {
	for (struct hold *c = h != NULL ? h->holds : NULL; c != NULL; c = c->next) {
		if (c->seat[0] != '\0' && strcmp(c->seat, seat) == 0) {
			return c;
		}
	}
	return NULL;
}

void handout_end(struct handout *h, const char *seat) {
	struct hold *c = find_hold(h, seat);
	if (c != NULL) {
		log_info("seat %s: its lease is no longer pid %d's", seat, (int)c->cred.pid);
		hold_close(c);
	}
}
