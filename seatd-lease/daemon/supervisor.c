#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "card-lessors.h"
#include "cgroup.h"
#include "commands.h"
#include "control-client.h"
#include "control.h"
#include "fleet.h"
#include "handout-wire.h"
#include "handout.h"
#include "input.h"
#include "log.h"
#include "machine.h"
#include "master-store.h"
#include "notify.h"
#include "poller.h"
#include "reload.h"
#include "runtime.h"
#include "seat0-keyboard.h"
#include "supervisor.h"
#include "systemd-job.h"
#include "takeover.h"

/*
 * The daemon's two modes, `run` and `seat NAME`, at the top of its layers:
 * this file sets up and runs the loop; commands.c (the control verbs),
 * reload.c and assign-mode.c change the fleet; takeover.c adopts or cleans
 * what an earlier run left; fleet.c holds the seats, each a runner
 * (seat/runner.h, opaque here) driving its state machine (seat/seat.c),
 * with a lessor link per card (lease/card-lessors.h) under the runners.
 * Nothing below calls up: news comes through the listeners set here.
 */
struct supervisor {
	struct fleet fleet;
	struct poller *poller;
	struct card_lessors *links;
	struct control *control;
	struct input_watch *inputs;
	/* NULL where the seats cannot have cgroups (said once at start). */
	struct cgroups *cgroups;
	bool fatal; /* `seat NAME` cannot go on */
	/* Ending for a restart (systemd's restart job): the seats keep running
	 * for the next run to adopt, and nothing of theirs is undone. */
	bool detached;
};

/* --- the hand-out of display managers' seats' leases (handout.h) --- */

static int handout_ask(void *data, const char *seat, pid_t pid, int *fd, const char **conf,
		char *why, size_t whylen) {
	struct fleet *fleet = data;
	struct fleet_seat *fs = fleet_find(fleet, seat);
	if (fs == NULL) {
		snprintf(why, whylen, "no seat %s in %s", seat, fleet->map->path);
		return EXIT_NO_SEAT;
	}
	return runner_dm_ask(fs->runner, pid, fd, conf, why, whylen);
}

static void handout_gone(void *data, const char *seat) {
	struct fleet_seat *fs = fleet_find(data, seat);
	if (fs != NULL) {
		runner_dm_gone(fs->runner);
	}
}

static void seat_changed(void *data) {
	fleet_changed(data);
}

static void lessor_available(void *data, struct lessor_link *link) {
	struct supervisor *sup = data;
	fleet_available(&sup->fleet, link);
}

static void lessor_lost(void *data, struct lessor_link *link) {
	struct supervisor *sup = data;
	fleet_lessor_lost(&sup->fleet, link);
}

static void lessor_fatal(void *data) {
	/* The card's one DRM master is likely another process: waiting would
	 * hide that; the service manager restarts us. */
	struct supervisor *sup = data;
	sup->fatal = true;
	sup->fleet.quit = true;
}

static void on_stop_signal(int signo, void *data) {
	struct supervisor *sup = data;
	if (sup->fleet.shutting_down) {
		return;
	}
	notify_stopping();
	char why[256];
	if (signo == SIGTERM && !sup->fleet.single && restart_pending(why, sizeof(why))) {
		log_notice("%s: %s: leaving every seat running for the next seatd-lease to adopt",
				strsignal(signo), why);
		sup->detached = true;
		sup->fleet.quit = true;
		return;
	}
	log_notice("%s: stopping every seat", strsignal(signo));
	fleet_stop_all(&sup->fleet);
}

static void input_plugged(const char *seat, bool added, const char *node, const char *name,
		void *data) {
	struct supervisor *sup = data;
	for (size_t i = 0; i < sup->fleet.n_seats; i++) {
		if (strcmp(runner_name(sup->fleet.seats[i]->runner), seat) == 0) {
			log_notice("seat %s: %s %s (%s)", seat, added ? "plugged in" : "unplugged",
					name, node);
		}
	}
}

static int setup(struct supervisor *sup, struct seatmap *map, bool single) {
	*sup = (struct supervisor){0};
	/* Whatever started us: default dispositions, nothing blocked; then ours. */
	poller_signals_reset();
	signal(SIGPIPE, SIG_IGN);
	umask(022);
	sup->poller = poller_create();
	if (sup->poller == NULL) {
		log_error("cannot create the event loop: %s", strerror(errno));
		return -1;
	}
	static const struct card_lessors_listener listener_template = {
		.available = lessor_available,
		.lost = lessor_lost,
		.fatal = lessor_fatal,
	};
	struct card_lessors_listener listener = listener_template;
	listener.data = sup;
	sup->links = card_lessors_create(sup->poller, map, single, &listener);
	if (sup->links == NULL ||
			poller_add_signal(sup->poller, SIGTERM, on_stop_signal, sup) == NULL ||
			poller_add_signal(sup->poller, SIGINT, on_stop_signal, sup) == NULL) {
		log_error("cannot set up the event loop: %s", strerror(errno));
		return -1;
	}
	if (runtime_dir_prepare(map->runtime_dir) != 0) {
		return -1;
	}
	char why[512];
	sup->cgroups = cgroups_open(why, sizeof(why));
	if (sup->cgroups == NULL) {
		log_notice("the seats have no cgroups (%s): a process that leaves its session's "
				"process group outlives its seat", why);
	}
	struct runner_env env = {
		.poller = sup->poller,
		.links = sup->links,
		.cgroups = sup->cgroups,
		.changed = seat_changed,
		.data = &sup->fleet,
	};
	fleet_init(&sup->fleet, map, &env);
	sup->fleet.single = single;
	sup->inputs = input_watch_create(sup->poller, input_plugged, sup);
	if (sup->inputs == NULL) {
		log_warning("cannot watch udev for input devices: hot-plugged devices still join "
				"their seats, but are not logged");
	}
	return 0;
}

