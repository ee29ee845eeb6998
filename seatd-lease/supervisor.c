#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "check.h"
#include "control.h"
#include "display.h"
#include "input.h"
#include "lessor.h"
#include "log.h"
#include "mountns.h"
#include "notify.h"
#include "pids.h"
#include "poller.h"
#include "revoke.h"
#include "runtime.h"
#include "seat.h"
#include "spawn.h"
#include "status.h"
#include "supervisor.h"
#include "trusted.h"
#include "values.h"
#include "xauth.h"
#include "xorgconf.h"

/* How long udev gets to apply a seat's input rules before the seat goes on. */
#define INPUT_TIMEOUT_MS 5000

/* How long a seat's killed processes get to leave its cgroup, at its end. */
#define CGROUP_EMPTY_TIMEOUT_MS 1000

/* Back-off between attempts to reach the lessor (the primary X server). */
#define LESSOR_RETRY_MIN_MS 500
#define LESSOR_RETRY_MAX_MS 30000

struct supervisor;

/* A child process of a seat, watched through its pidfd. */
struct child {
	pid_t pid;
	int pidfd;
	/* Until the child's exec is seen: the pipe that tells whether it got
	 * there (see spawn_process), and its source. */
	int error_fd;
	struct poller_source *source, *exec_source;
	bool failed; /* before its exec; why says why */
	char why[512];
};

struct runner {
	struct seat seat;
	struct supervisor *sup;
	struct seatmap *map; /* that holds seat.config: an older one after a reload */
	/* Removed or changed by a reload: stopping, then gone (and, if changed,
	 * started again as replacement). */
	bool retiring;
	const struct seat_config *replacement;
	bool restart_requested; /* `restart NAME`: start again once stopped */
	struct seat_user user;
	bool have_user;
	bool inputs_assigned; /* our udev rules for the seat are in place */
	/* While set, the X server waits for udev to hand the seat its devices:
	 * the seat counts it as started, no process exists yet. */
	struct input_op *assigning;
	/* While set, udev is giving the seat's devices back to seat0: the seat
	 * is stopped, but neither restarted, replaced nor quit on until then. */
	struct input_op *releasing;
	/* A pending X server stopped: its "exit" is reported from the loop. */
	struct poller_source *pending_stopped;
	int pending_signal;
	struct seat_paths paths;
	struct lease *lease;
	struct child xserver, session;
	/* When a child's exit was seen (µs of wall clock and of our own CPU), to
	 * report how long reclaiming its lease took; 0 when none is pending. */
	uint64_t exit_seen_us, exit_seen_cpu_us;
	int ready_fd;
	struct poller_source *ready_source;
	struct poller_source *timer;
	/* The seat's cgroup.procs while the seat runs, -1 without cgroups. */
	int cgroup_procs;
	struct display_hold display; /* its display's names, held from its first start */
};

struct supervisor {
	struct seatmap *map;
	struct poller *poller;
	const struct lessor_impl *impl;
	struct lessor *lessor;
	/* Lost, but not destroyed yet: lost() may come from inside the lessor's
	 * own callback, so the timer destroys it on the next turn. */
	bool lessor_dead;
	struct poller_source *lessor_timer;
	uint64_t lessor_retry_ms;
	struct runner **runners;
	size_t n_runners;
	/* The map the caller gave, and frees. */
	struct seatmap *given;
	/* Maps replaced by a reload, kept while a retiring seat uses them. */
	struct seatmap **old_maps;
	size_t n_old_maps;
	struct control *control;
	struct input_watch *inputs;
	/* NULL where the seats cannot have cgroups (said once at start). */
	struct cgroups *cgroups;
	bool shutting_down;
	bool quit;
	bool single; /* `seat NAME` */
	bool fatal;  /* `seat NAME` cannot go on */
};

static const struct seat_ops runner_ops;

static struct runner *runner_of(struct seat *seat) {
	return seat->data;
}

/* --- the lessor --- */

static void lessor_available(void *data) {
	struct supervisor *sup = data;
	for (size_t i = 0; i < sup->n_runners; i++) {
		seat_available(&sup->runners[i]->seat);
	}
}

static void lessor_connect(struct supervisor *sup);

static void lessor_lost(void *data, const char *why) {
	struct supervisor *sup = data;
	if (sup->lessor_dead) {
		return;
	}
	log_error("lost the %s lessor: %s; every seat stops until it is back", sup->impl->name,
			why);
	sup->lessor_dead = true;
	/* Its leases are void: forget them, the lessor frees them. */
	for (size_t i = 0; i < sup->n_runners; i++) {
		sup->runners[i]->lease = NULL;
	}
	for (size_t i = 0; i < sup->n_runners; i++) {
		seat_lessor_lost(&sup->runners[i]->seat);
	}
	sup->lessor_retry_ms = LESSOR_RETRY_MIN_MS;
	poller_timer_arm(sup->lessor_timer, sup->lessor_retry_ms);
}

