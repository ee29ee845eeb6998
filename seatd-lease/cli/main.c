#include <getopt.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign-run.h"
#include "check.h"
#include "control-client.h"
#include "identify.h"
#include "load.h"
#include "log.h"
#include "supervisor.h"
#include "values.h"
#include "xserver-cmd.h"

static void usage(FILE *out) {
	fprintf(out,
		"Usage: seatd-lease [OPTIONS] [COMMAND]\n"
		"\n"
		"Turns the outputs of graphics cards into independent X11 seats, each on\n"
		"a DRM lease with its own unprivileged X server, input devices and user.\n"
		"\n"
		"Commands:\n"
		"  run            supervise every seat of the seat map (the default)\n"
		"  seat NAME      run one seat in the foreground, without restarts\n"
		"  check [--probe] [FILE]\n"
		"                 validate the seat map and summarise its seats; with\n"
		"                 --probe, also what each would get right now\n"
		"  identify [--seat NAME] [--timeout SECONDS]\n"
		"                 print the device and the inputs = match of each key\n"
		"                 pressed or click made; with --seat, a seat's whole line\n"
		"  assign [--all] [--map FILE] [--timeout SECONDS] [--allow-primary]\n"
		"                 show \"press F<n>\" on the seats without input devices (or\n"
		"                 all) and give each the keyboard, and mouse, pressing it\n"
		"  status [--json]\n"
		"                 show the seats of the running daemon\n"
		"  start|stop|restart NAME\n"
		"                 start, stop or restart one seat of the running daemon\n"
		"  stop           stop every seat: every output and device back to seat0\n"
		"  reload         have the running daemon read the seat map again\n"
		"  xserver ARGS   a display manager's X server command: on a display\n"
		"                 manager's seat (-seat seat-NAME), Xorg on the seat's lease\n"
		"\n"
		"Options:\n"
		"  -c, --config FILE  the seat map (default " SEATMAP_DEFAULT_PATH ")\n"
		"  -v, --verbose      log more (twice for debug)\n"
		"  -h, --help         show this help\n"
		"      --version      show the version\n"
		"\n"
		"See seatd-lease(8) and seats.ini(5).\n");
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "seatd-lease: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'seatd-lease --help'.\n");
	va_end(ap);
	return EXIT_USAGE;
}

/*
 * The daemon's control socket is in the seat map's runtime_dir. The map is
 * only read for that: a client need not be able to run seats.
 */
static int control_command(const char *config, int argc, char **argv) {
	struct seatmap_env env = {.system_checks = false};
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load(config, &env, &diags);
	int status = control_request(map != NULL ? map->runtime_dir
			: SEATMAP_DEFAULT_RUNTIME_DIR, argc, argv, CONTROL_REPLY_TIMEOUT_MS);
	/* A daemon on another runtime_dir is not found without the map: say why.
	 * A NULL map is a file that could not be read, its error the last one. */
	if (map == NULL && status == EXIT_NO_DAEMON && diags.len > 0) {
		const struct diag *why = &diags.items[diags.len - 1];
		fprintf(stderr, "seatd-lease %s: looked in the default runtime_dir %s, since the "
				"seat map gave none: %s: %s\n", argv[0], SEATMAP_DEFAULT_RUNTIME_DIR,
				why->file, why->message);
	}
	diag_list_finish(&diags);
	seatmap_free(map);
	return status;
}

static int run_check(const char *config, bool config_given, int nargs, char **args) {
	bool probe = false;
	const char *file = NULL;
	for (int i = 0; i < nargs; i++) {
		if (strcmp(args[i], "--probe") == 0) {
			probe = true;
		} else if (args[i][0] == '-') {
			return usage_error("unknown check option '%s'", args[i]);
		} else if (file != NULL) {
			return usage_error("check takes at most one FILE, got '%s'", args[i]);
		} else {
			file = args[i];
		}
	}
	if (file != NULL && config_given) {
		return usage_error("give the seat map once: --config or '%s', not both", file);
	}
	return cmd_check(file != NULL ? file : config, probe);
}

/* run (seat == NULL) or seat NAME. */
static int run_seats(const char *config, const char *seat) {
	struct seatmap *map = seatmap_load_reported(config, NULL, stderr, "nothing was started");
	if (map == NULL) {
		return 1;
	}
	int status = seat != NULL ? supervisor_run_seat(map, seat) : supervisor_run(map);
	seatmap_free(map);
	return status;
}

/* Seconds, 1 to 86400, or -1 (said). */
static int parse_timeout(const char *text) {
	char *end;
	long t = strtol(text, &end, 10);
	if (*end != '\0' || t <= 0 || t > 86400) {
		usage_error("--timeout takes seconds, 1 to 86400, not '%s'", text);
		return -1;
	}
	return (int)t;
}

static int run_identify(int nargs, char **args) {
	const char *seat = NULL;
	int timeout = 0;
	for (int i = 0; i < nargs; i++) {
		if (strcmp(args[i], "--seat") == 0 && i + 1 < nargs) {
			seat = args[++i];
		} else if (strcmp(args[i], "--timeout") == 0 && i + 1 < nargs) {
			if ((timeout = parse_timeout(args[++i])) < 0) {
				return EXIT_USAGE;
			}
		} else {
			return usage_error("identify takes --seat NAME and --timeout SECONDS, "
					"not '%s'", args[i]);
		}
	}
	return cmd_identify(seat, timeout);
}

