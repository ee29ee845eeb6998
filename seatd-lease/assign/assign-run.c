#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

#include "assign-run.h"
#include "assign-write.h"
#include "assign.h"
#include "control-client.h"
#include "control-wire.h"
#include "load.h"
#include "map-edit.h"
#include "poller.h"
#include "xalloc.h"

#define MAX_FDS 256
/* How often state files not written yet are tried again. */
#define TICK_MS 500

enum end {
	END_DONE,     /* every seat has its devices, or Enter: write what is bound */
	END_CANCEL,   /* Escape, the timeout, a signal: the map stays as it was */
	END_FAILED,
};

/* Asks the daemon for assign-begin, a few seats a request. */
static int begin(const struct seatmap *map, const struct assign_wizard *w) {
	for (size_t i = 0; i < w->n;) {
		char *argv[CONTROL_MAX_WORDS + 1] = {"assign-begin"};
		int argc = 1;
		while (i < w->n && argc < CONTROL_MAX_WORDS) {
			argv[argc++] = w->seats[i++].config->name;
		}
		int status = control_request(map->runtime_dir, argc, argv, CONTROL_REPLY_TIMEOUT_MS);
		if (status != EXIT_OK) {
			return status;
		}
	}
	return EXIT_OK;
}

static int end_assignment(const struct seatmap *map) {
	char *argv[] = {"assign-end", NULL};
	return control_request(map->runtime_dir, 1, argv, CONTROL_REPLY_TIMEOUT_MS);
}

/* What the terminal says: Escape alone cancels, Enter writes what is bound. */
static int read_terminal(int fd, enum end *end) {
	char buf[64];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n <= 0) {
		return n < 0 && errno == EINTR ? 0 : -1;
	}
	if (n == 1 && buf[0] == 0x1b) {
		*end = END_CANCEL;
	} else if (memchr(buf, '\r', (size_t)n) != NULL || memchr(buf, '\n', (size_t)n) != NULL) {
		*end = END_DONE;
	}
	return 0;
}

/* How far the wizard got: the keyboards and pointers bound so far. */
static size_t bound(const struct assign_wizard *w) {
	size_t n = 0;
	for (size_t i = 0; i < w->n; i++) {
		n += (w->seats[i].keyboard != NULL) + (w->seats[i].pointer != NULL);
	}
	return n;
}

/* Ends after timeout_s seconds without a new binding: a wizard holding the
 * keyboard it was started from (its Enter was up before assign could see
 * it) gives it back by itself. */
static enum end listen(struct assign_wizard *w, int sfd, int timeout_s) {
	uint64_t deadline = poller_now_ms() + (uint64_t)timeout_s * 1000;
	size_t progress = 0;
	bool terminal = true;
	enum end end = (enum end)-1;
	while ((int)end < 0) {
		assign_write_states(w);
		if (w->changed) {
			w->changed = false;
			assign_print_table(w);
		}
		if (assign_all_done(w)) {
			return END_DONE;
		}
		uint64_t now = poller_now_ms();
		size_t now_bound = bound(w);
		if (now_bound > progress) {
			progress = now_bound;
			deadline = now + (uint64_t)timeout_s * 1000;
		}
		if (now >= deadline) {
			fprintf(w->out, "nothing bound for %d s (--timeout): the seat map is left as it "
					"was\n", timeout_s);
			return END_CANCEL;
		}
		int wait = deadline - now < TICK_MS ? (int)(deadline - now) : TICK_MS;
		struct pollfd fds[MAX_FDS];
		fds[0] = (struct pollfd){.fd = terminal ? 0 : -1, .events = POLLIN};
		fds[1] = (struct pollfd){.fd = sfd, .events = POLLIN};
		size_t n = 2 + assign_input_fds(w->input, fds + 2, MAX_FDS - 2);
		if (poll(fds, n, wait) < 0 && errno != EINTR) {
			fprintf(stderr, "seatd-lease assign: poll: %s\n", strerror(errno));
			return END_FAILED;
		}
		if (fds[1].revents != 0) {
			return END_CANCEL;
		}
		if (fds[0].revents != 0 && read_terminal(0, &end) != 0) {
			terminal = false;
		}
		assign_input_dispatch(w->input, fds + 2, n - 2, assign_on_press, w);
	}
	return end;
}

static char *read_file(const char *path, size_t *len) {
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		return NULL;
	}
	char *text = NULL;
	size_t cap = 0;
	*len = 0;
	size_t got;
	do {
		cap += 65536;
		text = xrealloc(text, cap + 1);
		got = fread(text + *len, 1, cap - *len, f);
		*len += got;
	} while (*len == cap);
	fclose(f);
	text[*len] = '\0';
	return text;
}

