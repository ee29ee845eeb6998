#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "input-reload.h"

struct input_reload {
	pid_t pid;
	int pidfd;
	struct poller_source *source;
	input_reload_fn fn;
	void *data;
};

/* Between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) child(char *const *argv) {
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++) {
		signal(sig, SIG_DFL);
	}
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0) {
		_exit(127);
	}
	execv(argv[0], argv);
	_exit(127);
}

static void free_reload(struct input_reload *r) {
	poller_remove(r->source);
	close(r->pidfd);
	free(r);
}

static void child_ended(int fd, uint32_t events, void *data) {
	struct input_reload *r = data;
	(void)events;
	siginfo_t info = {0};
	if (waitid(P_PIDFD, (id_t)fd, &info, WEXITED | WNOHANG) == 0 && info.si_pid == 0) {
		return; /* still running */
	}
	/* A failed wait on a readable pidfd is an end too (reaped by another). */
	bool ok = info.si_code == CLD_EXITED && info.si_status == 0;
	input_reload_fn fn = r->fn;
	void *fn_data = r->data;
	free_reload(r);
	fn(fn_data, ok);
}

struct input_reload *input_child_start(struct poller *poller, char *const *argv,
		input_reload_fn fn, void *data, char *err, size_t errlen) {
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return NULL;
	}
	if (pid == 0) {
		child(argv);
	}
	/* At once: until we reap it, even a child that has ended keeps its pid. */
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		snprintf(err, errlen, "pidfd_open: %s", strerror(errno));
		if (errno != ESRCH) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return NULL;
	}
	fcntl(pidfd, F_SETFD, FD_CLOEXEC);
	struct input_reload *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		abort();
	}
	*r = (struct input_reload){.pid = pid, .pidfd = pidfd, .fn = fn, .data = data};
	r->source = poller_add_fd(poller, pidfd, EPOLLIN, child_ended, r);
	if (r->source == NULL) {
		snprintf(err, errlen, "cannot watch its pidfd: %s", strerror(errno));
		input_reload_cancel(r);
		return NULL;
	}
	return r;
}

struct input_reload *input_reload_start(struct poller *poller, input_reload_fn fn, void *data,
		char *err, size_t errlen) {
	/* Its default wait for udevd is 60 s; one that does not answer soon
	 * will not apply the rules soon either. */
	char *const argv[] = {"/bin/udevadm", "control", "--reload", "--timeout=2", NULL};
	return input_child_start(poller, argv, fn, data, err, errlen);
}

void input_reload_cancel(struct input_reload *r) {
	if (r == NULL) {
		return;
	}
	if (syscall(SYS_pidfd_send_signal, r->pidfd, SIGKILL, NULL, 0) != 0) {
		kill(r->pid, SIGKILL);
	}
	siginfo_t info;
	waitid(P_PIDFD, (id_t)r->pidfd, &info, WEXITED);
	free_reload(r);
}
