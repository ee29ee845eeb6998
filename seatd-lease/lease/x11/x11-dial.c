#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <xcb/randr.h>
#include <xcb/xcb.h>

#include "log.h"
#include "x11-dial.h"
#include "xalloc.h"
#include "xauth.h"

/* RandR 1.6 brought CreateLease. */
#define RANDR_MAJOR 1
#define RANDR_MINOR 6

/* Larger Xauthority files are not read. */
#define XAUTHORITY_MAX (1024 * 1024)

#define MIT_COOKIE "MIT-MAGIC-COOKIE-1"

struct x11_dial {
	/* Guards done and abandoned: whichever side comes second frees. */
	pthread_mutex_t lock;
	bool done, abandoned;
	/* Posted once the thread has its own file system attributes
	 * (unshare_err: 0, or why not). */
	sem_t own_fs;
	int unshare_err;
	int done_fd; /* eventfd, written once done (unless abandoned) */
	int fds[2];  /* connected sockets not yet handed to libxcb */
	char *display;
	char *xauthority;
	int screen;
	uint8_t cookie[256];
	size_t cookie_len; /* 0: none, connect without */
	/* The thread's results, read by the loop once done. */
	bool ok;
	struct x11_link link;
	char err[512];
};

const char *x11_conn_error_text(int error) {
	switch (error) {
	case XCB_CONN_ERROR:
		return "the connection failed or was closed (is the X server running, and does "
				"the xauthority file hold its cookie?)";
	case XCB_CONN_CLOSED_EXT_NOTSUPPORTED:
		return "a required extension is missing";
	case XCB_CONN_CLOSED_MEM_INSUFFICIENT:
		return "out of memory";
	case XCB_CONN_CLOSED_REQ_LEN_EXCEED:
		return "a request was too long";
	case XCB_CONN_CLOSED_PARSE_ERR:
		return "the display name does not parse";
	case XCB_CONN_CLOSED_INVALID_SCREEN:
		return "the display has no such screen";
	case XCB_CONN_CLOSED_FDPASSING_FAILED:
		return "passing a file descriptor failed";
	default:
		return "unknown connection error";
	}
}

void x11_error_text(uint8_t first_error, const xcb_generic_error_t *e, char *buf, size_t len) {
	static const char *const core[] = {
		[1] = "BadRequest", [2] = "BadValue", [3] = "BadWindow", [8] = "BadMatch",
		[10] = "BadAccess", [11] = "BadAlloc", [14] = "BadIDChoice", [16] = "BadLength",
		[17] = "BadImplementation",
	};
	static const char *const randr[] = {
		"BadRROutput", "BadRRCrtc", "BadRRMode", "BadRRProvider", "BadRRLease",
	};
	const char *name = NULL;
	if (e->error_code < sizeof(core) / sizeof(core[0])) {
		name = core[e->error_code];
	} else if (e->error_code >= first_error
			&& e->error_code - first_error < (int)(sizeof(randr) / sizeof(randr[0]))) {
		name = randr[e->error_code - first_error];
	}
	snprintf(buf, len, "%s (error %u, value 0x%x)", name != NULL ? name : "an unknown error",
			e->error_code, e->resource_id);
}

static void dial_free(struct x11_dial *d) {
	if (d->link.conn != NULL) {
		xcb_disconnect(d->link.conn);
	}
	if (d->link.events != NULL) {
		xcb_disconnect(d->link.events);
	}
	for (int i = 0; i < 2; i++) {
		if (d->fds[i] >= 0) {
			close(d->fds[i]);
		}
	}
	if (d->done_fd >= 0) {
		close(d->done_fd);
	}
	pthread_mutex_destroy(&d->lock);
	sem_destroy(&d->own_fs);
	free(d->display);
	free(d->xauthority);
	free(d);
}

/* --- on the dial's thread: nothing but the dial's own memory --- */

