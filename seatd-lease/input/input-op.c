#include <errno.h>
#include <libudev.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "input-reload.h"
#include "input-rules.h"
#include "input-udev.h"
#include "input.h"
#include "log.h"
#include "logind-seat.h"
#include "match.h"
#include "values.h"
#include "xalloc.h"

/* USB alone allows 127 devices a bus; a seat has a handful. */
#define MAX_DEVICES 256
#define MAX_RETURNED 64

/* A device an operation tells udev to re-read. */
struct op_device {
	char *syspath, *node; /* node: NULL if it has none */
	bool waiting;         /* told to change; udev has not answered yet */
};

/*
 * Every operation goes the same way, on the loop: the rules change (at the
 * start, a file operation), udevd reloads them (udevadm, a child watched by
 * its pidfd), each device concerned is told to change, and udev's answer for
 * each is awaited. One timer bounds udevadm's run, then udev's answers.
 */
struct input_op {
	struct udev *udev;
	struct udev_monitor *mon; /* udev's answers, from the triggers on */
	struct poller *poller;
	struct poller_source *answers, *timer;
	struct poller_source *next_turn; /* done on the loop's next turn */
	struct input_reload *reload; /* while udevadm runs */
	bool triggered;              /* the devices have been told */
	struct op_device devices[MAX_DEVICES];
	size_t n_devices;
	/* The first n_first devices (a seat's connectors: logind's master
	 * devices of the seat) are told first, the others once udev has
	 * answered for those; sent: how many have been told so far. */
	size_t n_first, sent;
	int pending; /* devices udev has not answered for */
	/* A release's nodes, handed back to seat0: udev sets no owner once our
	 * rule is gone. */
	char *returned[MAX_RETURNED];
	size_t n_returned;
	struct input_counts counts;
	int timeout_ms;
	input_done_fn fn;
	void *data;
};

/* What collect_one looks for, at the operation's start. */
struct collect {
	struct input_op *op;
	const struct seat_config *seat; /* assign: the devices it matches */
	char want[SEAT_ID_MAX];                /* ID_SEAT=seat-NAME; "": any seat of ours */
	/* assign: the devices its devices = match; those below them (a sound
	 * card's nodes) take their seat by udev's rules, and are told too. */
	const char *matched[MAX_DEVICES];
	size_t n_matched;
};

static void count(struct input_counts *counts, struct udev_device *dev) {
	counts->devices++;
	counts->keyboards += udev_device_get_property_value(dev, "ID_INPUT_KEYBOARD") != NULL;
	counts->pointers += udev_device_get_property_value(dev, "ID_INPUT_MOUSE") != NULL ||
		udev_device_get_property_value(dev, "ID_INPUT_TABLET") != NULL ||
		udev_device_get_property_value(dev, "ID_INPUT_TOUCHPAD") != NULL;
}

static char *dup_or_null(const char *s) {
	return s != NULL ? xstrdup(s) : NULL;
}

static void collect_one(struct udev_device *dev, void *data) {
	struct collect *c = data;
	struct input_op *op = c->op;
	const char *id_seat = udev_device_get_property_value(dev, "ID_SEAT");
	bool ours_now = id_seat != NULL && (c->want[0] != '\0' ? strcmp(id_seat, c->want) == 0
			: seat_id_name(id_seat) != NULL);
	bool matches = c->seat != NULL && input_device_matches(dev, c->seat);
	if (matches) {
		count(&op->counts, dev);
	}
	const char *node = udev_device_get_devnode(dev);
	if (c->seat == NULL && ours_now && node != NULL && op->n_returned < MAX_RETURNED) {
		op->returned[op->n_returned++] = dup_or_null(node);
	}
	if ((ours_now || matches) && op->n_devices < MAX_DEVICES) {
		op->devices[op->n_devices++] = (struct op_device){
			.syspath = dup_or_null(udev_device_get_syspath(dev)),
			.node = dup_or_null(node),
		};
	}
}

/* The op's own copy of syspath, NULL if it has not collected it. */
static const char *have_device(const struct input_op *op, const char *syspath) {
	for (size_t i = 0; i < op->n_devices; i++) {
		if (strcmp(op->devices[i].syspath, syspath) == 0) {
			return op->devices[i].syspath;
		}
	}
	return NULL;
}

static void add_device(struct input_op *op, const char *syspath, const char *node) {
	if (op->n_devices < MAX_DEVICES && have_device(op, syspath) == NULL) {
		op->devices[op->n_devices++] = (struct op_device){
			.syspath = xstrdup(syspath),
			.node = dup_or_null(node),
		};
	}
}