static void lessor_connect(struct supervisor *sup) {
	static const struct lessor_listener listener_template = {
		.available = lessor_available,
		.lost = lessor_lost,
	};
	struct lessor_listener listener = listener_template;
	listener.data = sup;
	char err[1024] = "";
	sup->lessor = sup->impl->create(sup->map, sup->poller, &listener, err, sizeof(err));
	if (sup->lessor == NULL && sup->single && sup->map->lessor == LESSOR_DRM) {
		/* The card's one DRM master is likely another process: waiting would
		 * hide that; the service manager restarts us. */
		log_error("lessor %s: %s", sup->impl->name, err);
		sup->fatal = true;
		sup->quit = true;
		return;
	}
	if (sup->lessor == NULL) {
		log_error("lessor %s: %s; trying again in %llums", sup->impl->name, err,
				(unsigned long long)sup->lessor_retry_ms);
		poller_timer_arm(sup->lessor_timer, sup->lessor_retry_ms);
		sup->lessor_retry_ms *= 2;
		if (sup->lessor_retry_ms > LESSOR_RETRY_MAX_MS) {
			sup->lessor_retry_ms = LESSOR_RETRY_MAX_MS;
		}
		return;
	}
	log_notice("lessor %s ready", sup->impl->name);
	sup->lessor_retry_ms = LESSOR_RETRY_MIN_MS;
	lessor_available(sup);
}

static void lessor_timer_fired(void *data) {
	struct supervisor *sup = data;
	if (sup->lessor_dead) {
		sup->impl->destroy(sup->lessor);
		sup->lessor = NULL;
		sup->lessor_dead = false;
	}
	if (sup->lessor == NULL && !sup->shutting_down) {
		lessor_connect(sup);
	}
}

/* --- the seat's effects --- */

static enum lease_result op_lease(struct seat *seat, char *err, size_t errlen) {
	struct runner *r = runner_of(seat);
	struct supervisor *sup = r->sup;
	if (sup->lessor == NULL || sup->lessor_dead) {
		snprintf(err, errlen, "waiting for the %s lessor", sup->impl->name);
		return LEASE_WAIT;
	}
	const struct seat_config *c = seat->config;
	return sup->impl->lease(sup->lessor, c->name, c->outputs, c->n_outputs, &r->lease, err,
			errlen);
}

static uint64_t now_us(clockid_t clock) {
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void op_release(struct seat *seat) {
	struct runner *r = runner_of(seat);
	if (r->lease != NULL && r->sup->lessor != NULL && !r->sup->lessor_dead) {
		r->sup->impl->release(r->sup->lessor, r->lease);
	}
	r->lease = NULL;
	if (r->exit_seen_us != 0) {
		uint64_t wall = now_us(CLOCK_MONOTONIC) - r->exit_seen_us;
		uint64_t cpu = now_us(CLOCK_THREAD_CPUTIME_ID) - r->exit_seen_cpu_us;
		log_info("seat %s: lease freed %llu.%03llu ms after a process's exit was seen "
				"(%llu.%03llu ms of seatd-lease's CPU)", seat->config->name,
				(unsigned long long)(wall / 1000), (unsigned long long)(wall % 1000),
				(unsigned long long)(cpu / 1000), (unsigned long long)(cpu % 1000));
	}
}

static void child_exited(int fd, uint32_t events, void *data);

static const char *child_program(const struct runner *r, const struct child *c) {
	return c == &r->xserver ? r->map->xserver : r->seat.config->session[0];
}

/* The record names the children that run their programs: it holds what
 * /proc says each one's executable is, which before its exec is ours. */
static void record_pids(struct runner *r) {
	const struct child *x = &r->xserver, *s = &r->session;
	pids_write(r->paths.dir, r->user.uid, x->error_fd < 0 ? x->pid : 0,
			s->error_fd < 0 ? s->pid : 0);
}

/* Whether c failed before its exec, as far as its pipe says (-1: unknown
 * yet); once known, the pipe goes. */
static int settle_exec(struct runner *r, struct child *c) {
	int failed = spawn_failure(c->error_fd, child_program(r, c), c->why, sizeof(c->why));
	if (failed >= 0) {
		c->failed = failed > 0;
		poller_remove(c->exec_source);
		close(c->error_fd);
		c->exec_source = NULL;
		c->error_fd = -1;
	}
	return failed;
}

static void exec_seen(int fd, uint32_t events, void *data) {
	struct runner *r = data;
	struct child *c = fd == r->xserver.error_fd ? &r->xserver : &r->session;
	if (settle_exec(r, c) == 0) {
		record_pids(r);
	}
}

static void watch_child(struct runner *r, struct child *c, pid_t pid, int pidfd, int error_fd) {
	*c = (struct child){.pid = pid, .pidfd = pidfd, .error_fd = error_fd};
	c->source = poller_add_fd(r->sup->poller, pidfd, EPOLLIN, child_exited, r);
	c->exec_source = poller_add_fd(r->sup->poller, error_fd, EPOLLIN, exec_seen, r);
}

static void stop_watching_ready(struct runner *r) {
	poller_remove(r->ready_source);
	r->ready_source = NULL;
	if (r->ready_fd >= 0) {
		close(r->ready_fd);
		r->ready_fd = -1;
	}
}

static void ready_readable(int fd, uint32_t events, void *data) {
	struct runner *r = data;
	char buf[32];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n < 0 && errno == EAGAIN) {
		return;
	}
	/* Xorg writes the number and the newline in two writes, and dies if the
	 * second fails: keep the pipe open until the newline. An EOF means the
	 * X server died, which its pidfd reports. */
	if (n > 0 && memchr(buf, '\n', (size_t)n) == NULL) {
		return;
	}
	stop_watching_ready(r);
	if (n > 0) {
		log_info("seat %s: X server ready on :%d", r->seat.config->name,
				r->seat.config->display);
		seat_xserver_ready(&r->seat);
	}
}