static void teardown(struct supervisor *sup) {
	control_close(sup->control);
	/* No holder keeps a seat's lease past here (the runners end theirs). */
	handout_close(sup->fleet.env.handout);
	sup->fleet.env.handout = NULL;
	input_watch_destroy(sup->inputs);
	if (sup->detached) {
		/* Every seat as it is, its record up to date: the next run's. */
		for (size_t i = 0; i < sup->fleet.n_seats; i++) {
			runner_record(sup->fleet.seats[i]->runner);
		}
		poller_destroy(sup->poller);
		return;
	}
	/* The runners first: they free their leases while the lessor is there. */
	fleet_finish(&sup->fleet);
	card_lessors_destroy(sup->links);
	cgroups_close(sup->cgroups);
	poller_destroy(sup->poller);
}

static int loop(struct supervisor *sup) {
	while (!sup->fleet.quit) {
		if (poller_dispatch(sup->poller) != 0) {
			log_error("event loop: %s", strerror(errno));
			return -1;
		}
		fleet_reap(&sup->fleet);
	}
	return 0;
}

/* `seat NAME` has one seat and no map to re-read that its unit would not
 * restart it for: SIGHUP must not end it (its default action). */
static void on_hangup_single(int signo, void *data) {
	log_notice("SIGHUP: a seat process does not reload; restart it to apply a changed "
			"seat map");
}

static void on_hangup(int signo, void *data) {
	struct supervisor *sup = data;
	reload(&sup->fleet, NULL);
}

int supervisor_run(struct seatmap *map) {
	struct supervisor sup;
	int status = 1;
	if (control_daemon_running(map->runtime_dir)) {
		log_error("another seatd-lease run is already running (its control socket in %s "
				"answers); stop it first", map->runtime_dir);
		return 1;
	}
	if (setup(&sup, map, false) != 0) {
		goto out;
	}
	if (poller_add_signal(sup.poller, SIGHUP, on_hangup, &sup) == NULL) {
		log_error("cannot set up the event loop: %s", strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < map->n_seats; i++) {
		if (fleet_add(&sup.fleet, map, &map->seats[i]) == NULL) {
			goto out;
		}
	}
	card_lessors_connect(sup.links);
	/* Every card of the map has had its try at systemd's store. */
	master_store_drop_untaken();
	takeover(&sup.fleet, map, sup.cgroups);
	struct seat0_keyboards keyboards;
	input_check_overlaps(map, &keyboards);
	char warning[1024];
	if (seat0_keyboard_warning(keyboards, warning, sizeof(warning))) {
		log_warning("%s", warning);
	}
	if (machine_sysrq_check(MACHINE_SYSRQ_PATH, warning, sizeof(warning))) {
		log_warning("%s", warning);
	}
	sup.control = control_open(sup.poller, map->runtime_dir, map->control_group,
			commands_handle, &sup.fleet);
	sup.fleet.env.handout = handout_open(sup.poller, map->runtime_dir, HANDOUT_SOCKET,
			handout_ask, handout_gone, &sup.fleet);
	for (size_t i = 0; i < sup.fleet.n_seats; i++) {
		seat_start(runner_seat(sup.fleet.seats[i]->runner));
	}
	/* Every seat has been tried: running, starting, or waiting and saying why. */
	notify_ready();
	fleet_notify(&sup.fleet);
	status = loop(&sup) == 0 ? 0 : 1;
out:
	teardown(&sup);
	return status;
}

/* The exit status of `seat NAME` once its loop ended. */
static int seat_exit_status(const struct supervisor *sup, const struct seat *seat) {
	if (sup->fleet.shutting_down) {
		return 0;
	}
	if (seat->exit_known) {
		return seat->exit_status;
	}
	return seat->state == SEAT_FAILED ? 1 : 0;
}

int supervisor_run_seat(struct seatmap *map, const char *name) {
	struct seat_config *config = seatmap_find_seat(map, name);
	if (config == NULL) {
		log_error("no seat %s in %s", name, map->path);
		return 1;
	}
	/* Restarts are the service manager's business here. */
	config->policy.restart = RESTART_NEVER;
	struct supervisor sup;
	int status = 1;
	if (setup(&sup, map, true) != 0) {
		goto out;
	}
	if (poller_add_signal(sup.poller, SIGHUP, on_hangup_single, &sup) == NULL) {
		log_error("cannot set up the event loop: %s", strerror(errno));
		goto out;
	}
	takeover_clean_seat(map, name, sup.cgroups);
	struct fleet_seat *fs = fleet_add(&sup.fleet, map, config);
	if (fs == NULL) {
		goto out;
	}
	if (seatmap_card_lessor(map, config->card) == LESSOR_DRM) {
		log_notice("seat %s: the drm lessor makes this process the DRM master of %s, which "
				"one process at a time can be: for several seats on that card, use "
				"seatd-lease run", name, config->card);
	}
	card_lessors_connect(sup.links);
	master_store_drop_untaken();
	if (sup.fatal) {
		goto out;
	}
	if (config->display_manager) {
		char socket_name[300];
		snprintf(socket_name, sizeof(socket_name), HANDOUT_SOCKET ".%s", name);
		sup.fleet.env.handout = handout_open(sup.poller, map->runtime_dir, socket_name,
				handout_ask, handout_gone, &sup.fleet);
	}
	seat_start(runner_seat(fs->runner));
	notify_ready();
	fleet_notify(&sup.fleet);
	fleet_check_quit(&sup.fleet);
	if (loop(&sup) == 0) {
		status = seat_exit_status(&sup, runner_seat(fs->runner));
	}
out:
	teardown(&sup);
	return status;
}
