#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "poller.h"
#include "xalloc.h"

enum source_kind {
	SOURCE_FD,
	SOURCE_TIMER,
	SOURCE_SIGNAL,
	SOURCE_DEFER,
};

struct poller_source {
	struct poller *poller;
	enum source_kind kind;
	int fd;
	int signo;
	bool removed;
	union {
		poller_fd_fn fd_fn;
		poller_timer_fn timer_fn;
		poller_signal_fn signal_fn;
		poller_defer_fn defer_fn;
	};
	void *data;
	struct poller_source *next; /* in the poller's list of all sources */
	struct poller_source *next_deferred; /* in the queue of the next turn */
};

struct poller {
	int epfd;
	struct poller_source *sources;
	bool dirty; /* some source was removed: sweep after dispatch */
	/* Deferred calls for the next turn, in the order asked. */
	struct poller_source *deferred, **deferred_tail;
};

uint64_t poller_now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t poller_now_us(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

struct poller *poller_create(void) {
	struct poller *p = xcalloc(1, sizeof(*p));
	p->deferred_tail = &p->deferred;
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epfd < 0) {
		free(p);
		return NULL;
	}
	return p;
}

static struct poller_source *add_source(struct poller *p, enum source_kind kind, int fd,
		uint32_t events, void *data) {
	struct poller_source *s = xcalloc(1, sizeof(*s));
	*s = (struct poller_source){.poller = p, .kind = kind, .fd = fd, .data = data};
	struct epoll_event ev = {.events = events, .data.ptr = s};
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		free(s);
		return NULL;
	}
	s->next = p->sources;
	p->sources = s;
	return s;
}

struct poller_source *poller_add_fd(struct poller *p, int fd, uint32_t events,
		poller_fd_fn fn, void *data) {
	struct poller_source *s = add_source(p, SOURCE_FD, fd, events, data);
	if (s != NULL) {
		s->fd_fn = fn;
	}
	return s;
}

int poller_fd_update(struct poller_source *s, uint32_t events) {
	struct epoll_event ev = {.events = events, .data.ptr = s};
	return epoll_ctl(s->poller->epfd, EPOLL_CTL_MOD, s->fd, &ev);
}

struct poller_source *poller_add_timer(struct poller *p, poller_timer_fn fn, void *data) {
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0) {
		return NULL;
	}
	struct poller_source *s = add_source(p, SOURCE_TIMER, fd, EPOLLIN, data);
	if (s == NULL) {
		close(fd);
		return NULL;
	}
	s->timer_fn = fn;
	return s;
}

int poller_timer_arm(struct poller_source *s, uint64_t ms) {
	struct itimerspec its = {
		.it_value = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000},
	};
	return timerfd_settime(s->fd, 0, &its, NULL);
}

void poller_signals_reset(void) {
	for (int sig = 1; sig < NSIG; sig++) {
		signal(sig, SIG_DFL); /* fails, harmlessly, for SIGKILL, SIGSTOP and the
		                       * real-time signals libc keeps */
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

struct poller_source *poller_add_signal(struct poller *p, int signo, poller_signal_fn fn,
		void *data) {
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, signo);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) != 0) {
		return NULL;
	}
	int fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) {
		return NULL;
	}
	struct poller_source *s = add_source(p, SOURCE_SIGNAL, fd, EPOLLIN, data);
	if (s == NULL) {
		close(fd);
		return NULL;
	}
	s->signo = signo;
	s->signal_fn = fn;
	return s;
}

struct poller_source *poller_defer(struct poller *p, poller_defer_fn fn, void *data) {
	struct poller_source *s = xcalloc(1, sizeof(*s));
	*s = (struct poller_source){.poller = p, .kind = SOURCE_DEFER, .fd = -1, .data = data};
	s->defer_fn = fn;
	s->next = p->sources;
	p->sources = s;
	*p->deferred_tail = s;
	p->deferred_tail = &s->next_deferred;
	return s;
}

void poller_remove(struct poller_source *s) {
	if (s == NULL || s->removed) {
		return;
	}
	if (s->kind != SOURCE_DEFER) {
		epoll_ctl(s->poller->epfd, EPOLL_CTL_DEL, s->fd, NULL);
	}
	if (s->kind != SOURCE_FD && s->kind != SOURCE_DEFER) {
		close(s->fd);
	}
	s->fd = -1;
	s->removed = true;
	s->poller->dirty = true;
}

/* Frees removed sources; only between dispatches, when no event refers to them. */
static void sweep(struct poller *p) {
	struct poller_source **link = &p->sources;
	while (*link != NULL) {
		struct poller_source *s = *link;
		if (s->removed) {
			*link = s->next;
			free(s);
		} else {
			link = &s->next;
		}
	}
	p->dirty = false;
}

static void dispatch_one(struct poller_source *s, uint32_t events) {
	switch (s->kind) {
	case SOURCE_FD:
		s->fd_fn(s->fd, events, s->data);
		break;
	case SOURCE_TIMER: {
		uint64_t expirations;
		if (read(s->fd, &expirations, sizeof(expirations)) == sizeof(expirations)) {
			s->timer_fn(s->data);
		}
		break;
	}
	case SOURCE_SIGNAL: {
		struct signalfd_siginfo si;
		while (read(s->fd, &si, sizeof(si)) == sizeof(si)) {
			s->signal_fn((int)si.ssi_signo, s->data);
			if (s->removed) {
				break;
			}
		}
		break;
	}
	case SOURCE_DEFER:
		break;
	}
}

/* The calls deferred before this turn, in order; those they defer wait for
 * the next one. */
static void run_deferred(struct poller *p) {
	struct poller_source *s = p->deferred;
	p->deferred = NULL;
	p->deferred_tail = &p->deferred;
	while (s != NULL) {
		struct poller_source *next = s->next_deferred;
		if (!s->removed) {
			poller_remove(s);
			s->defer_fn(s->data);
		}
		s = next;
	}
}

int poller_dispatch(struct poller *p) {
	struct epoll_event events[32];
	/* With calls deferred, the turn does not wait for events. */
	int n = epoll_wait(p->epfd, events, 32, p->deferred != NULL ? 0 : -1);
	if (n < 0) {
		return errno == EINTR ? 0 : -1;
	}
	for (int i = 0; i < n; i++) {
		struct poller_source *s = events[i].data.ptr;
		if (!s->removed) {
			dispatch_one(s, events[i].events);
		}
	}
	run_deferred(p);
	if (p->dirty) {
		sweep(p);
	}
	return 0;
}

void poller_destroy(struct poller *p) {
	if (p == NULL) {
		return;
	}
	for (struct poller_source *s = p->sources; s != NULL; s = s->next) {
		poller_remove(s);
	}
	sweep(p);
	close(p->epfd);
	free(p);
}
