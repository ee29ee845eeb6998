#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lease.h"
#include "text.h"

/*
 * The shared lease algorithm (lease.c, lease-held.c) over a fake lessor: a
 * card of outputs with fixed states and CRTCs, whose create() refuses as
 * busy the CRTCs listed in busy[].
 */

#define MAX_FAKE 8

struct fake_output {
	const char *name;
	uint32_t id;
	enum lease_output_state state;
	uint32_t crtcs[4];
	uint32_t drives[4];
	size_t n_crtcs;
};

struct fake {
	struct lessor base;
	struct fake_output outputs[MAX_FAKE];
	size_t n_outputs;
	uint32_t busy[8];       /* CRTCs create() refuses as busy */
	size_t n_busy;
	bool name_culprit;      /* busy refusals name the CRTC */
	bool refuse;            /* create() refuses for good */
	bool resolve_fails;
	int creates, resolves, forgets, revokes, releases, lost;
	uint32_t next_id;
	uint32_t revoked[8];
};

static struct fake *fake_of(struct lessor *l) {
	return (struct fake *)l;
}

static bool fake_resolve(struct lessor *l, struct lease_plan *p, char *err, size_t errlen) {
	struct fake *f = fake_of(l);
	f->resolves++;
	if (f->resolve_fails) {
		snprintf(err, errlen, "cannot list");
		return false;
	}
	for (size_t i = 0; i < p->n; i++) {
		struct lease_target *t = &p->targets[i];
		t->state = LEASE_OUTPUT_UNKNOWN;
		for (size_t k = 0; k < f->n_outputs; k++) {
			const struct fake_output *o = &f->outputs[k];
			if (strcmp(o->name, p->names[i]) == 0) {
				t->state = o->state;
				t->id = o->id;
				t->n_crtcs = o->n_crtcs;
				memcpy(t->crtcs, o->crtcs, sizeof(o->crtcs));
				memcpy(t->drives, o->drives, sizeof(o->drives));
			}
		}
	}
	p->snapshot = f;
	return true;
}

static void fake_forget(struct lessor *l, struct lease_plan *p) {
	fake_of(l)->forgets++;
	p->snapshot = NULL;
}

static enum lease_creation fake_create(struct lessor *l, const struct lease_plan *p, int *fd,
		uint32_t *id, uint32_t *culprit, char *why, size_t whylen) {
	struct fake *f = fake_of(l);
	f->creates++;
	if (f->refuse) {
		snprintf(why, whylen, "Invalid argument");
		return LEASE_REFUSED;
	}
	for (size_t i = 0; i < p->n; i++) {
		for (size_t k = 0; k < f->n_busy; k++) {
			if (p->chosen[i] == f->busy[k]) {
				*culprit = f->name_culprit ? p->chosen[i] : 0;
				return LEASE_BUSY;
			}
		}
	}
	*fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	*id = ++f->next_id;
	return LEASE_CREATED;
}

static void fake_revoke(struct lessor *l, uint32_t id) {
	struct fake *f = fake_of(l);
	if (f->revokes < 8) {
		f->revoked[f->revokes] = id;
	}
	f->revokes++;
}

static void fake_released(struct lessor *l) {
	fake_of(l)->releases++;
}

static void fake_list(const void *snapshot, char *buf, size_t len) {
	const struct fake *f = snapshot;
	buf[0] = '\0';
	for (size_t i = 0; i < f->n_outputs; i++) {
		text_append(buf, len, "%s%s", i == 0 ? "" : ", ", f->outputs[i].name);
	}
}

static void fake_name(const void *snapshot, uint32_t id, char *buf, size_t len) {
	const struct fake *f = snapshot;
	snprintf(buf, len, "?");
	for (size_t i = 0; i < f->n_outputs; i++) {
		if (f->outputs[i].id == id) {
			snprintf(buf, len, "%s", f->outputs[i].name);
		}
	}
}

static void fake_hint(const char *name, char *buf, size_t len) {
	snprintf(buf, len, " (plug %s in)", name);
}

static void fake_no_crtc_hint(char *buf, size_t len) {
	snprintf(buf, len, " (why)");
}

static const struct lessor_impl fake_impl = {
	.name = "fake",
	.lease = lessor_lease_sync,
	.release = lessor_release,
	.resolve = fake_resolve,
	.forget = fake_forget,
	.create_lease = fake_create,
	.revoke = fake_revoke,
	.released = fake_released,
	.list_outputs = fake_list,
	.output_name = fake_name,
	.disconnected_hint = fake_hint,
	.no_crtc_hint = fake_no_crtc_hint,
};