static void print_lines(const struct assign_wizard *w, FILE *out) {
	for (size_t i = 0; i < w->n; i++) {
		char *line = assign_inputs_line(&w->seats[i]);
		if (line != NULL) {
			fprintf(out, "[seat:%s]\ninputs = %s\n", w->seats[i].config->name, line);
		}
		free(line);
	}
}

/* The bound seats' inputs = lines into the map. 0, or 1 when it failed. */
static int commit(const struct assign_wizard *w, const char *path) {
	struct map_edit *edits = xcalloc(w->n + 1, sizeof(*edits));
	char **lines = xcalloc(w->n + 1, sizeof(*lines));
	size_t n = 0;
	for (size_t i = 0; i < w->n; i++) {
		if ((lines[n] = assign_inputs_line(&w->seats[i])) != NULL) {
			edits[n] = (struct map_edit){w->seats[i].config->name, lines[n]};
			n++;
		}
	}
	int status = 0;
	size_t len, new_len;
	char err[512] = "";
	char *text = n > 0 ? read_file(path, &len) : NULL;
	char *edited = text != NULL ? map_edit_inputs(text, len, edits, n, &new_len, err,
			sizeof(err)) : NULL;
	if (n == 0) {
		printf("no keyboard was bound: the seat map is left as it was\n");
	} else if (edited == NULL) {
		fprintf(stderr, "seatd-lease assign: cannot edit %s: %s\n", path,
				text == NULL ? strerror(errno) : err);
		status = 1;
	} else {
		enum assign_write_result r = assign_write_map(path, edited, new_len, err, sizeof(err));
		if (r == ASSIGN_WRITTEN) {
			printf("wrote %s (the old one is %s.bak)\n", path, path);
		} else {
			fprintf(stderr, "seatd-lease assign: %s not changed: %s; its lines are:\n", path,
					r == ASSIGN_NOT_ALLOWED ? "no permission to write there" : err);
			print_lines(w, stdout);
			status = 1;
		}
	}
	free(edited);
	free(text);
	for (size_t i = 0; i < n; i++) {
		free(lines[i]);
	}
	free(lines);
	free(edits);
	return status;
}

static int signal_fd(void) {
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	return signalfd(-1, &mask, SFD_CLOEXEC);
}

/* The whole run, once the seats are on their assignment screens. */
static int run_wizard(struct assign_wizard *w, const char *path, int timeout_s) {
	struct termios saved;
	bool raw = isatty(0) && tcgetattr(0, &saved) == 0;
	if (raw) {
		struct termios t = saved;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		tcsetattr(0, TCSANOW, &t);
	}
	int sfd = signal_fd();
	fprintf(w->out, "press F<n> on each seat's keyboard (its screen says which); Enter "
			"writes what is bound, Escape leaves the seat map as it is\n"
			"the keyboards and mice being assigned type nowhere else until it ends; "
			"with nothing bound for %d s it ends by itself\n", timeout_s);
	w->changed = true;
	enum end end = listen(w, sfd, timeout_s);
	if (raw) {
		/* Nothing typed while it ran is left for the shell that comes back. */
		tcflush(0, TCIFLUSH);
		tcsetattr(0, TCSANOW, &saved);
	}
	close(sfd);
	int status = end == END_DONE ? commit(w, path) : end == END_CANCEL ? 0 : 1;
	if (end == END_CANCEL) {
		printf("cancelled: the seat map is left as it was\n");
	}
	return status;
}

int cmd_assign(const char *path, const struct assign_options *o) {
	if (geteuid() != 0) {
		fprintf(stderr, "seatd-lease assign: run it as root: it reads every keyboard and "
				"changes the seat map\n");
		return 1;
	}
	/* What it prints is followed as it happens, in a file too. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct seatmap *map = seatmap_load_reported(path, NULL, stderr, "nothing was assigned");
	if (map == NULL) {
		return 1;
	}
	struct assign_input input;
	struct assign_wizard w = {.map = map, .allow_primary = o->allow_primary, .input = &input,
		.out = stdout};
	int status = 0;
	if (assign_pick_seats(&w, o->all) == 0) {
		printf("every seat of %s has input devices there; --all assigns them anew\n", path);
	} else if (!assign_input_open(&input)) {
		status = 1;
	} else {
		status = begin(map, &w);
		if (status == EXIT_OK) {
			status = run_wizard(&w, path, o->timeout_s);
		}
		/* Whatever seats a refused request before it put on their screens. */
		if (status != EXIT_NO_DAEMON && status != EXIT_DENIED) {
			int ended = end_assignment(map);
			status = status != 0 ? status : ended;
		}
		assign_input_close(&input);
	}
	assign_wizard_finish(&w);
	seatmap_free(map);
	return status;
}
