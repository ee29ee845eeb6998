#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "poller.h"
#include "spawn.h"
#include "values.h"
#include "xauth.h"
#include "xorgconf.h"

static char *args[] = {"-dpi", "96", NULL};

static struct seat_config seat_config(void) {
	return (struct seat_config){
		.name = "lab-1",
		.display = 11,
		.xserver_args = args,
		.n_xserver_args = 2,
	};
}

static void xserver_arguments(void **state) {
	struct seatmap map = {.xserver = "/usr/lib/xorg/Xorg", .runtime_dir = "/run/sl"};
	struct seat_config c = seat_config();
	struct seat_paths paths;
	seat_paths_init(&paths, map.runtime_dir, c.name);
	char **argv = xserver_argv(&map, &c, &paths);
	const char *want[] = {"/usr/lib/xorg/Xorg", ":11", "-seat", "seat-lab-1", "-displayfd", "4",
		"-auth", "/run/sl/lab-1/xauthority", "-logfile", "/run/sl/lab-1/log/Xorg.log",
		"-nolisten", "tcp", "-nolisten", "local", "-noreset", "-masterfd", "3", "-config",
		"/run/sl/lab-1/xorg.conf", "-dpi", "96", NULL};
	for (size_t i = 0; want[i] != NULL; i++) {
		assert_non_null(argv[i]);
		assert_string_equal(argv[i], want[i]);
	}
	assert_null(argv[sizeof(want) / sizeof(want[0]) - 1]);
	strv_free(argv);
	seat_paths_finish(&paths);
}

static void clean_environment(void **state) {
	struct seat_user user = {.uid = 1001, .gid = 1001, .name = "lab1", .home = "/home/lab1",
		.shell = "/bin/bash"};
	struct seat_paths paths;
	seat_paths_init(&paths, "/run/sl", "lab-1");
	char **env = seat_environ(&user, &paths, -1);
	const char *want[] = {"HOME=/home/lab1", "USER=lab1", "LOGNAME=lab1", "SHELL=/bin/bash",
		"PATH=/usr/local/bin:/usr/bin:/bin", "XDG_RUNTIME_DIR=/run/sl/lab-1/xdg", NULL};
	for (size_t i = 0; want[i] != NULL; i++) {
		assert_string_equal(env[i], want[i]);
	}
	assert_null(env[6]);
	strv_free(env);
	env = seat_environ(&user, &paths, 11);
	assert_string_equal(env[6], "DISPLAY=:11");
	assert_string_equal(env[7], "XAUTHORITY=/run/sl/lab-1/xauthority");
	assert_null(env[8]);
	strv_free(env);
	seat_paths_finish(&paths);
}

/* A Wayland seat's compositor: pointed at its socket, card and seat, and
 * at nothing of anyone else's. */
static void compositor_environment(void **state) {
	struct seat_user user = {.uid = 1001, .gid = 1001, .name = "lab1", .home = "/home/lab1",
		.shell = "/bin/bash"};
	struct seat_paths paths;
	seat_paths_init(&paths, "/run/sl", "lab-1");
	struct input_match inputs[1] = {0};
	struct seat_config c = {.name = "lab-1", .inputs = inputs, .n_inputs = 1};
	char **env = compositor_environ(&c, &user, &paths, "/run/sl/lab-1/libseat",
			"/dev/dri/card0");
	const char *want[] = {"HOME=/home/lab1", "USER=lab1", "LOGNAME=lab1", "SHELL=/bin/bash",
		"PATH=/usr/local/bin:/usr/bin:/bin", "XDG_RUNTIME_DIR=/run/sl/lab-1/xdg",
		"LIBSEAT_BACKEND=seatd", "SEATD_SOCK=/run/sl/lab-1/libseat",
		"WLR_DRM_DEVICES=/dev/dri/card0", "XDG_SEAT=seat-lab-1", "XDG_SESSION_TYPE=wayland",
		NULL};
	size_t n = sizeof(want) / sizeof(want[0]) - 1;
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(env[i], want[i]);
	}
	assert_null(env[n]);
	strv_free(env);
	/* wlroots gives up on a seat with no input device unless told. */
	c.n_inputs = 0;
	env = compositor_environ(&c, &user, &paths, "/run/sl/lab-1/libseat", "/dev/dri/card0");
	assert_string_equal(env[n], "WLR_LIBINPUT_NO_DEVICES=1");
	assert_null(env[n + 1]);
	strv_free(env);
	seat_paths_finish(&paths);
}