static int spawn_xserver(struct runner *r, char *err, size_t errlen) {
	const struct seat_config *c = r->seat.config;
	const struct seat_user *u = &r->user;
	/* xorg_conf_generate() reads the snippet only if this holds: say why not. */
	int snippet = c->xorg_conf != NULL ? trusted_open_file("xorg_conf", c->xorg_conf, err,
			errlen) : -2;
	if (snippet == -1) {
		return -1;
	}
	if (snippet >= 0) {
		close(snippet);
	}
	char *conf = xorg_conf_generate(c);
	if (conf == NULL) {
		snprintf(err, errlen, "cannot read xorg_conf %s: %s", c->xorg_conf, strerror(errno));
		return -1;
	}
	/* The user's to read, not to replace (the directory is root's). */
	int ret = runtime_write_file(r->paths.dir, SEAT_XORG_CONF, conf, strlen(conf), 0600,
			u->uid, u->gid);
	free(conf);
	if (ret != 0) {
		snprintf(err, errlen, "cannot write %s: %s", r->paths.xorg_conf, strerror(errno));
		return -1;
	}
	if (xauth_write(r->paths.dir, SEAT_XAUTHORITY, c->display, u->uid, u->gid, err,
			errlen) != 0) {
		return -1;
	}
	int ready[2];
	if (pipe2(ready, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	int out = runtime_open_log(r->paths.dir, SEAT_XORG_STDERR, u->uid, u->gid);
	char **argv = xserver_argv(r->map, c, &r->paths);
	char **envp = seat_environ(&r->user, &r->paths, -1);
	struct spawn_request req = {
		.argv = argv,
		.envp = envp,
		.user = &r->user,
		.lease_fd = r->lease->fd,
		.ready_fd = ready[1],
		.output_fd = out,
		.cgroup_fd = r->cgroup_procs,
	};
	int pidfd, error_fd;
	char why[512];
	struct mountns_saved ns;
	pid_t pid = -1;
	if (display_xserver_enter(r->map->runtime_dir, c->name, &ns, why, sizeof(why)) == 0) {
		pid = spawn_process(&req, &pidfd, &error_fd, why, sizeof(why));
		mountns_leave(&ns);
	}
	strv_free(argv);
	strv_free(envp);
	if (out >= 0) {
		close(out);
	}
	close(ready[1]);
	if (pid < 0) {
		close(ready[0]);
		snprintf(err, errlen, "cannot start the X server: %s", why);
		return -1;
	}
	r->ready_fd = ready[0];
	r->ready_source = poller_add_fd(r->sup->poller, r->ready_fd, EPOLLIN, ready_readable, r);
	watch_child(r, &r->xserver, pid, pidfd, error_fd);
	log_info("seat %s: X server pid %d on :%d", c->name, (int)pid, c->display);
	return 0;
}

static void log_inputs(const struct seat_config *c, const struct input_counts *got) {
	log_info("seat %s: %d input device%s assigned (%d keyboard%s, %d pointer%s)", c->name,
			got->devices, got->devices == 1 ? "" : "s", got->keyboards,
			got->keyboards == 1 ? "" : "s", got->pointers, got->pointers == 1 ? "" : "s");
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
	char err[1024];
	if (spawn_xserver(r, err, sizeof(err)) != 0) {
		seat_xserver_failed(&r->seat, err);
	}
}

/* udev has given the seat's devices back (reap and check_quit, after this
 * turn of the loop, see that the seat is done with them). */
static void inputs_released(void *data, const struct input_counts *counts) {
	struct runner *r = data;
	(void)counts;
	r->releasing = NULL;
}

static void pending_stopped(void *data) {
	struct runner *r = data;
	seat_child_exited(&r->seat, SEAT_CHILD_XSERVER, true, r->pending_signal);
}

/* The seat's cgroup for this run, emptied of whatever an earlier run left
 * (before the seat's directories are made anew: what is left could hold
 * them). Without it the seat runs as before, in its process groups. */
static void join_cgroup(struct runner *r) {
	if (r->sup->cgroups == NULL || r->cgroup_procs >= 0) {
		return;
	}
	char why[512];
	r->cgroup_procs = cgroups_seat_procs(r->sup->cgroups, r->seat.config->name, why,
			sizeof(why));
	if (r->cgroup_procs < 0) {
		log_warning("seat %s: %s; its processes run without a cgroup of their own",
				r->seat.config->name, why);
	}
}

/*
 * Once the seat's X server and session are gone: whatever they started
 * that is still there (in the seat's cgroup) is killed, any hold another
 * process kept on the seat's input devices is revoked, and the devices go
 * back to seat0: on the loop (r->releasing), or, once the loop has ended,
 * here (only when it failed: a loop that ends well waits for releases).
 */
static void end_seat_run(struct runner *r, bool loop_ended) {
	const char *name = r->seat.config->name;
	if (r->cgroup_procs >= 0) {
		close(r->cgroup_procs);
		r->cgroup_procs = -1;
		int left = cgroups_seat_kill(r->sup->cgroups, name);
		if (left > 0) {
			log_notice("seat %s: killed %d process%s that outlived its session", name,
					left, left == 1 ? "" : "es");
		}
	}
	if (r->inputs_assigned) {
		char **nodes = input_seat_nodes(name);
		revoke_input_holders(name, nodes);
		strv_free(nodes);
		if (loop_ended) {
			input_release(name, INPUT_TIMEOUT_MS);
		} else {
			r->releasing = input_release_start(r->sup->poller, name, INPUT_TIMEOUT_MS,
					inputs_released, r);
		}
		r->inputs_assigned = false;
	}
}

static int op_start_xserver(struct seat *seat, char *err, size_t errlen) {
	struct runner *r = runner_of(seat);
	const struct seat_config *c = seat->config;
	if (!r->have_user) {
		if (!seat_user_lookup(c->user, &r->user, err, errlen)) {
			return -1;
		}
		r->have_user = true;
	}
	join_cgroup(r);
	if (runtime_seat_prepare(r->map->runtime_dir, c->name, r->user.uid, r->user.gid,
			r->map->seat_runtime_size, err, errlen) != 0 ||
			display_prepare(&r->display, c->name, r->paths.dir, r->user.uid, err,
			errlen) != 0) {
		return -1;
	}
	if (!r->inputs_assigned && c->n_inputs > 0) {
		/* Its devices are the seat's again, whatever udev has made of the
		 * release so far. */
		input_op_cancel(r->releasing);
		r->releasing = NULL;
		/* A seat without its devices is still a screen: go on, and say so. */
		char why[512];
		r->assigning = input_assign_start(r->sup->poller, c, r->user.name, INPUT_TIMEOUT_MS,
				inputs_assigned, r, why, sizeof(why));
		if (r->assigning == NULL) {
			log_error("seat %s: cannot assign its input devices: %s; starting it without "
					"them", c->name, why);
		} else {
			r->inputs_assigned = true;
			return 0;
		}
	}
	return spawn_xserver(r, err, errlen);
}

static int op_start_session(struct seat *seat, char *err, size_t errlen) {
	struct runner *r = runner_of(seat);
	const struct seat_config *c = seat->config;
	char **envp = seat_environ(&r->user, &r->paths, c->display);
	int out = runtime_open_log(r->paths.dir, SEAT_SESSION_LOG, r->user.uid, r->user.gid);
	char *const *argv = c->session;
	struct spawn_request req = {
		.argv = argv,
		.envp = envp,
		.user = &r->user,
		.lease_fd = -1,
		.ready_fd = -1,
		.output_fd = out,
		.cgroup_fd = r->cgroup_procs,
	};
	int pidfd, error_fd;
	char why[512];
	pid_t pid = spawn_process(&req, &pidfd, &error_fd, why, sizeof(why));
	strv_free(envp);
	if (out >= 0) {
		close(out);
	}
	if (pid < 0) {
		snprintf(err, errlen, "cannot start the session: %s", why);
		return -1;
	}
	watch_child(r, &r->session, pid, pidfd, error_fd);
	log_info("seat %s: session pid %d", c->name, (int)pid);
	return 0;
}

static void op_kill(struct seat *seat, int signo) {
	struct runner *r = runner_of(seat);
	if (r->assigning != NULL) {
		/* Nothing to signal yet: stop waiting, and let the seat hear of it
		 * on the next turn, as of a process that exited. */
		input_op_cancel(r->assigning);
		r->assigning = NULL;
		r->pending_signal = signo;
		poller_timer_arm(r->pending_stopped, 1);
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
	(void)seat;
	return poller_now_ms();
}

/* STATUS= for systemd: how many seats run, and the first that does not. */
static void notify_seats(struct supervisor *sup) {
	if (!notify_enabled()) {
		return;
	}
	size_t running = 0;
	const struct runner *other = NULL;
	for (size_t i = 0; i < sup->n_runners; i++) {
		const struct runner *r = sup->runners[i];
		if (r->seat.state == SEAT_RUNNING) {
			running++;
		} else if (other == NULL && !r->retiring) {
			other = r;
		}
	}
	char text[768];
	int n = snprintf(text, sizeof(text), "%zu/%zu seats running", running, sup->n_runners);
	if (other != NULL && n > 0 && (size_t)n < sizeof(text)) {
		snprintf(text + n, sizeof(text) - (size_t)n, ", %s %s%s%s", other->seat.config->name,
				seat_state_name(other->seat.state), other->seat.last_error[0] != '\0'
				? ": " : "", other->seat.last_error);
	}
	notify_status(text);
}

static void check_quit(struct supervisor *sup) {
	if (sup->quit) {
		return;
	}
	for (size_t i = 0; i < sup->n_runners; i++) {
		if (!seat_is_idle(&sup->runners[i]->seat) || sup->runners[i]->releasing != NULL) {
			return;
		}
	}
	/* Nothing runs: done if asked to stop, or if a lone seat ended. */
	if (sup->shutting_down || sup->single) {
		sup->quit = true;
	}
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
	if (seat_is_idle(seat) || seat->state == SEAT_WAITING || seat->state == SEAT_BACKOFF) {
		/* No process of the seat is left: its pids file must not outlive
		 * them, and its devices go back to seat0. */
		pids_remove(r->paths.dir);
		end_seat_run(r, false);
	}
	if (seat->state == SEAT_STOPPED) {
		/* Its file system goes with it; a failed seat keeps its logs. */
		runtime_seat_unmount(r->map->runtime_dir, name);
	}
	notify_seats(r->sup);
	check_quit(r->sup);
}

static const struct seat_ops runner_ops = {
	.lease = op_lease,
	.release = op_release,
	.start_xserver = op_start_xserver,
	.start_session = op_start_session,
	.kill = op_kill,
	.arm_timer = op_arm_timer,
	.now = op_now,
	.changed = op_changed,
};

static void child_exited(int fd, uint32_t events, void *data) {
	struct runner *r = data;
	uint64_t seen = now_us(CLOCK_MONOTONIC), seen_cpu = now_us(CLOCK_THREAD_CPUTIME_ID);
	struct child *c = fd == r->xserver.pidfd ? &r->xserver : &r->session;
	struct spawn_exit ended;
	if (spawn_reap(c->pid, fd, &ended) == 0) {
		return;
	}
	enum seat_child which = c == &r->xserver ? SEAT_CHILD_XSERVER : SEAT_CHILD_SESSION;
	char taken[512] = "";
	if (which == SEAT_CHILD_XSERVER && r->seat.state == SEAT_STARTING &&
			display_explain(&r->display, r->user.uid, taken, sizeof(taken))) {
		log_error("seat %s: %s", r->seat.config->name, taken);
	}
	if (!ended.known) {
		/* Its pidfd is dropped all the same: it would fire for ever. */
		log_warning("seat %s: the %s (pid %d) ended and was reaped by someone else: "
				"its exit status is lost; counted as 255", r->seat.config->name,
				which == SEAT_CHILD_XSERVER ? "X server" : "session", (int)c->pid);
		ended = (struct spawn_exit){.known = false, .status = 255};
	}
	/* One that never got to its program says why (it has ended, so its end
	 * of the pipe is closed: the answer is there). */
	if (c->error_fd >= 0 && settle_exec(r, c) < 0) {
		poller_remove(c->exec_source);
		close(c->error_fd);
	}
	bool failed = c->failed;
	char why[512];
	snprintf(why, sizeof(why), "%s", c->why);
	poller_remove(c->source);
	close(c->pidfd);
	*c = (struct child){.pid = 0, .pidfd = -1, .error_fd = -1};
	if (which == SEAT_CHILD_XSERVER) {
		stop_watching_ready(r);
	}
	/* The lease first (the seat frees it on the first exit), the
	 * bookkeeping after. */
	r->exit_seen_us = seen;
	r->exit_seen_cpu_us = seen_cpu;
	if (failed) {
		char err[640];
		snprintf(err, sizeof(err), "cannot start the %s: %s",
				which == SEAT_CHILD_XSERVER ? "X server" : "session", why);
		seat_child_failed(&r->seat, which, err);
	} else {
		seat_child_exited(&r->seat, which, ended.signaled, ended.status);
	}
	r->exit_seen_us = 0;
	if (taken[0] != '\0') {
		/* Why, for status: the seat says only how the X server ended. */
		size_t at = strlen(r->seat.last_error);
		snprintf(r->seat.last_error + at, sizeof(r->seat.last_error) - at, "; %s", taken);
	}
	if (r->xserver.pid > 0 || r->session.pid > 0) {
		record_pids(r);
	}
}

static void runner_timer(void *data) {
	struct runner *r = data;
	seat_timer(&r->seat);
}

/* --- the supervisor --- */

static void on_stop_signal(int signo, void *data) {
	struct supervisor *sup = data;
	if (sup->shutting_down) {
		return;
	}
	log_notice("%s: stopping every seat", strsignal(signo));
	notify_stopping();
	sup->shutting_down = true;
	for (size_t i = 0; i < sup->n_runners; i++) {
		sup->runners[i]->restart_requested = false;
		seat_stop(&sup->runners[i]->seat);
	}
	check_quit(sup);
}

static void input_plugged(const char *seat, bool added, const char *node, const char *name,
		void *data) {
	struct supervisor *sup = data;
	for (size_t i = 0; i < sup->n_runners; i++) {
		if (strcmp(sup->runners[i]->seat.config->name, seat) == 0) {
			log_notice("seat %s: %s %s (%s)", seat, added ? "plugged in" : "unplugged",
					name, node);
		}
	}
}

static int setup(struct supervisor *sup, struct seatmap *map) {
	*sup = (struct supervisor){
		.map = map,
		.given = map,
		.impl = lessor_impl_for(map->lessor),
		.lessor_retry_ms = LESSOR_RETRY_MIN_MS,
	};
	/* Whatever started us: default dispositions, nothing blocked; then ours. */
	poller_signals_reset();
	signal(SIGPIPE, SIG_IGN);
	umask(022);
	sup->poller = poller_create();
	if (sup->poller == NULL) {
		log_error("cannot create the event loop: %s", strerror(errno));
		return -1;
	}
	sup->lessor_timer = poller_add_timer(sup->poller, lessor_timer_fired, sup);
	if (sup->lessor_timer == NULL ||
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
	sup->inputs = input_watch_create(sup->poller, input_plugged, sup);
	if (sup->inputs == NULL) {
		log_warning("cannot watch udev for input devices: hot-plugged devices still join "
				"their seats, but are not logged");
	}
	return 0;
}

static struct runner *add_runner(struct supervisor *sup, struct seatmap *map,
		const struct seat_config *config) {
	struct runner *r = calloc(1, sizeof(*r));
	struct runner **runners = realloc(sup->runners, (sup->n_runners + 1) * sizeof(*runners));
	if (r == NULL || runners == NULL) {
		abort();
	}
	sup->runners = runners;
	*r = (struct runner){.sup = sup, .map = map, .ready_fd = -1, .cgroup_procs = -1};
	r->xserver.pidfd = r->session.pidfd = -1;
	r->xserver.error_fd = r->session.error_fd = -1;
	display_hold_init(&r->display, config->display);
	seat_paths_init(&r->paths, map->runtime_dir, config->name);
	seat_init(&r->seat, config, &runner_ops, r);
	r->timer = poller_add_timer(sup->poller, runner_timer, r);
	r->pending_stopped = poller_add_timer(sup->poller, pending_stopped, r);
	if (r->timer == NULL || r->pending_stopped == NULL) {
		log_error("cannot set up seat %s: %s", config->name, strerror(errno));
		seat_paths_finish(&r->paths);
		seat_finish(&r->seat);
		free(r);
		return NULL;
	}
	sup->runners[sup->n_runners++] = r;
	return r;
}

/* Everything the runner holds; it must be idle, or the supervisor ending. */
static void destroy_runner(struct supervisor *sup, struct runner *r) {
	if (r->lease != NULL && sup->lessor != NULL && !sup->lessor_dead) {
		sup->impl->release(sup->lessor, r->lease);
	}
	stop_watching_ready(r);
	input_op_cancel(r->assigning);
	r->assigning = NULL;
	end_seat_run(r, true);
	input_op_cancel(r->releasing);
	if (sup->cgroups != NULL) {
		cgroups_seat_remove(sup->cgroups, r->seat.config->name, CGROUP_EMPTY_TIMEOUT_MS);
	}
	poller_remove(r->timer);
	poller_remove(r->pending_stopped);
	runtime_remove_seat_dir(r->map->runtime_dir, r->seat.config->name);
	display_release(&r->display);
	seat_paths_finish(&r->paths);
	if (r->have_user) {
		seat_user_finish(&r->user);
	}
	seat_finish(&r->seat);
	free(r);
}

static struct runner *find_runner(struct supervisor *sup, const char *name) {
	for (size_t i = 0; i < sup->n_runners; i++) {
		if (!sup->runners[i]->retiring &&
				strcmp(sup->runners[i]->seat.config->name, name) == 0) {
			return sup->runners[i];
		}
	}
	return NULL;
}

static bool map_in_use(const struct supervisor *sup, const struct seatmap *map) {
	for (size_t i = 0; i < sup->n_runners; i++) {
		if (sup->runners[i]->map == map) {
			return true;
		}
	}
	return false;
}

/*
 * After each turn of the loop: seats that a reload retired are gone once
 * stopped (a changed one starts again on its new settings), `restart NAME`
 * starts its stopped seat, and maps no seat uses any more are freed.
 */
static void reap(struct supervisor *sup) {
	for (size_t i = 0; i < sup->n_runners;) {
		struct runner *r = sup->runners[i];
		if (r->restart_requested && seat_is_idle(&r->seat) && r->releasing == NULL &&
				!sup->shutting_down) {
			r->restart_requested = false;
			seat_start(&r->seat);
		}
		if (!r->retiring || !seat_is_idle(&r->seat) || r->releasing != NULL) {
			i++;
			continue;
		}
		const struct seat_config *next = r->replacement;
		memmove(&sup->runners[i], &sup->runners[i + 1],
				(sup->n_runners - i - 1) * sizeof(*sup->runners));
		sup->n_runners--;
		destroy_runner(sup, r);
		if (next != NULL && !sup->shutting_down) {
			struct runner *fresh = add_runner(sup, sup->map, next);
			if (fresh != NULL) {
				seat_start(&fresh->seat);
			}
		}
	}
	for (size_t i = 0; i < sup->n_old_maps;) {
		if (map_in_use(sup, sup->old_maps[i])) {
			i++;
			continue;
		}
		if (sup->old_maps[i] != sup->given) {
			seatmap_free(sup->old_maps[i]);
		}
		sup->old_maps[i] = sup->old_maps[--sup->n_old_maps];
	}
	check_quit(sup);
}

static void teardown(struct supervisor *sup) {
	control_close(sup->control);
	input_watch_destroy(sup->inputs);
	for (size_t i = 0; i < sup->n_runners; i++) {
		destroy_runner(sup, sup->runners[i]);
	}
	free(sup->runners);
	for (size_t i = 0; i < sup->n_old_maps; i++) {
		if (sup->old_maps[i] != sup->given) {
			seatmap_free(sup->old_maps[i]);
		}
	}
	free(sup->old_maps);
	if (sup->lessor != NULL) {
		sup->impl->destroy(sup->lessor);
	}
	cgroups_close(sup->cgroups);
	poller_destroy(sup->poller);
}

static int loop(struct supervisor *sup) {
	while (!sup->quit) {
		if (poller_dispatch(sup->poller) != 0) {
			log_error("event loop: %s", strerror(errno));
			return -1;
		}
		reap(sup);
	}
	return 0;
}

/* --- reload --- */

/*
 * Reads the seat map again. An invalid one changes nothing; a valid one
 * starts new seats, stops removed ones, restarts changed ones and leaves
 * the others alone. The report goes to the log, and to out unless NULL.
 */
static int reload(struct supervisor *sup, FILE *out) {
	char *text = NULL;
	size_t len = 0;
	FILE *report = open_memstream(&text, &len);
	if (report == NULL) {
		abort();
	}
	notify_reloading();
	struct seatmap *map = load_seatmap(sup->map->path, report, "nothing changed");
	int status = CONTROL_FAILED;
	unsigned started = 0, stopped = 0, restarted = 0, kept = 0;
	const char *changed = map != NULL ? seatmap_general_change(sup->map, map) : NULL;
	if (changed != NULL) {
		fprintf(report, "%s: %s in [general] changed; that takes a restart of seatd-lease "
				"(systemctl restart seatd-lease); nothing changed\n", map->path, changed);
		seatmap_free(map);
		map = NULL;
	}
	if (map != NULL) {
		bool xserver_changed = strcmp(sup->map->xserver, map->xserver) != 0;
		size_t n_before = sup->n_runners;
		for (size_t i = 0; i < n_before; i++) {
			struct runner *r = sup->runners[i];
			if (r->retiring) {
				/* Still stopping: it comes back as the new map says, if at all. */
				const struct seat_config *back = seatmap_find_seat(map,
						r->seat.config->name);
				if (back != NULL) {
					started++;
					fprintf(report, "seat %s: in the map again; starting it once its "
							"last run has stopped\n", back->name);
				}
				r->replacement = back;
				continue;
			}
			const struct seat_config *now = seatmap_find_seat(map, r->seat.config->name);
			if (now != NULL && !xserver_changed && seat_config_equal(r->seat.config, now)) {
				/* Same settings: the seat runs on, on the new map's copy. */
				r->seat.config = now;
				r->map = map;
				kept++;
				continue;
			}
			r->retiring = true;
			r->replacement = now;
			r->restart_requested = false;
			now != NULL ? restarted++ : stopped++;
			fprintf(report, "seat %s: %s\n", r->seat.config->name,
					now != NULL ? "changed; restarting it" : "removed; stopping it");
			seat_stop(&r->seat);
		}
		for (size_t i = 0; i < map->n_seats; i++) {
			bool known = false;
			for (size_t k = 0; k < n_before; k++) {
				known |= strcmp(sup->runners[k]->seat.config->name, map->seats[i].name) == 0;
			}
			if (!known) {
				struct runner *r = add_runner(sup, map, &map->seats[i]);
				if (r != NULL) {
					started++;
					fprintf(report, "seat %s: new; starting it\n", map->seats[i].name);
					seat_start(&r->seat);
				}
			}
		}
		struct seatmap **old = realloc(sup->old_maps, (sup->n_old_maps + 1) * sizeof(*old));
		if (old == NULL) {
			abort();
		}
		sup->old_maps = old;
		sup->old_maps[sup->n_old_maps++] = sup->map;
		sup->map = map;
		input_check_overlaps(map);
		fprintf(report, "reloaded %s: %u started, %u stopped, %u restarted, %u unchanged\n",
				map->path, started, stopped, restarted, kept);
		status = CONTROL_OK;
	}
	fclose(report);
	/* Every line to the log as well: a SIGHUP has no one else to tell. */
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
		if (status == CONTROL_OK) {
			log_notice("reload: %s", line);
		} else {
			log_error("reload: %s", line);
		}
		if (out != NULL) {
			fprintf(out, "%s\n", line);
		}
	}
	free(text);
	notify_ready();
	notify_seats(sup);
	return status;
}

/* `seat NAME` has one seat and no map to re-read that its unit would not
 * restart it for: SIGHUP must not end it (its default action). */
static void on_hangup_single(int signo, void *data) {
	(void)signo;
	(void)data;
	log_notice("SIGHUP: a seat process does not reload; restart it to apply a changed "
			"seat map");
}

static void on_hangup(int signo, void *data) {
	(void)signo;
	reload(data, NULL);
}

/* --- control requests --- */

static void fill_status(struct runner *r, struct seat_status *s, char ***inputs) {
	const struct seat_config *c = r->seat.config;
	uint64_t age_s = (poller_now_ms() - r->seat.state_since) / 1000;
	*inputs = input_seat_nodes(c->name);
	size_t n_inputs = 0;
	while (*inputs != NULL && (*inputs)[n_inputs] != NULL) {
		n_inputs++;
	}
	*s = (struct seat_status){
		.name = c->name,
		.state = seat_state_name(r->seat.state),
		.outputs = c->outputs,
		.n_outputs = c->n_outputs,
		.crtcs = r->lease != NULL && r->lease->n_outputs == c->n_outputs ? r->lease->crtcs
			: NULL,
		.leased = r->lease != NULL,
		.lease_id = r->lease != NULL ? r->lease->id : 0,
		.display = c->display,
		.user = c->user,
		.xserver_pid = r->xserver.pid,
		.session_pid = r->session.pid,
		.inputs = *inputs,
		.n_inputs = n_inputs,
		.restarts = r->seat.restarts,
		.since = time(NULL) - (time_t)age_s,
		.last_error = r->seat.last_error,
	};
}

static int print_status(struct supervisor *sup, bool json, FILE *out) {
	struct seat_status *seats = calloc(sup->n_runners + 1, sizeof(*seats));
	char ***inputs = calloc(sup->n_runners + 1, sizeof(*inputs));
	if (seats == NULL || inputs == NULL) {
		abort();
	}
	size_t n = 0;
	for (size_t i = 0; i < sup->n_runners; i++) {
		if (!sup->runners[i]->retiring) {
			fill_status(sup->runners[i], &seats[n], &inputs[n]);
			n++;
		}
	}
	char *text = json ? status_json(seats, n) : status_table(seats, n);
	fputs(text, out);
	free(text);
	for (size_t i = 0; i < n; i++) {
		strv_free(inputs[i]);
	}
	free(inputs);
	free(seats);
	return CONTROL_OK;
}

static int seat_command(struct supervisor *sup, const char *verb, const char *name, FILE *out) {
	struct runner *r = find_runner(sup, name);
	if (r == NULL) {
		fprintf(out, "no seat %s in %s; its seats:", name, sup->map->path);
		for (size_t i = 0; i < sup->n_runners; i++) {
			if (!sup->runners[i]->retiring) {
				fprintf(out, " %s", sup->runners[i]->seat.config->name);
			}
		}
		fprintf(out, "\n");
		return CONTROL_NO_SEAT;
	}
	struct seat *seat = &r->seat;
	const char *was = seat_state_name(seat->state);
	if (strcmp(verb, "start") == 0) {
		if (!seat_is_idle(seat)) {
			fprintf(out, "seat %s is already %s\n", name, was);
			return CONTROL_OK;
		}
		log_notice("seat %s: start asked for", name);
		seat_start(seat);
	} else if (strcmp(verb, "stop") == 0) {
		r->restart_requested = false;
		if (seat_is_idle(seat)) {
			fprintf(out, "seat %s is already %s\n", name, was);
			return CONTROL_OK;
		}
		log_notice("seat %s: stop asked for", name);
		seat_stop(seat);
	} else {
		log_notice("seat %s: restart asked for", name);
		if (seat_is_idle(seat)) {
			seat_start(seat);
		} else {
			r->restart_requested = true;
			seat_stop(seat);
		}
	}
	fprintf(out, "seat %s: %s -> %s\n", name, was, seat_state_name(seat->state));
	return CONTROL_OK;
}

static int on_request(void *data, int argc, char **argv, FILE *out) {
	struct supervisor *sup = data;
	const char *cmd = argv[0];
	if (strcmp(cmd, "status") == 0 && argc <= 2) {
		bool json = argc == 2 && strcmp(argv[1], "--json") == 0;
		if (argc == 2 && !json) {
			fprintf(out, "status takes --json or nothing, not '%s'\n", argv[1]);
			return CONTROL_USAGE;
		}
		return print_status(sup, json, out);
	}
	if ((strcmp(cmd, "start") == 0 || strcmp(cmd, "stop") == 0 ||
			strcmp(cmd, "restart") == 0) && argc == 2) {
		if (sup->shutting_down) {
			fprintf(out, "seatd-lease is stopping\n");
			return CONTROL_FAILED;
		}
		return seat_command(sup, cmd, argv[1], out);
	}
	if (strcmp(cmd, "reload") == 0 && argc == 1) {
		if (sup->shutting_down) {
			fprintf(out, "seatd-lease is stopping\n");
			return CONTROL_FAILED;
		}
		return reload(sup, out);
	}
	fprintf(out, "unknown request '%s'; the daemon takes status [--json], start NAME, stop "
			"NAME, restart NAME, reload\n", cmd);
	return CONTROL_USAGE;
}

/* --- the two modes --- */

int supervisor_run(struct seatmap *map) {
	struct supervisor sup;
	int status = 1;
	if (control_daemon_running(map->runtime_dir)) {
		log_error("another seatd-lease run is already running (its control socket in %s "
				"answers); stop it first", map->runtime_dir);
		return 1;
	}
	if (setup(&sup, map) != 0) {
		goto out;
	}
	if (poller_add_signal(sup.poller, SIGHUP, on_hangup, &sup) == NULL) {
		log_error("cannot set up the event loop: %s", strerror(errno));
		goto out;
	}
	int stale = runtime_clean_stale(map->runtime_dir, NULL);
	if (stale > 0) {
		log_notice("stopped %d process%s left by an earlier run", stale, stale == 1 ? "" : "es");
	}
	if (sup.cgroups != NULL) {
		cgroups_clean_stale(sup.cgroups, NULL, NULL);
	}
	if (input_clean_stale(NULL, INPUT_TIMEOUT_MS) > 0) {
		log_notice("removed the input rules an earlier run left");
	}
	input_check_overlaps(map);
	sup.control = control_open(sup.poller, map->runtime_dir, map->control_group, on_request,
			&sup);
	for (size_t i = 0; i < map->n_seats; i++) {
		if (add_runner(&sup, map, &map->seats[i]) == NULL) {
			goto out;
		}
	}
	lessor_connect(&sup);
	for (size_t i = 0; i < sup.n_runners; i++) {
		seat_start(&sup.runners[i]->seat);
	}
	/* Every seat has been tried: running, starting, or waiting and saying why. */
	notify_ready();
	notify_seats(&sup);
	status = loop(&sup) == 0 ? 0 : 1;
out:
	teardown(&sup);
	/* The caller frees the map it gave; a reload's map is ours. */
	if (sup.map != map) {
		seatmap_free(sup.map);
	}
	return status;
}

/* cgroups_clean_stale's keep for `seat NAME`: only NAME's is ours to clean. */
static bool other_seat(const char *seat, void *name) {
	return strcmp(seat, name) != 0;
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
	if (setup(&sup, map) != 0) {
		goto out;
	}
	sup.single = true;
	if (poller_add_signal(sup.poller, SIGHUP, on_hangup_single, &sup) == NULL) {
		log_error("cannot set up the event loop: %s", strerror(errno));
		goto out;
	}
	runtime_clean_stale(map->runtime_dir, name);
	if (sup.cgroups != NULL) {
		cgroups_clean_stale(sup.cgroups, other_seat, (void *)name);
	}
	input_clean_stale(name, INPUT_TIMEOUT_MS);
	if (add_runner(&sup, map, config) == NULL) {
		goto out;
	}
	if (map->lessor == LESSOR_DRM) {
		log_notice("seat %s: the drm lessor makes this process the DRM master of %s, which "
				"one process at a time can be: for several seats on that card, use "
				"seatd-lease run", name, map->card);
	}
	lessor_connect(&sup);
	if (sup.fatal) {
		goto out;
	}
	struct seat *seat = &sup.runners[0]->seat;
	seat_start(seat);
	notify_ready();
	notify_seats(&sup);
	check_quit(&sup);
	if (loop(&sup) != 0) {
		goto out;
	}
	if (sup.shutting_down) {
		status = 0;
	} else if (seat->exit_known) {
		status = seat->exit_status;
	} else {
		status = seat->state == SEAT_FAILED ? 1 : 0;
	}
out:
	teardown(&sup);
	return status;
}
