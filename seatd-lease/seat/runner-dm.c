#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit-status.h"
#include "handout-wire.h"
#include "log.h"
#include "runner-impl.h"
#include "xorgconf.h"

/*
 * A display manager's seat (session = display-manager): where another seat
 * spawns its X server, this one offers its lease on the hand-out
 * (handout.h), and the X server its display manager starts through
 * `seatd-lease xserver` takes it. The seat then runs with no process of
 * ours; the holder comes and goes (a logout ends its X server, the display
 * manager starts the next), and the lease stays the seat's in between,
 * wiped of the last one's picture. Stopping the seat ends the hold: the
 * lease goes back to the lessor, whatever the holder does with its fd.
 */

static void offered(void *data) {
	struct runner *r = data;
	r->dm_defer = NULL;
	seat_xserver_ready(&r->seat);
}

int runner_dm_offer(struct runner *r, char *err, size_t errlen) {
	const struct seat_config *c = r->seat.config;
	char *conf = xorg_conf_generate(c);
	if (conf == NULL) {
		snprintf(err, errlen, "cannot read xorg_conf %s: %s", c->xorg_conf, strerror(errno));
		return -1;
	}
	free(r->dm_conf);
	r->dm_conf = conf;
	r->dm_defer = poller_defer(r->env->poller, offered, r);
	log_info("seat %s: its lease waits for its display manager's X server "
			"(seatd-lease xserver -seat seat-%s)", c->name, c->name);
	return 0;
}

static void ended(void *data) {
	struct runner *r = data;
	r->dm_defer = NULL;
	seat_child_exited(&r->seat, SEAT_CHILD_XSERVER, false, 0);
}

void runner_dm_end(struct runner *r) {
	if (r->env->handout != NULL) {
		handout_end(r->env->handout, r->seat.config->name);
	}
	r->dm_holder = 0;
	/* Whatever was due (the offer) is void now. */
	poller_remove(r->dm_defer);
	r->dm_defer = NULL;
	if (r->seat.xserver_alive) {
		r->dm_defer = poller_defer(r->env->poller, ended, r);
	}
}

void runner_dm_cancel(struct runner *r) {
	poller_remove(r->dm_defer);
	r->dm_defer = NULL;
	free(r->dm_conf);
	r->dm_conf = NULL;
}

int runner_dm_ask(struct runner *r, pid_t pid, int *fd, const char **conf, char *why,
		size_t whylen) {
	const char *name = r->seat.config->name;
	if (!r->seat.config->display_manager) {
		snprintf(why, whylen, "seat %s is not a display manager's: seatd-lease runs its X "
				"server itself (give it session = display-manager)", name);
		return EXIT_FAILED;
	}
	if (r->seat.state != SEAT_RUNNING || r->seat.lease == NULL) {
		snprintf(why, whylen, "seat %s has no lease yet (%s%s%s)", name,
				seat_state_name(r->seat.state), r->seat.last_error[0] ? ": " : "",
				r->seat.last_error);
		return seat_is_idle(&r->seat) ? EXIT_FAILED : EXIT_NOT_READY;
	}
	if (r->dm_holder != 0) {
		snprintf(why, whylen, "seat %s's lease is held by pid %d already; it is handed "
				"out again once that process has ended", name, (int)r->dm_holder);
		return EXIT_FAILED;
	}
	r->dm_holder = pid;
	*fd = r->seat.lease->fd;
	*conf = r->dm_conf;
	r->env->changed(r->env->data);
	return 0;
}

void runner_dm_gone(struct runner *r) {
	r->dm_holder = 0;
	if (r->seat.lease != NULL) {
		/* The last holder's picture and framebuffers go; the next holder
		 * starts on a clean lease. */
		lease_wipe(r->seat.lease, r->seat.config->name);
	}
	r->env->changed(r->env->data);
}