static void cookie_file_format(void **state) {
	uint8_t cookie[XAUTH_COOKIE_LEN];
	for (int i = 0; i < XAUTH_COOKIE_LEN; i++) {
		cookie[i] = (uint8_t)(0xa0 + i);
	}
	uint8_t buf[128];
	size_t len = xauth_encode(11, cookie, buf, sizeof(buf));
	/* family FamilyWild, empty address, number "11", name, 16-byte data */
	const uint8_t head[] = {0xff, 0xff, 0, 0, 0, 2, '1', '1', 0, 18};
	assert_int_equal(len, sizeof(head) + 18 + 2 + 16);
	assert_memory_equal(buf, head, sizeof(head));
	assert_memory_equal(buf + 10, "MIT-MAGIC-COOKIE-1", 18);
	assert_int_equal(buf[28], 0);
	assert_int_equal(buf[29], 16);
	assert_memory_equal(buf + 30, cookie, 16);
	assert_int_equal(xauth_encode(11, cookie, buf, 20), 0);
}

static void generated_xorg_conf(void **state) {
	/* A snippet is read only if root's (test-xorgconf.c): this one is root's. */
	if (geteuid() != 0) {
		skip();
	}
	char snippet[] = "/tmp/seatd-lease-test-snippet-XXXXXX";
	int fd = mkstemp(snippet);
	assert_true(fd >= 0);
	const char *text = "Section \"InputClass\"\n\tIdentifier \"mine\"\nEndSection\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char *outputs[] = {"HDMI-A-1", "DP-2", NULL};
	struct seat_config c = seat_config();
	c.outputs = outputs;
	c.n_outputs = 2;
	c.mode_width = 1920;
	c.mode_height = 1080;
	c.xorg_conf = snippet;
	char *conf = xorg_conf_generate(&c);
	assert_non_null(conf);
	assert_non_null(strstr(conf, "\tDriver \"modesetting\"\n"));
	/* modesetting calls HDMI-A-1 HDMI-1. */
	assert_non_null(strstr(conf, "Option \"Monitor-HDMI-1\" \"monitor-HDMI-A-1\""));
	assert_non_null(strstr(conf, "Option \"Monitor-DP-2\" \"monitor-DP-2\""));
	assert_non_null(strstr(conf, "Identifier \"monitor-DP-2\"\n\tOption \"PreferredMode\" \"1920x1080\""));
	assert_non_null(strstr(conf, text));
	free(conf);
	unlink(snippet);
	/* An unreadable snippet is an error, not a config without it. */
	assert_null(xorg_conf_generate(&c));
}

static bool in_sleep_call(pid_t pid) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	FILE *f = fopen(path, "r");
	long nr = -1;
	if (f != NULL) {
		if (fscanf(f, "%ld", &nr) != 1) {
			nr = -1;
		}
		fclose(f);
	}
#ifdef SYS_nanosleep
	if (nr == SYS_nanosleep) {
		return true;
	}
#endif
	return nr == SYS_clock_nanosleep;
}

/* Waits for the child's exec (or its failure before it): spawn_failure's
 * answer, the pipe closed. */