static void available(void *data) {
}

static void lost(void *data, const char *why) {
	((struct fake *)data)->lost++;
}

/* Outputs: A (CRTCs 10, 11), B (10 only), C (disconnected), D (11 only,
 * 12 drives the card's own output A2). */
static int setup(void **state) {
	struct fake *f = calloc(1, sizeof(*f));
	f->outputs[0] = (struct fake_output){"A", 1, LEASE_OUTPUT_CONNECTED, {10, 11}, {0}, 2};
	f->outputs[1] = (struct fake_output){"B", 2, LEASE_OUTPUT_CONNECTED, {10}, {0}, 1};
	f->outputs[2] = (struct fake_output){"C", 3, LEASE_OUTPUT_DISCONNECTED, {10}, {0}, 1};
	f->outputs[3] = (struct fake_output){"D", 4, LEASE_OUTPUT_CONNECTED, {12, 11}, {5, 0},
			2};
	f->outputs[4] = (struct fake_output){"A2", 5, LEASE_OUTPUT_CONNECTED, {12}, {0}, 1};
	f->outputs[5] = (struct fake_output){"E", 6, LEASE_OUTPUT_FOREIGN, {13}, {0}, 1};
	f->n_outputs = 6;
	struct lessor_listener listener = {.available = available, .lost = lost, .data = f};
	lessor_init(&f->base, &fake_impl, "fake card", &listener);
	*state = f;
	return 0;
}

static int teardown(void **state) {
	struct fake *f = *state;
	lessor_finish(&f->base);
	free(f);
	return 0;
}

struct ask {
	enum lease_result result;
	struct lease *lease;
	char err[512];
};

static struct ask ask(struct fake *f, const char *seat, const char *a, const char *b) {
	char *names[] = {(char *)a, (char *)b};
	struct ask r = {0};
	r.result = lessor_lease_sync(&f->base, seat, names, b != NULL ? 2 : 1, &r.lease, r.err,
			sizeof(r.err));
	return r;
}

static void test_unknown_waits(void **state) {
	struct fake *f = *state;
	struct ask r = ask(f, "s1", "HDMI-9", NULL);
	assert_int_equal(r.result, LEASE_WAIT);
	assert_string_equal(r.err, "output HDMI-9 does not exist on fake card; it has A, B, C, "
			"D, A2, E");
	assert_int_equal(f->creates, 0);
	assert_int_equal(f->forgets, f->resolves);
}

static void test_disconnected_waits(void **state) {
	struct fake *f = *state;
	struct ask r = ask(f, "s1", "A", "C");
	assert_int_equal(r.result, LEASE_WAIT);
	assert_string_equal(r.err, "output C of fake card is disconnected; waiting for a "
			"monitor (plug C in)");
	assert_int_equal(f->creates, 0);
}

static void test_foreign_waits(void **state) {
	struct fake *f = *state;
	struct ask r = ask(f, "s1", "E", NULL);
	assert_int_equal(r.result, LEASE_WAIT);
	assert_non_null(strstr(r.err, "output E of fake card is leased by another client"));
}

static void test_no_crtc_fails(void **state) {
	struct fake *f = *state;
	f->outputs[1].n_crtcs = 0;
	struct ask r = ask(f, "s1", "B", NULL);
	assert_int_equal(r.result, LEASE_FAILED);
	assert_string_equal(r.err, "output B of fake card has no CRTC that can drive it (why)");
}

static void test_count_fails(void **state) {
	struct fake *f = *state;
	struct ask r = {0};
	r.result = lessor_lease_sync(&f->base, "s1", NULL, 0, &r.lease, r.err, sizeof(r.err));
	assert_int_equal(r.result, LEASE_FAILED);
	assert_int_equal(f->resolves, 0);
}

static void test_resolve_failure_waits(void **state) {
	struct fake *f = *state;
	f->resolve_fails = true;
	struct ask r = ask(f, "s1", "A", NULL);
	assert_int_equal(r.result, LEASE_WAIT);
	assert_string_equal(r.err, "cannot list");
}

