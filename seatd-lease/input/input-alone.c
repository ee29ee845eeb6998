/*
 * An input operation run to its end on a loop of its own, where no loop
 * runs yet or none is to wait for: at the daemon's start (what an earlier
 * run left) and when `seat NAME` ends.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "input-rules.h"
#include "input.h"
#include "log.h"
#include "poller.h"
#include "values.h"

static void sync_done(void *data, const struct input_counts *counts) {
	*(bool *)data = true;
}

/* Runs one operation on a loop of its own, to its end. */
static int run_alone(const char *seat, int timeout_ms) {
	struct poller *poller = poller_create();
	if (poller == NULL) {
		log_error("inputs: cannot create an event loop: %s", strerror(errno));
		return input_rules_remove(INPUT_RULES_DIR, seat);
	}
	bool done = false;
	int removed = 0;
	struct input_op *op = input_clean_start(poller, seat, timeout_ms, sync_done, &done,
			&removed);
	while (op != NULL && !done) {
		if (poller_dispatch(poller) != 0) {
			input_op_cancel(op);
			break;
		}
	}
	poller_destroy(poller);
	return removed;
}

void input_release(const char *seat, int timeout_ms) {
	run_alone(seat, timeout_ms);
}

int input_clean_stale(const char *seat, int timeout_ms) {
	return run_alone(seat, timeout_ms);
}

int input_clean_stale_except(bool (*keep)(const char *seat, void *data), void *data,
		int timeout_ms) {
	char **seats = input_rules_seats(INPUT_RULES_DIR);
	int removed = 0;
	for (char **s = seats; *s != NULL; s++) {
		if (!keep(*s, data)) {
			removed += run_alone(*s, timeout_ms);
		}
	}
	strv_free(seats);
	return removed;
}