static int exec_outcome(int error_fd, const char *program, char *why, size_t len) {
	struct pollfd pfd = {.fd = error_fd, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	int outcome = spawn_failure(error_fd, program, why, len);
	close(error_fd);
	return outcome;
}

static void wait_until_sleeping(pid_t pid) {
	for (int i = 0; i < 500 && !in_sleep_call(pid); i++) {
		usleep(10000);
	}
}

/* The real thing: fork, drop to nobody, keep only fds 0-4. */
/* The descriptors below 31 that pid holds, as a bit mask, and the highest
 * it holds (-1: none). */
static int fds_held(pid_t pid, int *highest) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	assert_non_null(d);
	int seen = 0;
	*highest = -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.') {
			continue;
		}
		int fd = atoi(e->d_name);
		seen |= fd < 31 ? 1 << fd : 0;
		*highest = fd > *highest ? fd : *highest;
	}
	closedir(d);
	return seen;
}

static void spawned_process_holds_only_its_fds(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	struct seat_user user;
	char err[512];
	assert_true(seat_user_lookup("nobody", &user, err, sizeof(err)));
	int lease = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int stray = open("/dev/null", O_RDONLY); /* not close-on-exec: must not leak */
	int ready[2];
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	char *argv[] = {"/bin/sleep", "30", NULL};
	char *envp[] = {"PATH=/bin", NULL};
	struct spawn_request req = {
		.argv = argv, .envp = envp, .user = &user,
		.lease_fd = lease, .ready_fd = ready[1], .output_fd = -1, .cgroup_fd = -1,
	};
	int pidfd, error_fd;
	pid_t pid = spawn_process(&req, &pidfd, &error_fd, err, sizeof(err));
	assert_true(pid > 0);
	assert_int_equal(exec_outcome(error_fd, "/bin/sleep", err, sizeof(err)), 0);
	char path[64];
	/* exec has happened once its pipe has closed, but the dynamic loader
	 * briefly opens libraries at the lowest free fd (5): look once sleep
	 * sleeps. */
	wait_until_sleeping(pid);
	int highest;
	assert_int_equal(fds_held(pid, &highest), 0x1f);
	assert_int_equal(highest, 4);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	char line[256];
	bool checked_uid = false, checked_gid = false, checked_groups = false;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned r, ef, s, fs;
		if (strncmp(line, "Groups:", 7) == 0) {
			/* The groups the parent listed for the user, and no other. */
			size_t n = 0;
			char *p = line + 7, *end;
			for (unsigned long g = strtoul(p, &end, 10); end != p;
					g = strtoul(p, &end, 10)) {
				bool listed = false;
				for (size_t i = 0; i < user.n_groups; i++) {
					listed |= user.groups[i] == (gid_t)g;
				}
				assert_true(listed);
				n++;
				p = end;
			}
			assert_int_equal(n, user.n_groups);
			assert_true(n > 0);
			checked_groups = true;
		}
		if (sscanf(line, "Uid: %u %u %u %u", &r, &ef, &s, &fs) == 4) {
			assert_true(r == user.uid && ef == user.uid && s == user.uid && fs == user.uid);
			checked_uid = true;
		}
		if (sscanf(line, "Gid: %u %u %u %u", &r, &ef, &s, &fs) == 4) {
			assert_true(r == user.gid && ef == user.gid && s == user.gid && fs == user.gid);
			checked_gid = true;
		}
	}
	fclose(f);
	assert_true(checked_uid && checked_gid && checked_groups);
	/* Its own session and process group. */
	assert_int_equal(getsid(pid), pid);
	assert_int_equal(getpgid(pid), pid);
	kill(pid, SIGKILL);
	siginfo_t info;
	assert_int_equal(waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED), 0);
	assert_int_equal(info.si_code, CLD_KILLED);
	close(pidfd);
	close(lease);
	close(stray);
	close(ready[0]);
	close(ready[1]);
	seat_user_finish(&user);
}