static void test_leases_best_crtc(void **state) {
	struct fake *f = *state;
	struct ask r = ask(f, "s1", "A", "B");
	assert_int_equal(r.result, LEASE_OK);
	/* B has only 10: A takes 11. */
	assert_int_equal(r.lease->n_outputs, 2);
	assert_int_equal(r.lease->outputs[0], 1);
	assert_int_equal(r.lease->outputs[1], 2);
	assert_int_equal(r.lease->crtcs[0], 11);
	assert_int_equal(r.lease->crtcs[1], 10);
	assert_true(r.lease->fd >= 0);
	assert_int_equal(f->forgets, 1);
	lease_release(r.lease);
}

static void test_held_across_seats(void **state) {
	struct fake *f = *state;
	struct ask a = ask(f, "s1", "A", NULL);
	assert_int_equal(a.result, LEASE_OK);
	struct ask b = ask(f, "s2", "A", NULL);
	assert_int_equal(b.result, LEASE_WAIT);
	assert_string_equal(b.err, "output A is already leased to seat s1");
	assert_int_equal(f->creates, 1);
	lease_release(a.lease);
}

static void test_starved(void **state) {
	struct fake *f = *state;
	struct ask a = ask(f, "s1", "A", NULL); /* takes 10 */
	assert_int_equal(a.result, LEASE_OK);
	assert_int_equal(a.lease->crtcs[0], 10);
	struct ask b = ask(f, "s2", "B", NULL);
	assert_int_equal(b.result, LEASE_WAIT);
	assert_string_equal(b.err, "output B of fake card has no free CRTC: CRTC 10 is leased "
			"to seat s1; waiting for one to be freed");
	assert_int_equal(f->creates, 1);
	lease_release(a.lease);
}

static void test_starved_names_lessors_output(void **state) {
	struct fake *f = *state;
	struct ask a = ask(f, "s1", "A", "B"); /* takes 11 and 10 */
	assert_int_equal(a.result, LEASE_OK);
	struct ask d = ask(f, "s2", "D", NULL);
	assert_int_equal(d.result, LEASE_WAIT);
	assert_string_equal(d.err, "output D of fake card has no free CRTC: CRTC 12 drives "
			"output A2 of fake card; CRTC 11 is leased to seat s1; waiting for one to be "
			"freed");
	lease_release(a.lease);
}

static void test_busy_named_tries_next(void **state) {
	struct fake *f = *state;
	f->busy[f->n_busy++] = 10;
	f->name_culprit = true;
	struct ask r = ask(f, "s1", "A", NULL);
	assert_int_equal(r.result, LEASE_OK);
	assert_int_equal(r.lease->crtcs[0], 11);
	assert_int_equal(f->creates, 2);
	lease_release(r.lease);
}

static void test_busy_unnamed_tries_next(void **state) {
	struct fake *f = *state;
	f->busy[f->n_busy++] = 10;
	struct ask r = ask(f, "s1", "A", NULL);
	assert_int_equal(r.result, LEASE_OK);
	assert_int_equal(r.lease->crtcs[0], 11);
	lease_release(r.lease);
}

static void test_busy_everywhere_waits(void **state) {
	struct fake *f = *state;
	f->busy[f->n_busy++] = 10;
	f->busy[f->n_busy++] = 11;
	f->name_culprit = true;
	struct ask r = ask(f, "s1", "A", NULL);
	assert_int_equal(r.result, LEASE_WAIT);
	assert_string_equal(r.err, "output A of fake card has no free CRTC: CRTC 10 is leased "
			"by another client (another seatd-lease?); CRTC 11 is leased by another client "
			"(another seatd-lease?); waiting for one to be freed");
	assert_int_equal(f->creates, 2);
}

static void test_busy_unnamed_everywhere_waits(void **state) {
	struct fake *f = *state;
	f->busy[f->n_busy++] = 10;
	f->busy[f->n_busy++] = 11;
	struct ask r = ask(f, "s1", "A", NULL);
	assert_int_equal(r.result, LEASE_WAIT);
	assert_string_equal(r.err, "fake card refused every CRTC for these outputs as busy; "
			"waiting for a change");
	assert_int_equal(f->creates, 2);
}

