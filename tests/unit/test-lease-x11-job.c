#include "x11-world.h"

/*
 * How the x11 lessor's job turns the X server's replies into a plan and an
 * answer (lease-x11-job.c), on the fake server of x11-world.h.
 */

static struct x11_lessor l;

static void fake_revoke(struct lessor *base, uint32_t id) {
	x.revokes++;
}

static const struct lessor_impl fake_x11_impl = {
	.name = "x11",
	.revoke = fake_revoke,
	.list_outputs = x11_list_outputs,
	.output_name = x11_output_name,
	.hex_ids = true,
};

static void nothing(void *data) {
}

static void lost(void *data, const char *why) {
}

static int setup(void **state) {
	server_reset();
	l = (struct x11_lessor){.display = ":0", .conn = (xcb_connection_t *)&x, .root = 1};
	struct lessor_listener listener = {.available = nothing, .lost = lost};
	lessor_init(&l.base, &fake_x11_impl, "X server :0", &listener);
	return 0;
}

static int teardown(void **state) {
	while (l.jobs != NULL) {
		x11_job_free(&l, l.jobs);
	}
	lessor_finish(&l.base);
	return 0;
}

/* The job for seat s1's output, taken as far as the server's replies go. */
static struct job *run(const char *output) {
	char *names[] = {(char *)output};
	struct job *j = x11_job_start(&l, "s1", names, 1);
	while (x11_job_progress(&l, j)) {
	}
	return j;
}

/* The CRTC the output shows the primary on, then those that drive none of
 * the primary's outputs: 0x60 is DP-1's, left to the primary. */
static void test_leases_current_crtc(void **state) {
	struct job *j = run("HDMI-1");
	assert_int_equal(j->step, JOB_DONE);
	assert_int_equal(j->result, LEASE_OK);
	assert_int_equal(x.creates, 1);
	assert_int_equal(x.created_crtc, 0x61);
	assert_int_equal(x.created_output, 0x50);
	assert_int_equal(j->lease->crtcs[0], 0x61);
	assert_int_equal(j->lease->id, 0x400001);
	assert_int_equal(j->plan.opts[0].n_crtcs, 2);
	assert_int_equal(j->plan.options[0][1], 0x62);
}

/* BadAccess naming the CRTC: the next one, in the same job. */
static void test_busy_tries_next(void **state) {
	x.busy_crtc = 0x61;
	struct job *j = run("HDMI-1");
	assert_int_equal(j->result, LEASE_OK);
	assert_int_equal(x.creates, 2);
	assert_int_equal(j->lease->crtcs[0], 0x62);
	assert_int_equal(j->lease->id, 0x400002);
}

static void test_badmatch_fails(void **state) {
	x.create_error = XCB_MATCH;
	struct job *j = run("HDMI-1");
	assert_int_equal(j->result, LEASE_FAILED);
	assert_string_equal(j->err, "X server :0 refused to lease HDMI-1 (CRTC 0x61): error 8; "
			"its video driver may not support leases (modesetting does)");
	assert_null(j->lease);
}

/* Disconnected with CRTCs: no monitor; without: the server hides a lease. */
static void test_disconnected_or_foreign(void **state) {
	struct job *j = run("DP-2");
	assert_int_equal(j->result, LEASE_WAIT);
	assert_string_equal(j->err, "output DP-2 of X server :0 is disconnected; waiting for a "
			"monitor");
	j = run("DP-3");
	assert_int_equal(j->result, LEASE_WAIT);
	assert_string_equal(j->err, "output DP-3 of X server :0 is leased by another client "
			"(another seatd-lease?); waiting for it to be freed");
	j = run("VGA-1");
	assert_int_equal(j->result, LEASE_WAIT);
	assert_string_equal(j->err, "output VGA-1 does not exist on X server :0; it has HDMI-1, "
			"DP-1, DP-2, DP-3, HDMI-2");
	assert_int_equal(x.creates, 0);
}

/* Its one CRTC shows the primary's DP-1: left to the primary, named. */
static void test_crtc_of_primary_starves(void **state) {
	struct job *j = run("HDMI-2");
	assert_int_equal(j->result, LEASE_WAIT);
	assert_string_equal(j->err, "output HDMI-2 of X server :0 has no free CRTC: CRTC 0x60 "
			"drives output DP-1 of X server :0; waiting for one to be freed");
	assert_int_equal(x.creates, 0);
}

static void test_no_resources_waits(void **state) {
	x.res_fails = true;
	struct job *j = run("HDMI-1");
	assert_int_equal(j->result, LEASE_WAIT);
	assert_string_equal(j->err, "X server :0 did not list its outputs");
}

/* Nothing answered: the job waits on its first request, and moves on once
 * the replies are in. */
static void test_waits_for_replies(void **state) {
	x.answering = false;
	struct job *j = run("HDMI-1");
	unsigned seq = 0;
	assert_int_equal(j->step, JOB_RESOURCES);
	assert_true(x11_job_awaits(j, &seq));
	assert_int_equal(seq, 1);
	x.answering = true;
	assert_true(x11_job_progress(&l, j));
	assert_int_equal(j->step, JOB_INFOS);
	assert_true(x11_job_awaits(j, &seq));
	assert_int_equal(seq, 2);
	while (x11_job_progress(&l, j)) {
	}
	assert_int_equal(j->result, LEASE_OK);
	assert_false(x11_job_awaits(j, &seq));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void) {
	const struct CMUnitTest tests[] = {
		T(test_leases_current_crtc),
		T(test_busy_tries_next),
		T(test_badmatch_fails),
		T(test_disconnected_or_foreign),
		T(test_crtc_of_primary_starves),
		T(test_no_resources_waits),
		T(test_waits_for_replies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
