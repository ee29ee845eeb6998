#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "log.h"
#include "logind-seat.h"
#include "mountns.h"
#include "pids.h"
#include "runner-impl.h"
#include "runtime.h"
#include "session-helper.h"
#include "values.h"
#include "trusted.h"
#include "xauth.h"
#include "xorgconf.h"

/*
 * A seat's two processes: the X server on the lease, ready when it writes
 * its display number, and the session once it is. Each is watched through
 * its pidfd, and through the pipe that says whether it reached its exec.
 */

static void child_exited(int fd, uint32_t events, void *data);

static const char *child_program(const struct runner *r, const struct seat_process *c) {
	const struct seat_config *s = r->seat.config;
	return c != &r->xserver ? s->session[0] : s->compositor != NULL ? s->compositor[0]
		: r->map->xserver;
}

const char *runner_display_server(const struct runner *r) {
	return r->seat.config->compositor != NULL ? "compositor" : "X server";
}

/* Whether c failed before its exec, as far as its pipe says (-1: unknown
 * yet); once known, the pipe goes. */
static int settle_exec(struct runner *r, struct seat_process *c) {
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
	struct seat_process *c = fd == r->xserver.error_fd ? &r->xserver : &r->session;
	if (settle_exec(r, c) == 0) {
		runner_record(r);
	}
}

void runner_watch_child(struct runner *r, struct seat_process *c, pid_t pid, int pidfd,
		int error_fd) {
	*c = (struct seat_process){.pid = pid, .pidfd = pidfd, .error_fd = error_fd};
	c->source = poller_add_fd(r->env->poller, pidfd, EPOLLIN, child_exited, r);
	c->exec_source = poller_add_fd(r->env->poller, error_fd, EPOLLIN, exec_seen, r);
}

void runner_stop_watching_ready(struct runner *r) {
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
	runner_stop_watching_ready(r);
	if (n > 0) {
		log_info("seat %s: X server ready on :%d", r->seat.config->name,
				r->seat.config->display);
		seat_xserver_ready(&r->seat);
	}
}

int runner_spawn_xserver(struct runner *r, char *err, size_t errlen) {
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
		.lease_fd = r->seat.lease->fd,
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
	r->ready_source = poller_add_fd(r->env->poller, r->ready_fd, EPOLLIN, ready_readable, r);
	runner_watch_child(r, &r->xserver, pid, pidfd, error_fd);
	log_info("seat %s: X server pid %d on :%d", c->name, (int)pid, c->display);
	return 0;
}