/* A device of devices =, or one udev has on a seat of ours (a connector
 * too). On release, the ACL that logind gave its node goes first: once
 * the device is seat0's, no rule of ours clears it (udev's uaccess then
 * gives seat0's active user one, where the device has the tag). */
static void collect_other(struct udev_device *dev, void *data) {
	struct collect *c = data;
	const char *id_seat = udev_device_get_property_value(dev, "ID_SEAT");
	bool ours_now = id_seat != NULL && (c->want[0] != '\0' ? strcmp(id_seat, c->want) == 0
			: seat_id_name(id_seat) != NULL);
	bool matches = c->seat != NULL && c->seat->n_devices > 0 &&
		input_other_device_matches(dev, c->seat);
	const char *node = udev_device_get_devnode(dev);
	const char *syspath = udev_device_get_syspath(dev);
	bool below = false;
	for (size_t i = 0; i < c->n_matched && !matches && !below; i++) {
		size_t len = strlen(c->matched[i]);
		below = strncmp(syspath, c->matched[i], len) == 0 && syspath[len] == '/';
	}
	c->op->counts.others += (matches || below) && node != NULL;
	if (c->seat == NULL && ours_now && node != NULL &&
			removexattr(node, "system.posix_acl_access") != 0 && errno != ENODATA) {
		log_warning("devices: cannot remove the ACL of %s: %s", node, strerror(errno));
	}
	if (ours_now || matches || below) {
		add_device(c->op, syspath, node);
	}
	/* Enumerated parents first: a match's children come after it. */
	const char *kept = matches ? have_device(c->op, syspath) : NULL;
	if (kept != NULL && c->n_matched < MAX_DEVICES) {
		c->matched[c->n_matched++] = kept;
	}
}

/* A device its ID_SEAT puts on the seat now, outside the roots walked. */
static void collect_tagged(struct udev_device *dev, void *data) {
	struct collect *c = data;
	if (have_device(c->op, udev_device_get_syspath(dev)) == NULL) {
		collect_other(dev, data);
	}
}

/* Where each of the seat's devices = can match (input_match_root), or NULL
 * if one of them can match anywhere. */
static char **devices_roots(const struct seat_config *seat) {
	char **roots = xcalloc(seat->n_devices + 1, sizeof(*roots));
	for (size_t i = 0; i < seat->n_devices; i++) {
		char root[PATH_MAX];
		if (!input_match_root(&seat->devices[i], root, sizeof(root))) {
			strv_free(roots);
			return NULL;
		}
		roots[i] = xstrdup(root);
	}
	return roots;
}

/* Reads what udev says on the monitor; returns how many devices it has
 * answered for. A device unplugged after the trigger answers with remove. */
static int take_answers(struct input_op *op) {
	int answered = 0;
	struct udev_device *dev;
	while ((dev = udev_monitor_receive_device(op->mon)) != NULL) {
		const char *action = udev_device_get_action(dev);
		bool answer = action != NULL && (strcmp(action, "change") == 0 ||
				strcmp(action, "remove") == 0);
		for (size_t i = 0; answer && i < op->n_devices; i++) {
			if (op->devices[i].waiting &&
					strcmp(op->devices[i].syspath, udev_device_get_syspath(dev)) == 0) {
				op->devices[i].waiting = false;
				answered++;
			}
		}
		udev_device_unref(dev);
	}
	return answered;
}

static struct udev_monitor *answers_monitor(struct udev *udev) {
	/* Every subsystem: a seat's devices are not all input devices. */
	struct udev_monitor *mon = udev_monitor_new_from_netlink(udev, "udev");
	if (mon != NULL) {
		if (udev_monitor_enable_receiving(mon) != 0) {
			udev_monitor_unref(mon);
			mon = NULL;
		}
	}
	return mon;
}

void input_op_cancel(struct input_op *op) {
	if (op == NULL) {
		return;
	}
	poller_remove(op->answers);
	poller_remove(op->timer);
	poller_remove(op->next_turn);
	input_reload_cancel(op->reload);
	for (size_t i = 0; i < op->n_devices; i++) {
		free(op->devices[i].syspath);
		free(op->devices[i].node);
	}
	for (size_t i = 0; i < op->n_returned; i++) {
		free(op->returned[i]);
	}
	if (op->mon != NULL) {
		udev_monitor_unref(op->mon);
	}
	if (op->udev != NULL) {
		udev_unref(op->udev);
	}
	free(op);
}

/* udev's own rules gave released nodes their group again (input, on Debian);
 * owner root and mode 0660 are what they have without a seat. */