/* The setup of socket i, then its screen and RandR >= 1.6 checked. */
static bool setup(struct x11_dial *d, int i, xcb_connection_t **out) {
	xcb_auth_info_t auth = {
		.namelen = (int)strlen(MIT_COOKIE), .name = (char *)MIT_COOKIE,
		.datalen = (int)d->cookie_len, .data = (char *)d->cookie,
	};
	/* libxcb owns the socket from here, and closes it on failure. */
	xcb_connection_t *conn = xcb_connect_to_fd(d->fds[i], d->cookie_len > 0 ? &auth : NULL);
	d->fds[i] = -1;
	*out = conn;
	int error = xcb_connection_has_error(conn);
	if (error != 0) {
		snprintf(d->err, sizeof(d->err), "cannot connect to X server %s (xauthority %s): %s",
				d->display, d->xauthority != NULL ? d->xauthority : "none",
				x11_conn_error_text(error));
		return false;
	}
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(conn));
	for (int k = 0; k < d->screen && it.rem > 0; k++) {
		xcb_screen_next(&it);
	}
	if (it.rem == 0) {
		snprintf(d->err, sizeof(d->err), "X server %s has no screen %d", d->display,
				d->screen);
		return false;
	}
	d->link.root = it.data->root;
	const xcb_query_extension_reply_t *ext = xcb_get_extension_data(conn, &xcb_randr_id);
	if (ext == NULL || !ext->present) {
		snprintf(d->err, sizeof(d->err), "X server %s has no RandR extension; leases need "
				"RandR %d.%d", d->display, RANDR_MAJOR, RANDR_MINOR);
		return false;
	}
	d->link.first_event = ext->first_event;
	d->link.first_error = ext->first_error;
	/* Also tells the server we know RandR 1.6: it then shows us non-desktop
	 * outputs as they are. */
	xcb_randr_query_version_reply_t *version = xcb_randr_query_version_reply(conn,
			xcb_randr_query_version(conn, RANDR_MAJOR, RANDR_MINOR), NULL);
	if (version == NULL) {
		snprintf(d->err, sizeof(d->err), "X server %s did not answer RandR QueryVersion",
				d->display);
		return false;
	}
	uint32_t major = version->major_version, minor = version->minor_version;
	free(version);
	if (major < RANDR_MAJOR || (major == RANDR_MAJOR && minor < RANDR_MINOR)) {
		snprintf(d->err, sizeof(d->err), "X server %s has RandR %u.%u; leases need RandR "
				"%d.%d (Xorg 1.20 or later)", d->display, major, minor, RANDR_MAJOR,
				RANDR_MINOR);
		return false;
	}
	return true;
}

static bool select_notify(struct x11_dial *d) {
	xcb_connection_t *events = d->link.events;
	xcb_generic_error_t *e = xcb_request_check(events, xcb_randr_select_input_checked(
			events, d->link.root, XCB_RANDR_NOTIFY_MASK_OUTPUT_CHANGE
			| XCB_RANDR_NOTIFY_MASK_CRTC_CHANGE | XCB_RANDR_NOTIFY_MASK_RESOURCE_CHANGE
			| XCB_RANDR_NOTIFY_MASK_LEASE));
	if (e != NULL) {
		char text[128];
		x11_error_text(d->link.first_error, e, text, sizeof(text));
		free(e);
		snprintf(d->err, sizeof(d->err), "X server %s refused RandR notifications: %s",
				d->display, text);
		return false;
	}
	return true;
}

static void *dial_run(void *data) {
	struct x11_dial *d = data;
	/* The kernel lets only a task whose file system attributes no other
	 * shares change its mount namespace (mountns.h): a thread shares them
	 * (CLONE_FS) unless it unshares them, which the loop waits for. */
	d->unshare_err = unshare(CLONE_FS) == 0 ? 0 : errno;
	sem_post(&d->own_fs);
	d->ok = setup(d, 0, &d->link.conn) && setup(d, 1, &d->link.events) && select_notify(d);
	pthread_mutex_lock(&d->lock);
	d->done = true;
	bool abandoned = d->abandoned;
	if (!abandoned) {
		uint64_t one = 1;
		if (write(d->done_fd, &one, sizeof(one)) < 0) {
			abort(); /* an eventfd written once cannot fail */
		}
	}
	pthread_mutex_unlock(&d->lock);
	if (abandoned) {
		dial_free(d);
	}
	return NULL;
}

/* --- on the loop's thread --- */

/* A socket connected to path (abstract: in the abstract namespace) without
 * waiting, or -1 and errno. */
static int connect_unix(const char *path, bool abstract) {
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(path), off = abstract ? 1 : 0;
	if (off + len >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(addr.sun_path + off, path, len);
	/* The abstract name is counted, the path ends in its NUL: as libxcb. */
	socklen_t addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + off + len
			+ (abstract ? 0 : 1));
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&addr, addrlen) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* A local X server's socket; a full listen queue (EAGAIN) is not waited for. */
static int connect_display(const struct x11_dial *d, int number, char *err, size_t errlen) {
	char path[64];
	snprintf(path, sizeof(path), "/tmp/.X11-unix/X%d", number);
	/* libxcb's order on Linux: the abstract socket, then the file. */
	int fd = connect_unix(path, true);
	if (fd < 0 && (errno == ENOENT || errno == ECONNREFUSED)) {
		fd = connect_unix(path, false);
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot connect to X server %s at %s: %s%s", d->display, path,
				strerror(errno), errno == EAGAIN ? " (it takes no new connection now)"
				: errno == ENOENT || errno == ECONNREFUSED ? " (is it running?)" : "");
	}
	return fd;
}