int runner_spawn_program(struct runner *r, struct seat_process *slot, char *const *program,
		int display, char **envp, const char *log, const char *what, char *err,
		size_t errlen) {
	const struct seat_config *c = r->seat.config;
	int out = runtime_open_log(r->paths.dir, log, r->user.uid, r->user.gid);
	/* On a logind seat, opened through PAM by a helper of ours, where there
	 * is one. */
	char **helper = logind_seats_wanted(r->map)
			? session_helper_argv(c->name, display, r->user.name, program) : NULL;
	struct spawn_request req = {
		.argv = helper != NULL ? helper : program,
		.helper = helper != NULL,
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
	strv_free(helper);
	strv_free(envp);
	if (out >= 0) {
		close(out);
	}
	if (pid < 0) {
		snprintf(err, errlen, "cannot start the %s: %s", what, why);
		return -1;
	}
	runner_watch_child(r, slot, pid, pidfd, error_fd);
	log_info("seat %s: %s pid %d", c->name, what, (int)pid);
	return 0;
}

int runner_spawn_session(struct runner *r, char *err, size_t errlen) {
	const struct seat_config *c = r->seat.config;
	return runner_spawn_program(r, &r->session, c->session, c->display,
			seat_environ(&r->user, &r->paths, c->display), SEAT_SESSION_LOG, "session", err,
			errlen);
}

void runner_adopt_children(struct runner *r, pid_t xserver, int xserver_pidfd, pid_t session,
		int session_pidfd) {
	r->xserver = (struct seat_process){.pid = xserver, .pidfd = xserver_pidfd, .error_fd = -1,
		.adopted = true};
	r->xserver.source = poller_add_fd(r->env->poller, xserver_pidfd, EPOLLIN, child_exited, r);
	r->session = (struct seat_process){.pid = session, .pidfd = session_pidfd, .error_fd = -1,
		.adopted = true};
	if (session_pidfd >= 0) {
		r->session.source = poller_add_fd(r->env->poller, session_pidfd, EPOLLIN,
				child_exited, r);
	}
}

/* A child whose end its wait could not tell: logged, counted as 255. */
static void unknown_end(struct runner *r, const struct seat_process *c, enum seat_child which,
		struct spawn_exit *ended) {
	if (c->adopted) {
		/* Not our child: only its parent (init) learns how it ended. */
		log_notice("seat %s: the adopted %s (pid %d) ended; how is known only to its "
				"parent: counted as a failure (255)", r->seat.config->name,
				which == SEAT_CHILD_XSERVER ? runner_display_server(r) : "session",
				(int)c->pid);
	} else {
		/* Its pidfd is dropped all the same: it would fire for ever. */
		log_warning("seat %s: the %s (pid %d) ended and was reaped by someone else: "
				"its exit status is lost; counted as 255", r->seat.config->name,
				which == SEAT_CHILD_XSERVER ? runner_display_server(r) : "session",
				(int)c->pid);
	}
	*ended = (struct spawn_exit){.known = false, .status = 255};
}

static void child_exited(int fd, uint32_t events, void *data) {
	struct runner *r = data;
	uint64_t seen = runner_now_us(CLOCK_MONOTONIC), seen_cpu = runner_now_us(CLOCK_THREAD_CPUTIME_ID);
	struct seat_process *c = fd == r->xserver.pidfd ? &r->xserver : &r->session;
	struct spawn_exit ended;
	if (spawn_ended(fd, &ended) == 0) {
		return;
	}
	/* Its group's kill and its reap (three system calls, up to a
	 * millisecond of emulated kernel time under TCG) wait until the seat
	 * has acted on this exit (the lease first) while the seat's other
	 * process runs: the exit cannot end the run then. The last one is
	 * reaped first: the end of a run kills the seat's cgroup, which would
	 * count what is left of this group as outliving the session. */
	pid_t pid = c->pid;
	bool other_runs = (c == &r->xserver ? r->session.pid : r->xserver.pid) > 0;
	if (!other_runs) {
		spawn_reap(pid, fd, &ended);
	}
	enum seat_child which = c == &r->xserver ? SEAT_CHILD_XSERVER : SEAT_CHILD_SESSION;
	char taken[512] = "";
	if (which == SEAT_CHILD_XSERVER && r->seat.state == SEAT_STARTING &&
			r->seat.config->compositor == NULL &&
			display_explain(&r->display, r->user.uid, taken, sizeof(taken))) {
		log_error("seat %s: %s", r->seat.config->name, taken);
	}
	if (!ended.known) {
		unknown_end(r, c, which, &ended);
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
	/* Its pidfd stops being watched after the seat has acted, in this same
	 * turn of the loop (two system calls fewer before the lease is freed). */
	struct poller_source *source = c->source;
	*c = (struct seat_process){.pid = 0, .pidfd = -1, .error_fd = -1};
	if (which == SEAT_CHILD_XSERVER) {
		runner_stop_watching_ready(r);
	}
	/* The lease first (the seat frees it on the first exit), the
	 * bookkeeping after. */
	r->exit_seen_us = seen;
	r->exit_seen_cpu_us = seen_cpu;
	if (failed) {
		char err[640];
		snprintf(err, sizeof(err), "cannot start the %s: %s",
				which == SEAT_CHILD_XSERVER ? runner_display_server(r) : "session", why);
		seat_child_failed(&r->seat, which, err);
	} else {
		seat_child_exited(&r->seat, which, ended.signaled, ended.status);
	}
	r->exit_seen_us = 0;
	if (other_runs) {
		spawn_reap(pid, fd, &ended);
	}
	poller_remove(source);
	close(fd);
	if (taken[0] != '\0') {
		/* Why, for status: the seat says only how the X server ended. */
		size_t at = strlen(r->seat.last_error);
		snprintf(r->seat.last_error + at, sizeof(r->seat.last_error) - at, "; %s", taken);
	}
	if (r->xserver.pid > 0 || r->session.pid > 0) {
		runner_record(r);
	}
}