/* Not the umask and core size the daemon had. */
static void spawned_process_gets_umask_022_and_no_core(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	mode_t old_mask = umask(0);
	struct rlimit old_core, core;
	assert_int_equal(getrlimit(RLIMIT_CORE, &old_core), 0);
	core = old_core;
	core.rlim_cur = core.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_CORE, &core), 0);
	struct seat_user user;
	char err[512];
	assert_true(seat_user_lookup("nobody", &user, err, sizeof(err)));
	char *argv[] = {"/bin/sleep", "30", NULL};
	char *envp[] = {NULL};
	struct spawn_request req = {.argv = argv, .envp = envp, .user = &user,
		.lease_fd = -1, .ready_fd = -1, .output_fd = -1, .cgroup_fd = -1};
	int pidfd, error_fd;
	pid_t pid = spawn_process(&req, &pidfd, &error_fd, err, sizeof(err));
	umask(old_mask);
	setrlimit(RLIMIT_CORE, &old_core);
	assert_true(pid > 0);
	assert_int_equal(exec_outcome(error_fd, argv[0], err, sizeof(err)), 0);
	char path[64], line[256], soft[32] = "", hard[32] = "";
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	unsigned mask = 07777;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "Umask: %o", &mask);
	}
	fclose(f);
	/* Not prlimit(): that takes CAP_SYS_RESOURCE, which a container may lack. */
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "r");
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "Max core file size %31s %31s", soft, hard);
	}
	fclose(f);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(pidfd);
	seat_user_finish(&user);
	assert_int_equal(mask, 022);
	assert_string_equal(soft, "0");
	char want[32];
	snprintf(want, sizeof(want), "%llu", (unsigned long long)core.rlim_max);
	assert_string_equal(hard, core.rlim_max == RLIM_INFINITY ? "unlimited" : want);
}

static void exec_failure_is_reported(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	struct seat_user user;
	char err[512];
	assert_true(seat_user_lookup("nobody", &user, err, sizeof(err)));
	char *argv[] = {"/nonexistent/Xorg", NULL};
	char *envp[] = {NULL};
	struct spawn_request req = {.argv = argv, .envp = envp, .user = &user,
		.lease_fd = -1, .ready_fd = -1, .output_fd = -1, .cgroup_fd = -1};
	int pidfd, error_fd;
	pid_t pid = spawn_process(&req, &pidfd, &error_fd, err, sizeof(err));
	assert_true(pid > 0);
	/* The child tells why it could not get to its program, and ends. */
	assert_int_equal(exec_outcome(error_fd, argv[0], err, sizeof(err)), 1);
	assert_non_null(strstr(err, "exec /nonexistent/Xorg: No such file or directory"));
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	close(pidfd);
	seat_user_finish(&user);
	assert_false(seat_user_lookup("root", &user, err, sizeof(err)));
	assert_false(seat_user_lookup("no-such-user-here", &user, err, sizeof(err)));
}

/* Until its exec the child may block (an automounted home in
 * chdir): spawn_process must not wait for it. Here the
 * step that blocks is joining a "cgroup" whose procs file is a full pipe. */
static void spawn_does_not_wait_for_a_child_stuck_before_exec(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	struct seat_user user;
	char err[256];
	assert_true(seat_user_lookup("nobody", &user, err, sizeof(err)));
	int stuck[2];
	assert_int_equal(pipe2(stuck, O_CLOEXEC | O_NONBLOCK), 0);
	char fill[4096] = {0};
	while (write(stuck[1], fill, sizeof(fill)) > 0) {
	}
	fcntl(stuck[1], F_SETFL, 0); /* the child's write now blocks */
	char *argv[] = {"/bin/true", NULL};
	char *envp[] = {NULL};
	struct spawn_request req = {.argv = argv, .envp = envp, .user = &user,
		.lease_fd = -1, .ready_fd = -1, .output_fd = -1, .cgroup_fd = stuck[1]};
	int pidfd, error_fd;
	/* A guard, should spawn_process wait: the test fails instead of hanging. */
	alarm(10);
	pid_t pid = spawn_process(&req, &pidfd, &error_fd, err, sizeof(err));
	alarm(0);
	assert_true(pid > 0);
	struct pollfd pfd = {.fd = error_fd, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 200), 0); /* still before its exec */
	assert_int_equal(spawn_failure(error_fd, argv[0], err, sizeof(err)), -1);
	/* Unstuck, it goes on to its program. */
	while (read(stuck[0], fill, sizeof(fill)) == sizeof(fill) && poll(&pfd, 1, 0) == 0) {
	}
	assert_int_equal(exec_outcome(error_fd, argv[0], err, sizeof(err)), 0);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(pidfd);
	close(stuck[0]);
	close(stuck[1]);
	seat_user_finish(&user);
}