/* The display's number and screen; a display reached otherwise than over a
 * local socket cannot pass a lease's fd, and is refused. */
static bool parse_display(struct x11_dial *d, int *number, char *err, size_t errlen) {
	char *host = NULL;
	if (!xcb_parse_display(d->display, &host, number, &d->screen)) {
		snprintf(err, errlen, "cannot connect to X server %s: %s", d->display,
				x11_conn_error_text(XCB_CONN_CLOSED_PARSE_ERR));
		return false;
	}
	bool local = host[0] == '\0' || strcmp(host, "unix") == 0;
	free(host);
	if (!local) {
		snprintf(err, errlen, "X server %s is not local: a lease's fd passes only over a "
				"local connection; write display = :N", d->display);
	}
	return local;
}

/* The cookie libxcb would send, from the xauthority file: none if it has
 * none for this host and display. */
static bool find_cookie(struct x11_dial *d, int number, char *err, size_t errlen) {
	if (d->xauthority == NULL) {
		return true; /* none means none: not whatever ~/.Xauthority holds */
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	uint8_t *data = xmalloc(XAUTHORITY_MAX);
	int fd = open(d->xauthority, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;
	if (fd >= 0) {
		size_t size = 0;
		while (size < XAUTHORITY_MAX
				&& (n = read(fd, data + size, XAUTHORITY_MAX - size)) > 0) {
			size += (size_t)n;
		}
		if (n >= 0) {
			d->cookie_len = xauth_find_cookie(data, size, host, number, d->cookie,
					sizeof(d->cookie));
		}
	}
	if (n < 0) {
		snprintf(err, errlen, "cannot read xauthority %s for X server %s: %s", d->xauthority,
				d->display, strerror(errno));
	}
	if (fd >= 0) {
		close(fd);
	}
	free(data);
	return n >= 0;
}

static bool start_thread(struct x11_dial *d, char *err, size_t errlen) {
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	/* Signals are the loop's (signalfd): the thread must take none. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_attr_init(&attr);
	if (e == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		e = pthread_create(&thread, &attr, dial_run, d);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		snprintf(err, errlen, "cannot start a thread to connect to X server %s: %s",
				d->display, strerror(e));
		return false;
	}
	while (sem_wait(&d->own_fs) != 0 && errno == EINTR) {
	}
	if (d->unshare_err != 0) {
		log_warning("connecting to X server %s: its thread shares our file system "
				"attributes (%s): until it is connected, no seat can be mounted or "
				"removed in the host's mount namespace", d->display,
				strerror(d->unshare_err));
	}
	return true;
}

struct x11_dial *x11_dial_start(const char *display, const char *xauthority, char *err,
		size_t errlen) {
	struct x11_dial *d = xcalloc(1, sizeof(*d));
	d->fds[0] = d->fds[1] = d->done_fd = -1;
	pthread_mutex_init(&d->lock, NULL);
	sem_init(&d->own_fs, 0, 0);
	d->display = xstrdup(display);
	d->xauthority = xauthority != NULL ? xstrdup(xauthority) : NULL;
	int number;
	if (!parse_display(d, &number, err, errlen) || !find_cookie(d, number, err, errlen)
			|| (d->fds[0] = connect_display(d, number, err, errlen)) < 0
			|| (d->fds[1] = connect_display(d, number, err, errlen)) < 0) {
		goto fail;
	}
	d->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->done_fd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		goto fail;
	}
	if (!start_thread(d, err, errlen)) {
		goto fail;
	}
	return d;
fail:
	dial_free(d);
	return NULL;
}

int x11_dial_fd(const struct x11_dial *dial) {
	return dial->done_fd;
}

bool x11_dial_finish(struct x11_dial *d, struct x11_link *link, char *err, size_t errlen) {
	pthread_mutex_lock(&d->lock);
	bool done = d->done;
	pthread_mutex_unlock(&d->lock);
	if (!done) {
		/* Readable only once done: not reached. */
		snprintf(err, errlen, "the connection to X server %s is not set up yet", d->display);
		x11_dial_abandon(d);
		return false;
	}
	bool ok = d->ok;
	if (ok) {
		*link = d->link;
		d->link = (struct x11_link){0};
	} else {
		snprintf(err, errlen, "%s", d->err);
	}
	dial_free(d);
	return ok;
}

void x11_dial_abandon(struct x11_dial *d) {
	pthread_mutex_lock(&d->lock);
	bool done = d->done;
	d->abandoned = true;
	pthread_mutex_unlock(&d->lock);
	if (done) {
		dial_free(d);
	}
}
