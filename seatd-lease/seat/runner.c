#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "input-hold.h"
#include "libseat-socket.h"
#include "log.h"
#include "logind-seat.h"
#include "pids.h"
#include "revoke.h"
#include "runner-impl.h"
#include "runtime.h"
#include "seatmap.h"
#include "values.h"
#include "xalloc.h"

/* How long udev gets to apply a seat's input rules before the seat goes on. */
#define INPUT_TIMEOUT_MS 5000

/* How long a seat's killed processes get to leave its cgroup, at its end. */
#define CGROUP_EMPTY_TIMEOUT_MS 1000

static struct runner *runner_of(struct seat *seat) {
	return seat->data;
}

struct seat *runner_seat(struct runner *r) {
	return &r->seat;
}

bool runner_on_link(const struct runner *r, const struct lessor_link *link) {
	return r->link == link;
}

const char *runner_name(const struct runner *r) {
	return r->seat.config->name;
}

uint64_t runner_now_us(clockid_t clock) {
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* --- the lease --- */

/* us microseconds as milliseconds with three decimals, in buf. */
static const char *ms_text(uint64_t us, char buf[32]) {
	snprintf(buf, 32, "%llu.%03llu", (unsigned long long)(us / 1000),
			(unsigned long long)(us % 1000));
	return buf;
}

static enum lease_result op_lease(struct seat *seat, struct lease **out, char *err,
		size_t errlen) {
	return lessor_link_lease(runner_of(seat)->link, seat->config, out, err, errlen);
}

static void op_release(struct seat *seat, struct lease *lease) {
	struct runner *r = runner_of(seat);
	/* The outputs first: the lessor ends the lease (the drm lessor's
	 * RevokeLease, the x11 lessor's FreeLease). Then the cleaning: closing
	 * the lease's file has the kernel free whatever the last X server left
	 * on it, milliseconds under TCG (docs/figures.md). */
	lessor_link_end(r->link, lease);
	/* Timed only on a process's exit (child_exited), which read the wall
	 * clock first: here the CPU clock is, so that each span's CPU time lies
	 * within its wall clock's, whatever the reads themselves take. */
	bool timed = r->exit_seen_us != 0;
	uint64_t freed_cpu = timed ? runner_now_us(CLOCK_THREAD_CPUTIME_ID) : 0;
	uint64_t freed = timed ? runner_now_us(CLOCK_MONOTONIC) : 0;
	lessor_link_release(r->link, lease);
	if (timed) {
		uint64_t closed_cpu = runner_now_us(CLOCK_THREAD_CPUTIME_ID);
		uint64_t closed = runner_now_us(CLOCK_MONOTONIC);
		char wall[32], cpu[32], close_wall[32], close_cpu[32];
		log_info("seat %s: lease freed %s ms after a process's exit was seen (%s ms of "
				"seatd-lease's CPU); its file closed %s ms after that (%s ms of CPU)",
				seat->config->name, ms_text(freed - r->exit_seen_us, wall),
				ms_text(freed_cpu - r->exit_seen_cpu_us, cpu),
				ms_text(closed - freed, close_wall), ms_text(closed_cpu - freed_cpu, close_cpu));
	}
}

static void op_wipe(struct seat *seat, struct lease *lease) {
	lease_wipe(lease, seat->config->name);
}

/* --- the seat's devices, cgroup and directory --- */

static void log_inputs(const struct seat_config *c, const struct input_counts *got) {
	log_info("seat %s: %d input device%s assigned (%d keyboard%s, %d pointer%s)", c->name,
			got->devices, got->devices == 1 ? "" : "s", got->keyboards,
			got->keyboards == 1 ? "" : "s", got->pointers, got->pointers == 1 ? "" : "s");
	if (got->others > 0) {
		log_info("seat %s: %d other device%s (devices =)", c->name, got->others,
				got->others == 1 ? "" : "s");
	}
	if (got->keyboards == 0 || got->pointers == 0) {
		log_warning("seat %s: no %s matches its inputs now; one plugged in later joins it",
				c->name, got->keyboards == 0 && got->pointers == 0 ? "keyboard or pointer"
				: got->keyboards == 0 ? "keyboard" : "pointer");
	}
}

/* udev has the seat's devices: the X server, which takes them, may start. */
static void inputs_assigned(void *data, const struct input_counts *got) {
	struct runner *r = data;
	r->assigning = NULL;
	log_inputs(r->seat.config, got);
	seat_inputs_assigned(&r->seat);
}

/* The seat's cgroup for this run, emptied of whatever an earlier run left
 * (before the seat's directories are made anew: what is left could hold
 * them). Without it the seat runs as before, in its process groups. */
static void join_cgroup(struct runner *r) {
	if (r->env->cgroups == NULL || r->cgroup_procs >= 0) {
		return;
	}
	char why[512];
	r->cgroup_procs = cgroups_seat_procs(r->env->cgroups, r->seat.config->name, why,
			sizeof(why));
	if (r->cgroup_procs < 0) {
		log_warning("seat %s: %s; its processes run without a cgroup of their own",
				r->seat.config->name, why);
	}
}

/* udev has given the seat's devices back (fleet_reap, after this turn of
 * the loop, sees that the seat is done with them). */
static void inputs_released(void *data, const struct input_counts *counts) {
	struct runner *r = data;
	r->releasing = NULL;
}

/* Any hold another process kept on the seat's input devices is revoked,
 * and the devices go back to seat0: the one place they are given back. On
 * the loop (r->releasing), or, once the loop has ended, here (only when it
 * failed: a loop that ends well waits for releases). */
static void runner_release_inputs(struct runner *r, bool loop_ended) {
	if (!r->inputs_assigned) {
		return;
	}
	const char *name = r->seat.config->name;
	char **nodes = input_seat_nodes(name);
	revoke_input_holders(name, nodes);
	strv_free(nodes);
	if (loop_ended) {
		input_release(name, INPUT_TIMEOUT_MS);
	} else {
		r->releasing = input_release_start(r->env->poller, name, INPUT_TIMEOUT_MS,
				inputs_released, r);
	}
	r->inputs_assigned = false;
}

/* The seat's devices between two of its X servers: any hold another
 * process kept on them revoked, then held by the daemon alone until the
 * next X server starts. Given back to seat0 they would type into the
 * primary's desktop for the whole back-off. */
static void hold_inputs(struct runner *r) {
	const char *name = r->seat.config->name;
	if (!r->inputs_assigned || r->held != NULL) {
		return;
	}
	char **nodes = input_seat_nodes(name);
	revoke_input_holders(name, nodes);
	r->held = input_hold_take(nodes);
	strv_free(nodes);
	log_info("seat %s: holding its %d input device%s until its next X server", name,
			input_hold_count(r->held), input_hold_count(r->held) == 1 ? "" : "s");
}

static void end_hold(struct runner *r) {
	input_hold_release(r->held);
	r->held = NULL;
}

/*
 * Once the seat's X server and session are gone: whatever they started
 * that is still there (in the seat's cgroup) is killed, then, if the seat
 * restarts (keep_inputs), its devices stay its own (hold_inputs); else any
 * hold another process kept on them is revoked, and they go back to seat0
 * (see runner_release_inputs).
 */
static void end_seat_run(struct runner *r, bool loop_ended, bool keep_inputs) {
	const char *name = r->seat.config->name;
	runner_wayland_end(r);
	if (r->cgroup_procs >= 0) {
		close(r->cgroup_procs);
		r->cgroup_procs = -1;
		int left = cgroups_seat_kill(r->env->cgroups, name);
		if (left > 0) {
			log_notice("seat %s: killed %d process%s that outlived its session", name,
					left, left == 1 ? "" : "es");
		}
	}
	/* What pam_systemd moved out of the seat's cgroup, if its opener could
	 * not end it (logind-seat.h). */
	const struct seat_config *c = r->seat.config;
	logind_end_sessions(name, c->display_manager || c->compositor != NULL ? -1 : c->display,
			NULL, NULL);
	if (keep_inputs) {
		hold_inputs(r);
		return;
	}
	end_hold(r);
	runner_release_inputs(r, loop_ended);
}

/* Has udev assign the seat's devices (and make it a logind seat): 1 when
 * under way, 0 when there is nothing to wait for. user owns its input
 * devices. */
static int assign_inputs(struct runner *r, const char *user) {
	const struct seat_config *c = r->seat.config;
	/* Also without inputs: its devices =, and its logind seat. */
	if (r->inputs_assigned || (c->n_inputs == 0 && c->n_devices == 0 &&
			!logind_seats_wanted(r->map))) {
		return 0;
	}
	/* Its devices are the seat's again, whatever udev has made of the
	 * release so far. */
	input_op_cancel(r->releasing);
	r->releasing = NULL;
	/* A seat without its devices is still a screen: go on, and say so. */
	char why[512];
	r->assigning = input_assign_start(r->env->poller, c, user, logind_seats_wanted(r->map),
			INPUT_TIMEOUT_MS, inputs_assigned, r, why, sizeof(why));
	if (r->assigning == NULL) {
		log_error("seat %s: cannot assign its input devices: %s; starting it without "
				"them", c->name, why);
		return 0;
	}
	r->inputs_assigned = true;
	return 1;
}

/* A display manager's seat: no user, no display of ours; its directory and
 * its input devices are root's (its X server runs as root). */
static int prepare_dm(struct runner *r, char *err, size_t errlen) {
	join_cgroup(r);
	if (runtime_seat_prepare(r->map->runtime_dir, r->seat.config->name, 0, 0,
			r->map->seat_runtime_size, err, errlen) != 0) {
		return -1;
	}
	runtime_mark_power(r->paths.dir, r->seat.config->name, r->seat.config->power_local);
	return assign_inputs(r, "root");
}

static int op_prepare(struct seat *seat, char *err, size_t errlen) {
	struct runner *r = runner_of(seat);
	const struct seat_config *c = seat->config;
	if (c->display_manager) {
		return prepare_dm(r, err, errlen);
	}
	if (!r->have_user) {
		if (!seat_user_lookup(c->user, &r->user, err, errlen)) {
			return -1;
		}
		r->have_user = true;
	}
	join_cgroup(r);
	/* A Wayland seat has no display of ours. */
	if (runtime_seat_prepare(r->map->runtime_dir, c->name, r->user.uid, r->user.gid,
			r->map->seat_runtime_size, err, errlen) != 0 || (c->compositor == NULL &&
			display_prepare(&r->display, c->name, r->paths.dir, r->user.uid, err,
			errlen) != 0)) {
		return -1;
	}
	runtime_mark_power(r->paths.dir, c->name, c->power_local);
	return assign_inputs(r, r->user.name);
}

static void op_cancel_prepare(struct seat *seat) {
	struct runner *r = runner_of(seat);
	input_op_cancel(r->assigning);
	r->assigning = NULL;
}

static int op_start_xserver(struct seat *seat, char *err, size_t errlen) {
	/* Its X server takes the devices as they come free. */
	end_hold(runner_of(seat));
	if (seat->config->display_manager) {
		return runner_dm_offer(runner_of(seat), err, errlen);
	}
	if (seat->config->compositor != NULL) {
		return runner_wayland_start(runner_of(seat), err, errlen);
	}
	return runner_spawn_xserver(runner_of(seat), err, errlen);
}

static int op_start_session(struct seat *seat, char *err, size_t errlen) {
	return runner_spawn_session(runner_of(seat), err, errlen);
}

static void op_kill(struct seat *seat, int signo) {
	struct runner *r = runner_of(seat);
	if (seat->config->display_manager) {
		/* Not a process of ours: its hold ends, and with it the lease. */
		runner_dm_end(r);
		return;
	}
	/* Each child leads its own process group (setsid): stop the group. */
	if (seat->session_alive && r->session.pid > 0) {
		kill(-r->session.pid, signo);
	}
	if (seat->xserver_alive && r->xserver.pid > 0) {
		kill(-r->xserver.pid, signo);
	}
}

static void op_arm_timer(struct seat *seat, uint64_t ms) {
	poller_timer_arm(runner_of(seat)->timer, ms);
}

static uint64_t op_now(struct seat *seat) {
	return poller_now_ms();
}

static void op_changed(struct seat *seat, enum seat_state old, const char *why) {
	struct runner *r = runner_of(seat);
	const char *name = seat->config->name;
	const char *state = seat_state_name(seat->state);
	enum log_level level = seat->state == SEAT_FAILED ? LOG_LEVEL_ERROR
		: seat->state == SEAT_BACKOFF || (seat->state == SEAT_WAITING && why[0] != '\0')
		? LOG_LEVEL_WARNING : LOG_LEVEL_NOTICE;
	if (why[0] != '\0') {
		log_printf(level, "seat %s: %s -> %s: %s", name, seat_state_name(old), state, why);
	} else {
		log_printf(level, "seat %s: %s -> %s", name, seat_state_name(old), state);
	}
	if (seat->state == SEAT_RUNNING && !seat->config->display_manager) {
		/* What a restarted daemon needs to take the seat over. */
		runner_record(r);
	}
	if (seat_is_idle(seat) || seat->state == SEAT_WAITING || seat->state == SEAT_BACKOFF) {
		/* No process of the seat is left: its pids file must not outlive
		 * them, and its devices go back to seat0. */
		pids_remove(r->paths.dir);
		end_seat_run(r, false, seat->state == SEAT_BACKOFF);
	}
	if (seat->state == SEAT_STOPPED) {
		/* Its file system goes with it; a failed seat keeps its logs. */
		runtime_seat_unmount(r->map->runtime_dir, name);
	}
	r->env->changed(r->env->data);
}

static const struct seat_ops runner_ops = {
	.lease = op_lease,
	.release = op_release,
	.wipe = op_wipe,
	.prepare = op_prepare,
	.cancel_prepare = op_cancel_prepare,
	.start_xserver = op_start_xserver,
	.start_session = op_start_session,
	.kill = op_kill,
	.arm_timer = op_arm_timer,
	.now = op_now,
	.changed = op_changed,
};

static void runner_timer(void *data) {
	struct runner *r = data;
	seat_timer(&r->seat);
}

/* --- the runner --- */

struct runner *runner_create(const struct runner_env *env, struct seatmap *map,
		const struct seat_config *config) {
	struct runner *r = xcalloc(1, sizeof(*r));
	*r = (struct runner){.env = env, .ready_fd = -1, .cgroup_procs = -1};
	r->map = seatmap_copy_seat(map, config);
	config = &r->map->seats[0];
	r->xserver.pidfd = r->session.pidfd = -1;
	r->xserver.error_fd = r->session.error_fd = -1;
	display_hold_init(&r->display, config->display);
	seat_paths_init(&r->paths, r->map->runtime_dir, config->name);
	seat_init(&r->seat, config, &runner_ops, r);
	r->timer = poller_add_timer(env->poller, runner_timer, r);
	r->link = r->timer != NULL ? card_lessors_get(env->links, config->card) : NULL;
	if (r->link == NULL) {
		log_error("cannot set up seat %s: %s", config->name, strerror(errno));
		poller_remove(r->timer);
		seat_paths_finish(&r->paths);
		seat_finish(&r->seat);
		seatmap_free(r->map);
		free(r);
		return NULL;
	}
	return r;
}

void runner_destroy(struct runner *r) {
	if (r->seat.config->display_manager && r->env->handout != NULL) {
		handout_end(r->env->handout, r->seat.config->name);
	}
	runner_dm_cancel(r);
	lessor_link_release(r->link, r->seat.lease);
	r->seat.lease = NULL;
	runner_stop_watching_ready(r);
	input_op_cancel(r->assigning);
	r->assigning = NULL;
	end_seat_run(r, true, false);
	input_op_cancel(r->releasing);
	if (r->env->cgroups != NULL) {
		cgroups_seat_remove(r->env->cgroups, r->seat.config->name, CGROUP_EMPTY_TIMEOUT_MS);
	}
	poller_remove(r->timer);
	runtime_remove_seat_dir(r->map->runtime_dir, r->seat.config->name);
	display_release(&r->display);
	seat_paths_finish(&r->paths);
	if (r->have_user) {
		seat_user_finish(&r->user);
	}
	free(r->card_node);
	strv_free(r->libseat_refused);
	seat_finish(&r->seat);
	card_lessors_put(r->env->links, r->link);
	seatmap_free(r->map);
	free(r);
}

bool runner_is_done(const struct runner *r) {
	return seat_is_idle(&r->seat) && r->releasing == NULL;
}

void runner_status(const struct runner *r, const struct input_nodes *all,
		struct seat_status *s, char ***inputs, char ***devices) {
	*inputs = input_nodes_of(all, runner_name(r));
	*devices = input_device_nodes_of(all, runner_name(r));
	/* A display manager's seat: its X server is the lease's holder. */
	pid_t xserver = r->seat.config->display_manager ? r->dm_holder : r->xserver.pid;
	status_of_seat(s, &r->seat, xserver, r->session.pid, *inputs, poller_now_ms(),
			time(NULL));
	status_set_devices(s, *devices);
	s->handed_out = libseat_socket_devices(r->libseat);
}