struct watch {
	pid_t pid;
	struct poller_source *source;
	int calls, reaped;
	struct spawn_exit ended;
};

/* What children.c's child_exited() does with a pidfd's event. */
static void watched_child(int fd, uint32_t events, void *data) {
	struct watch *w = data;
	w->calls++;
	if (spawn_ended(fd, &w->ended) == 1) {
		spawn_reap(w->pid, fd, &w->ended);
		w->reaped++;
		poller_remove(w->source);
	}
}

static void guard_fired(void *data) {
	*(bool *)data = true;
}

/* Spawns argv as nobody (user, looked up here; finished by the caller)
 * with no descriptor of ours and an empty environment: its pid, and its
 * pidfd in *pidfd. */
static pid_t spawn_as_nobody(char **argv, struct seat_user *user, int *pidfd) {
	char err[512];
	assert_true(seat_user_lookup("nobody", user, err, sizeof(err)));
	char *envp[] = {NULL};
	struct spawn_request req = {.argv = argv, .envp = envp, .user = user,
		.lease_fd = -1, .ready_fd = -1, .output_fd = -1, .cgroup_fd = -1};
	int error_fd;
	pid_t pid = spawn_process(&req, pidfd, &error_fd, err, sizeof(err));
	if (pid < 0) {
		fail_msg("spawn_process: %s", err);
	}
	close(error_fd);
	return pid;
}

/* Spawns argv as nobody and runs a poller on its pidfd until it is reaped
 * (or 3 s or 100 events have passed). */
static struct watch watch_child(char **argv) {
	struct seat_user user;
	int pidfd;
	struct watch w = {0};
	w.pid = spawn_as_nobody(argv, &user, &pidfd);
	struct poller *poller = poller_create();
	w.source = poller_add_fd(poller, pidfd, EPOLLIN, watched_child, &w);
	bool timed_out = false;
	struct poller_source *guard = poller_add_timer(poller, guard_fired, &timed_out);
	poller_timer_arm(guard, 3000);
	while (!timed_out && w.reaped == 0 && w.calls < 100) {
		assert_int_equal(poller_dispatch(poller), 0);
	}
	poller_destroy(poller);
	close(pidfd);
	seat_user_finish(&user);
	return w;
}

/* With SIGCHLD ignored (inherited), the kernel reaps
 * the child, waitid fails, and a level-triggered pidfd that is not dropped
 * fires for ever. */
static void a_child_reaped_elsewhere_is_reported_once(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	char *quick[] = {"/bin/sh", "-c", "exit 3", NULL};
	struct watch w = watch_child(quick);
	assert_int_equal(w.reaped, 1);
	assert_int_equal(w.calls, 1);
	assert_true(w.ended.known && !w.ended.signaled && w.ended.status == 3);
	signal(SIGCHLD, SIG_IGN);
	char *slower[] = {"/bin/sleep", "0.2", NULL};
	w = watch_child(slower);
	signal(SIGCHLD, SIG_DFL);
	assert_int_equal(w.reaped, 1);
	assert_int_equal(w.calls, 1);
	assert_false(w.ended.known);
}