static int run_assign(const char *config, bool config_given, int nargs, char **args) {
	struct assign_options o = {.timeout_s = ASSIGN_TIMEOUT_S};
	const char *map = NULL;
	for (int i = 0; i < nargs; i++) {
		if (strcmp(args[i], "--all") == 0) {
			o.all = true;
		} else if (strcmp(args[i], "--allow-primary") == 0) {
			o.allow_primary = true;
		} else if (strcmp(args[i], "--map") == 0 && i + 1 < nargs) {
			map = args[++i];
		} else if (strcmp(args[i], "--timeout") == 0 && i + 1 < nargs) {
			if ((o.timeout_s = parse_timeout(args[++i])) < 0) {
				return EXIT_USAGE;
			}
		} else {
			return usage_error("assign takes --all, --map FILE, --timeout SECONDS and "
					"--allow-primary, not '%s'", args[i]);
		}
	}
	if (map != NULL && config_given) {
		return usage_error("give the seat map once: --config or --map, not both");
	}
	return cmd_assign(map != NULL ? map : config, &o);
}

/* The commands for the running daemon; args[-1] is the command itself. */
static int run_control(const char *config, const char *command, int nargs, char **args) {
	if (strcmp(command, "status") == 0) {
		if (nargs > 1 || (nargs == 1 && strcmp(args[0], "--json") != 0)) {
			return usage_error("status takes --json or nothing, not '%s'", args[0]);
		}
	} else if (strcmp(command, "reload") == 0) {
		if (nargs > 0) {
			return usage_error("reload takes no arguments, got '%s'", args[0]);
		}
	} else if (strcmp(command, "stop") == 0 && nargs == 0) {
		/* every seat */
	} else if (nargs != 1) {
		return usage_error("%s takes exactly one seat NAME%s", command,
				strcmp(command, "stop") == 0 ? ", or none for every seat" : "");
	} else if (!seat_name_valid(args[0])) {
		return usage_error("'%s' is not a seat name", args[0]);
	}
	return control_command(config, nargs + 1, args - 1);
}

static bool is_control(const char *command) {
	static const char *const names[] = {"status", "start", "stop", "restart", "reload", NULL};
	for (size_t i = 0; names[i] != NULL; i++) {
		if (strcmp(command, names[i]) == 0) {
			return true;
		}
	}
	return false;
}

struct options {
	const char *config;
	bool config_given;
	int verbosity;
};

/* The options before the command: -1 to go on, else the exit status. */
static int parse_options(int argc, char *argv[], struct options *o) {
	static const struct option options[] = {
		{"config", required_argument, NULL, 'c'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	*o = (struct options){.config = SEATMAP_DEFAULT_PATH};
	int opt;
	/* '+': options stop at the command, whose own arguments follow it. */
	while ((opt = getopt_long(argc, argv, "+c:vh", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->config = optarg;
			o->config_given = true;
			break;
		case 'v':
			o->verbosity++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("seatd-lease %s\n", SEATD_LEASE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'seatd-lease --help'.\n");
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* glibc's malloc, set for a daemon that runs for months in little memory.
 * Its thresholds are fixed: by default, once a block it had mmapped is
 * freed (one of 1 MiB at a lab seat's start), it trims the heap only past
 * twice that, and kept 320 KiB freed at its top for ever (three lab seats on
 * the rig). One arena: the X server dial's thread would have one of its own,
 * 132 KiB for 63 in use. */
static void malloc_settings(void) {
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024);
	mallopt(M_ARENA_MAX, 1);
}

int main(int argc, char *argv[]) {
	malloc_settings();
	struct options o;
	int status = parse_options(argc, argv, &o);
	if (status >= 0) {
		return status;
	}
	log_set_level(o.verbosity >= 2 ? LOG_LEVEL_DEBUG : o.verbosity == 1 ? LOG_LEVEL_INFO
			: LOG_LEVEL_NOTICE);
	const char *command = optind < argc ? argv[optind++] : "run";
	int nargs = argc - optind;
	char **args = argv + optind;
	if (strcmp(command, "check") == 0) {
		return run_check(o.config, o.config_given, nargs, args);
	} else if (strcmp(command, "run") == 0) {
		if (nargs > 0) {
			return usage_error("run takes no arguments, got '%s'", args[0]);
		}
		return run_seats(o.config, NULL);
	} else if (strcmp(command, "seat") == 0) {
		if (nargs != 1) {
			return usage_error("seat takes exactly one seat NAME");
		}
		return run_seats(o.config, args[0]);
	} else if (strcmp(command, "identify") == 0) {
		return run_identify(nargs, args);
	} else if (strcmp(command, "assign") == 0) {
		return run_assign(o.config, o.config_given, nargs, args);
	} else if (strcmp(command, "xserver") == 0) {
		return cmd_xserver(o.config, nargs, args);
	} else if (is_control(command)) {
		return run_control(o.config, command, nargs, args);
	}
	return usage_error("unknown command '%s'", command);
}
