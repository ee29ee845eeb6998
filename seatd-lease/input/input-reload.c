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
#include "xalloc.h"

struct reloader;

/* One request: told when a run that started after it ends. */
struct input_reload {
	struct reloader *owner;
	bool queued; /* for the next run, not the one running */
	input_reload_fn fn;
	void *data;
	struct input_reload *next;
};

/* The one child of a program on a poller, and who waits for it. */
struct reloader {
	struct poller *poller;
	char **argv;
	pid_t pid;
	int pidfd; /* -1: none runs */
	struct poller_source *source;
	struct input_reload *requests; /* in the order they came */
	struct reloader *next;
};

static struct reloader *reloaders;

/* Between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) exec_program(char *const *argv) {
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

static struct reloader *find(struct poller *poller, char *const *argv) {
	for (struct reloader *rl = reloaders; rl != NULL; rl = rl->next) {
		if (rl->poller == poller && strcmp(rl->argv[0], argv[0]) == 0) {
			return rl;
		}
	}
	struct reloader *rl = xcalloc(1, sizeof(*rl));
	size_t n = 0;
	while (argv[n] != NULL) {
		n++;
	}
	char **copy = xcalloc(n + 1, sizeof(*copy));
	for (size_t i = 0; i < n; i++) {
		copy[i] = xstrdup(argv[i]);
	}
	*rl = (struct reloader){.poller = poller, .argv = copy, .pidfd = -1, .next = reloaders};
	reloaders = rl;
	return rl;
}

/* Once it has no request and no child. */
static void drop_if_idle(struct reloader *rl) {
	if (rl->requests != NULL || rl->pidfd >= 0) {
		return;
	}
	struct reloader **link = &reloaders;
	while (*link != rl) {
		link = &(*link)->next;
	}
	*link = rl->next;
	for (size_t i = 0; rl->argv[i] != NULL; i++) {
		free(rl->argv[i]);
	}
	free(rl->argv);
	free(rl);
}

static void child_ended(int fd, uint32_t events, void *data);

/* Starts the child for every request there is; 0, or -1 and err. */
static int run(struct reloader *rl, char *err, size_t errlen) {
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		exec_program(rl->argv);
	}
	/* At once: until we reap it, even a child that has ended keeps its pid. */
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		snprintf(err, errlen, "pidfd_open: %s", strerror(errno));
		if (errno != ESRCH) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	fcntl(pidfd, F_SETFD, FD_CLOEXEC);
	rl->source = poller_add_fd(rl->poller, pidfd, EPOLLIN, child_ended, rl);
	if (rl->source == NULL) {
		snprintf(err, errlen, "cannot watch its pidfd: %s", strerror(errno));
		kill(pid, SIGKILL);
		siginfo_t info;
		waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED);
		close(pidfd);
		return -1;
	}
	rl->pid = pid;
	rl->pidfd = pidfd;
	for (struct input_reload *r = rl->requests; r != NULL; r = r->next) {
		r->queued = false;
	}
	return 0;
}

static void forget_child(struct reloader *rl) {
	poller_remove(rl->source);
	rl->source = NULL;
	close(rl->pidfd);
	rl->pidfd = -1;
}

/* Takes out of rl's requests those that are (not) queued, in order. */
static struct input_reload *take(struct reloader *rl, bool queued) {
	struct input_reload *taken = NULL, **tail = &taken, **link = &rl->requests;
	while (*link != NULL) {
		struct input_reload *r = *link;
		if (r->queued == queued) {
			*link = r->next;
			r->next = NULL;
			*tail = r;
			tail = &r->next;
		} else {
			link = &r->next;
		}
	}
	return taken;
}

/* Tells each of list, freeing it first: fn may start or cancel others. */
static void tell(struct input_reload *list, bool ok) {
	while (list != NULL) {
		struct input_reload *r = list;
		list = r->next;
		input_reload_fn fn = r->fn;
		void *data = r->data;
		free(r);
		fn(data, ok);
	}
}

static void child_ended(int fd, uint32_t events, void *data) {
	struct reloader *rl = data;
	siginfo_t info = {0};
	if (waitid(P_PIDFD, (id_t)fd, &info, WEXITED | WNOHANG) == 0 && info.si_pid == 0) {
		return; /* still running */
	}
	/* A failed wait on a readable pidfd is an end too (reaped by another). */
	bool ok = info.si_code == CLD_EXITED && info.si_status == 0;
	forget_child(rl);
	struct input_reload *done = take(rl, false);
	struct input_reload *failed = NULL;
	char err[256];
	if (rl->requests != NULL && run(rl, err, sizeof(err)) != 0) {
		failed = take(rl, true);
	}
	drop_if_idle(rl);
	tell(done, ok);
	tell(failed, false);
}

struct input_reload *input_child_start(struct poller *poller, char *const *argv,
		input_reload_fn fn, void *data, char *err, size_t errlen) {
	struct reloader *rl = find(poller, argv);
	struct input_reload *r = xcalloc(1, sizeof(*r));
	*r = (struct input_reload){.owner = rl, .queued = true, .fn = fn, .data = data};
	struct input_reload **tail = &rl->requests;
	while (*tail != NULL) {
		tail = &(*tail)->next;
	}
	*tail = r;
	if (rl->pidfd < 0 && run(rl, err, errlen) != 0) {
		*tail = NULL;
		free(r);
		drop_if_idle(rl);
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
	struct reloader *rl = r->owner;
	struct input_reload **link = &rl->requests;
	while (*link != r) {
		link = &(*link)->next;
	}
	*link = r->next;
	free(r);
	if (rl->requests == NULL && rl->pidfd >= 0) {
		/* Nobody waits for it any more: killed, it cannot hold off the
		 * reap (which does not wait on udev). */
		if (syscall(SYS_pidfd_send_signal, rl->pidfd, SIGKILL, NULL, 0) != 0) {
			kill(rl->pid, SIGKILL);
		}
		siginfo_t info;
		waitid(P_PIDFD, (id_t)rl->pidfd, &info, WEXITED);
		forget_child(rl);
	}
	drop_if_idle(rl);
}