static void give_back(struct input_op *op) {
	for (size_t i = 0; i < op->n_returned; i++) {
		struct stat st;
		if (stat(op->returned[i], &st) == 0 && st.st_uid != 0 &&
				(chown(op->returned[i], 0, st.st_gid) != 0 ||
				chmod(op->returned[i], st.st_gid != 0 ? 0660 : 0600) != 0)) {
			log_warning("inputs: cannot give %s back to root: %s", op->returned[i],
					strerror(errno));
		}
	}
}

/* Tells the caller, then frees: the caller must not cancel it from fn. */
static void op_done(struct input_op *op) {
	if (op->pending > 0) {
		log_warning("inputs: udev did not answer for %d of %zu devices within %d ms; "
				"going on without waiting", op->pending, op->n_devices, op->timeout_ms);
	}
	give_back(op);
	input_done_fn fn = op->fn;
	void *data = op->data;
	struct input_counts counts = op->counts;
	input_op_cancel(op);
	fn(data, &counts);
}

/* Tells the devices of the next phase to change (the first n_first, or
 * the rest), and waits for those told; the ones gone by now answer
 * nothing. */
static void send_phase(struct input_op *op) {
	size_t end = op->sent < op->n_first ? op->n_first : op->n_devices;
	op->pending = 0;
	for (size_t i = op->sent; i < end; i++) {
		struct op_device *d = &op->devices[i];
		const char *what = d->node != NULL ? d->node : d->syspath;
		int ret = input_send_change(d->syspath);
		if (ret == -ENOENT || ret == -ENODEV) {
			log_notice("inputs: %s went away before udev could re-read it; skipping it",
					what);
		} else if (ret < 0) {
			log_warning("inputs: cannot ask udev to re-read %s: %s", what, strerror(-ret));
		}
		d->waiting = ret == 0;
		op->pending += ret == 0;
	}
	op->sent = end;
}

static void answered(int fd, uint32_t events, void *data) {
	struct input_op *op = data;
	op->pending -= take_answers(op);
	while (op->pending <= 0 && op->sent < op->n_devices) {
		send_phase(op);
		poller_timer_arm(op->timer, (uint64_t)op->timeout_ms);
	}
	if (op->pending <= 0) {
		op->pending = 0;
		op_done(op);
	}
}

static void next_turn_came(void *data) {
	struct input_op *op = data;
	op->next_turn = NULL;
	op_done(op);
}

/* Ends op on the loop's next turn, never from inside its start. */
static void done_next_turn(struct input_op *op) {
	op->next_turn = poller_defer(op->poller, next_turn_came, op);
}

/* Tells the devices to change, phase by phase (after the monitor listens:
 * no answer is missed). */
static void send_triggers(struct input_op *op) {
	op->triggered = true;
	op->mon = op->udev != NULL ? answers_monitor(op->udev) : NULL;
	do {
		send_phase(op);
	} while (op->sent < op->n_devices && (op->pending == 0 || op->mon == NULL));
	if (op->mon != NULL && op->pending > 0) {
		op->answers = poller_add_fd(op->poller, udev_monitor_get_fd(op->mon), EPOLLIN,
				answered, op);
	}
	if (op->answers == NULL) {
		/* Nothing to wait for: done on the next turn of the loop. */
		while (op->sent < op->n_devices) {
			send_phase(op);
		}
		op->pending = 0;
		poller_timer_arm(op->timer, 0);
		done_next_turn(op);
		return;
	}
	poller_timer_arm(op->timer, (uint64_t)op->timeout_ms);
}

static void reloaded(void *data, bool ok) {
	struct input_op *op = data;
	op->reload = NULL;
	if (!ok) {
		log_warning("inputs: udevadm control --reload failed; udev may apply the new "
				"rules only after its own check");
	}
	send_triggers(op);
}

/* udevadm's deadline, udev's, or the next turn after the end. */
static void timed_out(void *data) {
	struct input_op *op = data;
	if (!op->triggered) {
		/* udevadm outlived its own timeout: the devices are told all the
		 * same, and udev gets its time to answer. */
		log_warning("inputs: udevadm control --reload did not end within %d ms; killed it",
				op->timeout_ms);
		input_reload_cancel(op->reload);
		op->reload = NULL;
		send_triggers(op);
		return;
	}
	if (op->sent < op->n_devices) {
		log_warning("inputs: udev did not answer for a seat's connectors within %d ms; "
				"telling its other devices all the same", op->timeout_ms);
		for (size_t i = 0; i < op->sent; i++) {
			op->devices[i].waiting = false;
		}
		do {
			send_phase(op);
		} while (op->pending == 0 && op->sent < op->n_devices);
		poller_timer_arm(op->timer, (uint64_t)op->timeout_ms);
		return;
	}
	op_done(op);
}