/* spawn_ended() says how a child ended and leaves its zombie, which holds
 * its process group's id; spawn_reap() kills what is left of the group,
 * then reaps it. */
static void an_ended_child_is_reaped_with_its_group_only_when_asked(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	/* The shell leaves a sleep behind in its group (forked before it exits). */
	char *argv[] = {"/bin/sh", "-c", "sleep 30 & exit 3", NULL};
	struct seat_user user;
	int pidfd;
	pid_t pid = spawn_as_nobody(argv, &user, &pidfd);
	struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 3000), 1);
	struct spawn_exit ended;
	assert_int_equal(spawn_ended(pidfd, &ended), 1);
	assert_true(ended.known && !ended.signaled && ended.status == 3);
	/* Not reaped: asked again, it says the same; its group still has the
	 * sleep. */
	struct spawn_exit again;
	assert_int_equal(spawn_ended(pidfd, &again), 1);
	assert_true(again.known && again.status == 3);
	assert_int_equal(kill(-pid, 0), 0);
	siginfo_t info = {0};
	assert_int_equal(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT), 0);
	assert_int_equal(info.si_pid, pid);
	spawn_reap(pid, pidfd, &ended);
	/* Reaped: no child is left to wait for. */
	assert_int_equal(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	/* The sleep was killed: the group empties once its new parent reaps it. */
	int tries = 0;
	while (kill(-pid, 0) == 0 && tries++ < 300) {
		usleep(10000);
	}
	assert_int_equal(kill(-pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	close(pidfd);
	seat_user_finish(&user);
}

/* A session's program, forked by its PAM opener, keeps 0 to 2 of what the
 * opener had, and nothing else: not the error pipe, not what PAM's modules
 * opened, close-on-exec or not. */
static void a_helpers_program_gets_only_stdio(void **state) {
	int stdio = 0;
	for (int fd = 0; fd <= 2; fd++) {
		stdio |= fcntl(fd, F_GETFD) >= 0 ? 1 << fd : 0;
	}
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int p[2];
		if (pipe(p) != 0 || open("/dev/null", O_RDONLY) < 0 ||
				open("/dev/null", O_RDONLY | O_CLOEXEC) < 0 || dup2(p[0], 100) != 100 ||
				spawn_close_above_stderr() != 0) {
			_exit(1);
		}
		/* Looked at while stopped: a pipe to say so would be closed too. */
		raise(SIGSTOP);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	int highest = -1, held = WIFSTOPPED(status) ? fds_held(pid, &highest) : -1;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	assert_int_equal(held, stdio);
	assert_true(highest <= 2);
}

static void inherited_signals_are_reset(void **state) {
	signal(SIGCHLD, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	sigset_t block, now;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, NULL);
	poller_signals_reset();
	struct sigaction sa;
	assert_int_equal(sigaction(SIGCHLD, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
	assert_int_equal(sigaction(SIGTERM, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
	assert_int_equal(sigprocmask(SIG_SETMASK, NULL, &now), 0);
	assert_false(sigismember(&now, SIGTERM) || sigismember(&now, SIGCHLD));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(xserver_arguments),
		cmocka_unit_test(clean_environment),
		cmocka_unit_test(compositor_environment),
		cmocka_unit_test(cookie_file_format),
		cmocka_unit_test(generated_xorg_conf),
		cmocka_unit_test(spawned_process_holds_only_its_fds),
		cmocka_unit_test(spawned_process_gets_umask_022_and_no_core),
		cmocka_unit_test(exec_failure_is_reported),
		cmocka_unit_test(spawn_does_not_wait_for_a_child_stuck_before_exec),
		cmocka_unit_test(a_child_reaped_elsewhere_is_reported_once),
		cmocka_unit_test(an_ended_child_is_reaped_with_its_group_only_when_asked),
		cmocka_unit_test(inherited_signals_are_reset),
		cmocka_unit_test(a_helpers_program_gets_only_stdio),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
