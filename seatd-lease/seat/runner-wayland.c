#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drm-card.h"
#include "input.h"
#include "libseat-socket.h"
#include "libseat-wire.h"
#include "log.h"
#include "runner-impl.h"
#include "runtime.h"
#include "seat-acl.h"
#include "text.h"
#include "values.h"
#include "xalloc.h"

/*
 * A Wayland seat: its compositor in the X server's place (r->xserver), and
 * the seat's libseat socket, through which the compositor gets the seat's
 * lease for its card and the seat's input devices, and nothing else.
 */

/* What a client of the socket holds: the lease (nothing of it to take
 * back but with the lease itself), or an input device, whose open file
 * is ours too, to revoke. */
struct handed {
	int fd; /* -1 for the card */
};

/* Whether path names the seat's card: as the map gives it, or as the
 * kernel's node, which is what the compositor is told (WLR_DRM_DEVICES). */
static bool is_card(const struct runner *r, const char *path) {
	return strcmp(path, r->seat.config->card) == 0 ||
		(r->card_node != NULL && strcmp(path, r->card_node) == 0);
}

/* The seat's input device at path, opened by us: -1 (errno EACCES) if it
 * is not one of the seat's event nodes now. */
static int open_input(const struct runner *r, const char *path) {
	char **nodes = input_seat_nodes(r->seat.config->name);
	bool ours = false;
	for (size_t i = 0; nodes != NULL && nodes[i] != NULL && !ours; i++) {
		ours = strcmp(nodes[i], path) == 0;
	}
	strv_free(nodes);
	if (!ours) {
		errno = EACCES;
		return -1;
	}
	/* A node of udev's, in /dev (root's): no link is followed. */
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))) {
		close(fd);
		errno = EACCES;
		return -1;
	}
	return fd;
}

/* Says once per path and run of the seat what it refused. */
static void refused(struct runner *r, const char *path, pid_t pid, int err) {
	for (size_t i = 0; r->libseat_refused != NULL && r->libseat_refused[i] != NULL; i++) {
		if (strcmp(r->libseat_refused[i], path) == 0) {
			return;
		}
	}
	r->libseat_refused = strv_push(r->libseat_refused, xstrdup(path));
	char shown[4 * LIBSEAT_PATH_MAX + 1];
	log_warning("seat %s: refused its compositor (pid %d) %s: %s", r->seat.config->name,
			(int)pid, text_escape(path, shown, sizeof(shown)), err == EACCES
			? "not the seat's card nor one of its input devices" : strerror(err));
}

/* The seat hears on the loop's next turn that its compositor has its
 * lease: not from inside the socket's callback, which what the seat does
 * next could close. */
static void compositor_has_lease(void *data) {
	struct runner *r = data;
	r->ready_defer = NULL;
	seat_xserver_ready(&r->seat);
}

static int libseat_open(void *data, const char *path, const struct ucred *peer, void **token) {
	struct runner *r = data;
	struct handed *h = xcalloc(1, sizeof(*h));
	int fd;
	if (is_card(r, path) && r->seat.lease != NULL) {
		h->fd = -1;
		fd = fcntl(r->seat.lease->fd, F_DUPFD_CLOEXEC, 3);
	} else {
		h->fd = open_input(r, path);
		fd = h->fd >= 0 ? fcntl(h->fd, F_DUPFD_CLOEXEC, 3) : -1;
	}
	if (fd < 0) {
		int e = errno;
		refused(r, path, peer->pid, e);
		if (h->fd >= 0) {
			close(h->fd);
		}
		free(h);
		errno = e;
		return -1;
	}
	*token = h;
	if (h->fd < 0 && !r->compositor_ready) {
		r->compositor_ready = true;
		log_info("seat %s: its compositor (pid %d) has its lease", r->seat.config->name,
				(int)peer->pid);
		r->ready_defer = poller_defer(r->env->poller, compositor_has_lease, r);
	}
	return fd;
}

static void libseat_close(void *data, void *token) {
	struct handed *h = token;
	if (h->fd >= 0) {
		/* Its open file is theirs too: revoked, it is theirs no more. */
		ioctl(h->fd, EVIOCREVOKE, NULL);
		close(h->fd);
	}
	free(h);
}

int runner_wayland_start(struct runner *r, char *err, size_t errlen) {
	const struct seat_config *c = r->seat.config;
	char node[PATH_MAX], id[SEAT_ID_MAX];
	/* wlroots splits WLR_DRM_DEVICES at ':', which by-path names hold. */
	if (realpath(c->card, node) == NULL) {
		snprintf(err, errlen, "cannot resolve card %s: %s", c->card, strerror(errno));
		return -1;
	}
	free(r->card_node);
	r->card_node = xstrdup(node);
	r->compositor_ready = false;
	strv_free(r->libseat_refused);
	r->libseat_refused = NULL;
	char *sock = xasprintf("%s/" SEAT_LIBSEAT_SOCKET, r->paths.dir);
	r->libseat = libseat_socket_open(r->env->poller, sock, c->name, seat_id(c->name, id),
			r->user.uid, r->user.gid, libseat_open, libseat_close, r);
	if (r->libseat == NULL) {
		snprintf(err, errlen, "cannot set up its libseat socket %s", sock);
		free(sock);
		return -1;
	}
	/* GPU compositors render on the card's render node, which is seat0's
	 * (udev's uaccess): the seat's user gets it while the seat runs. */
	char render[64];
	if (drm_card_render_node(c->card, render, sizeof(render)) == 0) {
		seat_acl_grant(r->paths.dir, c->name, render, r->user.uid);
	}
	char **envp = compositor_environ(c, &r->user, &r->paths, sock, r->card_node);
	free(sock);
	/* On a logind seat, a session of type wayland (display -1). */
	if (runner_spawn_program(r, &r->xserver, c->compositor, -1, envp, SEAT_COMPOSITOR_LOG,
			"compositor", err, errlen) != 0) {
		runner_wayland_end(r);
		return -1;
	}
	return 0;
}

void runner_wayland_end(struct runner *r) {
	poller_remove(r->ready_defer);
	r->ready_defer = NULL;
	if (r->seat.config->compositor != NULL) {
		int seatfd = runtime_seat_dir_open(r->paths.dir);
		if (seatfd >= 0) {
			seat_acl_revoke(seatfd, r->seat.config->name);
			close(seatfd);
		}
	}
	libseat_socket_close(r->libseat);
	r->libseat = NULL;
	r->compositor_ready = false;
}