/* The operation, its rules changed and its devices collected; has udevd
 * reload the rules. NULL if the loop cannot watch it (no timer). */
static struct input_op *op_run(struct poller *poller, struct input_op *op, int timeout_ms,
		input_done_fn fn, void *data) {
	op->poller = poller;
	op->timeout_ms = timeout_ms;
	op->fn = fn;
	op->data = data;
	op->timer = poller_add_timer(poller, timed_out, op);
	if (op->timer == NULL) {
		log_error("inputs: cannot watch udev: %s", strerror(errno));
		input_op_cancel(op);
		return NULL;
	}
	poller_timer_arm(op->timer, (uint64_t)timeout_ms);
	char why[512];
	op->reload = input_reload_start(poller, reloaded, op, why, sizeof(why));
	if (op->reload == NULL) {
		log_warning("inputs: cannot run udevadm control --reload: %s; udev may apply the "
				"new rules only after its own check", why);
		send_triggers(op);
	}
	return op;
}

static struct input_op *op_new(void) {
	struct input_op *op = xcalloc(1, sizeof(*op));
	op->udev = udev_new();
	if (op->udev == NULL) {
		log_error("inputs: cannot talk to udev: %s", strerror(errno));
	}
	return op;
}

static void collect(struct input_op *op, const struct seat_config *seat, const char *seat_name,
		bool logind) {
	struct collect c = {.op = op, .seat = seat};
	if (seat_name != NULL) {
		seat_id(seat_name, c.want);
	}
	if (seat != NULL && logind) {
		char *connectors[16];
		size_t n = logind_connectors(seat, connectors, 16);
		for (size_t i = 0; i < n; i++) {
			add_device(op, connectors[i], NULL);
			free(connectors[i]);
		}
		op->n_first = op->n_devices;
	}
	if (op->udev != NULL) {
		input_each_event_device(op->udev, collect_one, &c);
		/* Only a seat's devices = can match a device that is not its yet;
		 * the rest is the devices its ID_SEAT tags now. */
		char **roots = NULL;
		if (c.want[0] != '\0' && (seat == NULL || seat->n_devices == 0)) {
			input_each_tagged_other_device(op->udev, c.want, collect_other, &c);
		} else if (c.want[0] != '\0' && (roots = devices_roots(seat)) != NULL) {
			/* What its devices = can match is below their roots; sysfs
			 * whole took a few tenths of a second under emulation. */
			input_each_other_device_within(op->udev, roots, seat->n_devices, collect_other,
					&c);
			input_each_tagged_other_device(op->udev, c.want, collect_tagged, &c);
		} else {
			input_each_other_device(op->udev, collect_other, &c);
		}
		strv_free(roots);
	}
}

struct input_op *input_assign_start(struct poller *poller, const struct seat_config *seat,
		const char *user, bool logind, int timeout_ms, input_done_fn fn, void *data,
		char *err, size_t errlen) {
	char *text = input_seat_rules_text(seat, user, logind, err, errlen);
	if (text == NULL) {
		return NULL;
	}
	int ret = input_rules_write(seat->name, text, err, errlen);
	free(text);
	if (ret != 0) {
		return NULL;
	}
	struct input_op *op = op_new();
	collect(op, seat, seat->name, logind);
	op = op_run(poller, op, timeout_ms, fn, data);
	if (op == NULL) {
		char path[4096];
		input_rules_path(seat->name, path, sizeof(path));
		unlink(path);
		snprintf(err, errlen, "cannot watch udev: %s", strerror(errno));
	}
	return op;
}

struct input_op *input_clean_start(struct poller *poller, const char *seat, int timeout_ms,
		input_done_fn fn, void *data, int *removed) {
	*removed = input_rules_remove(INPUT_RULES_DIR, seat);
	struct input_op *op = op_new();
	if (*removed > 0) {
		collect(op, NULL, seat, false);
		return op_run(poller, op, timeout_ms, fn, data);
	}
	/* Nothing to undo: done on the loop's next turn. */
	op->poller = poller;
	op->fn = fn;
	op->data = data;
	op->triggered = true;
	done_next_turn(op);
	return op;
}

struct input_op *input_release_start(struct poller *poller, const char *seat, int timeout_ms,
		input_done_fn fn, void *data) {
	int removed;
	return input_clean_start(poller, seat, timeout_ms, fn, data, &removed);
}