static void test_busy_output_waits(void **state) {
	struct fake *f = *state;
	struct lease_plan p;
	char *names[] = {"A"};
	char err[256];
	assert_int_equal(lease_plan_init(&p, "s1", names, 1, err, sizeof(err)), LEASE_OK);
	assert_true(fake_resolve(&f->base, &p, err, sizeof(err)));
	assert_int_equal(lease_plan_first(&f->base, &p, err, sizeof(err)), LEASE_OK);
	assert_int_equal(lease_plan_busy(&f->base, &p, 1, err, sizeof(err)), LEASE_WAIT);
	assert_string_equal(err, "output A of fake card is leased by another client (another "
			"seatd-lease?); waiting for it to be freed");
}

static void test_refused_fails(void **state) {
	struct fake *f = *state;
	f->refuse = true;
	struct ask r = ask(f, "s1", "A", NULL);
	assert_int_equal(r.result, LEASE_FAILED);
	assert_string_equal(r.err, "fake card refused to lease A (CRTC 10): Invalid argument");
}

static void test_release_returns_outputs(void **state) {
	struct fake *f = *state;
	struct ask a = ask(f, "s1", "B", NULL);
	assert_int_equal(a.result, LEASE_OK);
	uint32_t id = a.lease->id;
	lessor_release(&f->base, a.lease);
	assert_int_equal(f->revokes, 1);
	assert_int_equal(f->revoked[0], id);
	assert_int_equal(f->releases, 1);
	struct ask b = ask(f, "s2", "B", NULL);
	assert_int_equal(b.result, LEASE_OK);
	assert_int_equal(b.lease->crtcs[0], 10);
	lease_release(b.lease);
}

static void test_end_before_release(void **state) {
	struct fake *f = *state;
	struct ask a = ask(f, "s1", "B", NULL);
	assert_int_equal(a.result, LEASE_OK);
	uint32_t id = a.lease->id;
	int fd = a.lease->fd;
	lease_end(a.lease);
	/* Ended at the lessor at once; its file still open, its handle the
	 * seat's. */
	assert_int_equal(f->revokes, 1);
	assert_int_equal(f->revoked[0], id);
	assert_false(lease_is_void(a.lease));
	assert_int_equal(a.lease->fd, fd);
	assert_true(fcntl(fd, F_GETFD) >= 0);
	assert_int_equal(f->releases, 0);
	lease_end(a.lease);
	assert_int_equal(f->revokes, 1);
	/* Released: closed, not revoked twice. */
	lease_release(a.lease);
	assert_int_equal(f->revokes, 1);
	assert_int_equal(f->releases, 1);
	assert_true(fcntl(fd, F_GETFD) < 0);
	/* A void lease has no lessor to end it. */
	struct ask b = ask(f, "s2", "A", NULL);
	assert_int_equal(b.result, LEASE_OK);
	lessor_lose(&f->base, "gone");
	lease_end(b.lease);
	assert_int_equal(f->revokes, 1);
	lease_release(b.lease);
	assert_int_equal(f->revokes, 1);
}

static void test_lost_voids(void **state) {
	struct fake *f = *state;
	struct ask a = ask(f, "s1", "A", NULL);
	assert_int_equal(a.result, LEASE_OK);
	assert_false(lease_is_void(a.lease));
	lessor_lose(&f->base, "gone");
	assert_int_equal(f->lost, 1);
	assert_true(lease_is_void(a.lease));
	assert_int_equal(a.lease->fd, -1);
	assert_int_equal(f->revokes, 0);
	/* No longer the lessor's: another seat may have it from a new one. */
	struct ask b = ask(f, "s2", "A", NULL);
	assert_int_equal(b.result, LEASE_OK);
	lease_release(a.lease);
	assert_int_equal(f->revokes, 0);
	assert_int_equal(f->releases, 0);
	lease_release(b.lease);
	assert_int_equal(f->revokes, 1);
}

static void test_finish_revokes_and_voids(void **state) {
	struct fake *f = *state;
	struct ask a = ask(f, "s1", "A", NULL);
	assert_int_equal(a.result, LEASE_OK);
	lessor_finish(&f->base);
	assert_int_equal(f->revokes, 1);
	assert_true(lease_is_void(a.lease));
	lease_release(a.lease);
	assert_int_equal(f->revokes, 1);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unknown_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disconnected_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_crtc_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_failure_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leases_best_crtc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_across_seats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_starved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_starved_names_lessors_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_named_tries_next, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_unnamed_tries_next, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_everywhere_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_unnamed_everywhere_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_output_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_returns_outputs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_before_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_voids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish_revokes_and_voids, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
