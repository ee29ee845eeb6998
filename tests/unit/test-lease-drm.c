#include "drm-world.h"

/*
 * The drm lessor's decisions (lease-drm.c), through lessor_drm_impl on the
 * fake card of drm-world.h: which connector a name is, whether it is
 * connected, which CRTCs it may have, what the kernel's answers mean, what
 * the administrator reads, what is revoked.
 */

static void create_fails(const char *path, const char *want) {
	char err[512] = "";
	assert_null(create(path, err, sizeof(err)));
	if (strstr(err, want) == NULL) {
		fail_msg("create(%s) said \"%s\", not \"%s\"", path, err, want);
	}
	assert_int_equal(card.keeps, 0);
	assert_int_equal(card.watches, 0);
	assert_int_equal(card.alive, 0);
	card_reset();
}

static void test_create_refusals(void **state) {
	card_reset();
	create_fails("/nonexistent/card9", "cannot open card /nonexistent/card9: No such file");
	char file[] = "/tmp/test-lease-drm-XXXXXX";
	int fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	char want[64];
	snprintf(want, sizeof(want), "%s is not a device", file);
	create_fails(file, want);
	unlink(file);
	card.set_master_errno = EACCES;
	create_fails(CARD, "cannot become DRM master of /dev/null: Permission denied; the drm "
			"lessor runs as root");
	card.set_master_errno = EPERM;
	create_fails(CARD, "Operation not permitted; the drm lessor runs as root");
	card.set_master_errno = EBUSY;
	create_fails(CARD, "Device or resource busy; another DRM master holds the card");
	card.no_resources = true;
	create_fails(CARD, "/dev/null has no display resources: is it a KMS card");
}

/* Its master goes to systemd's store, unless it came from there. */
static void test_create_stores_master(void **state) {
	struct lessor *l = *state;
	assert_int_equal(card.keeps, 1);
	assert_int_equal(card.watches, 1);
	lessor_drm_impl.destroy(l);
	assert_int_equal(card.forgets, 1);
	assert_int_equal(card.drops, 1);
	assert_int_equal(card.closes, 1);
	card_reset();
	card.stored_fd = open(CARD, O_RDWR);
	char err[512] = "";
	*state = create(CARD, err, sizeof(err));
	assert_non_null(*state);
	assert_int_equal(card.keeps, 0);
	assert_int_equal(card.stored_fd, -1);
}

static void test_current_crtc_first(void **state) {
	struct ask a = ask(*state, "s1", "HDMI-A-1", NULL);
	assert_int_equal(a.result, LEASE_OK);
	assert_int_equal(a.lease->crtcs[0], 32);
	assert_int_equal(a.lease->outputs[0], 51);
	assert_int_equal(a.lease->id, 100);
	assert_true(a.lease->fd >= 0);
	assert_int_equal(card.n_objects, 2);
	assert_int_equal(card.objects[0], 32);
	assert_int_equal(card.objects[1], 51);
	assert_int_equal(card.probes, 0); /* connected: no slow probe */
	lease_release(a.lease);
}

/* CRTCs first, then connectors, in the seat's order. */
static void test_two_outputs(void **state) {
	struct ask a = ask(*state, "s1", "DP-1", "HDMI-A-1");
	assert_int_equal(a.result, LEASE_OK);
	uint32_t want[] = {33, 32, 52, 51};
	assert_int_equal(card.n_objects, 4);
	assert_memory_equal(card.objects, want, sizeof(want));
	assert_int_equal(a.lease->crtcs[0], 33);
	assert_int_equal(a.lease->crtcs[1], 32);
	lease_release(a.lease);
}

/* modesetting's name of a connector (xrandr's, outname.h) is the kernel's. */
static void test_modesetting_name(void **state) {
	struct ask a = ask(*state, "s1", "HDMI-1", NULL);
	assert_int_equal(a.result, LEASE_OK);
	assert_int_equal(a.lease->outputs[0], 51);
	lease_release(a.lease);
}

/* A vanished connector is left out of the list. */
static void test_unknown_lists_connectors(void **state) {
	struct ask a = ask(*state, "s1", "HDMI-A-2", NULL);
	assert_int_equal(a.result, LEASE_WAIT);
	assert_string_equal(a.err, "output HDMI-A-2 does not exist on /dev/null; it has "
			"HDMI-A-1, DP-1, DP-2, VGA-1");
	assert_int_equal(card.creates, 0);
}

static void test_disconnected_probes_then_waits(void **state) {
	struct ask a = ask(*state, "s1", "DP-2", NULL);
	assert_int_equal(a.result, LEASE_WAIT);
	assert_string_equal(a.err, "output DP-2 of /dev/null is disconnected; waiting for a "
			"monitor (video=DP-2:e on the kernel command line forces it on)");
	assert_int_equal(card.probes, 1);
	assert_int_equal(card.probed_id, 53);
	assert_int_equal(card.creates, 0);
}

/* The probe finds the monitor the kernel's state had not seen yet; with no
 * current CRTC, the encoders' in the card's order. */
static void test_probe_finds_monitor(void **state) {
	card.conns[2].probed = DRM_MODE_CONNECTED;
	struct ask a = ask(*state, "s1", "DP-2", NULL);
	assert_int_equal(a.result, LEASE_OK);
	assert_int_equal(a.lease->outputs[0], 53);
	assert_int_equal(a.lease->crtcs[0], 31);
	lease_release(a.lease);
}

/* Every encoder's CRTCs, past one that vanished. */
static void test_every_encoders_crtcs(void **state) {
	card.conns[2].probed = DRM_MODE_CONNECTED;
	card.foreign[0] = 32;
	card.foreign[1] = 33;
	card.n_foreign = 2;
	struct ask a = ask(*state, "s1", "DP-2", NULL);
	assert_int_equal(a.result, LEASE_OK);
	assert_int_equal(a.lease->crtcs[0], 31);
	lease_release(a.lease);
	card.foreign[0] = 31;
	card.n_foreign = 1;
	a = ask(*state, "s1", "DP-2", NULL);
	assert_int_equal(a.result, LEASE_OK);
	assert_int_equal(a.lease->crtcs[0], 32);
	lease_release(a.lease);
}

static void test_no_crtc_fails(void **state) {
	struct ask a = ask(*state, "s1", "VGA-1", NULL);
	assert_int_equal(a.result, LEASE_FAILED);
	assert_string_equal(a.err, "output VGA-1 of /dev/null has no CRTC that can drive it");
	assert_int_equal(card.creates, 0);
}

/* Another lessee holds CRTC 32: EBUSY, and the next choice. */
static void test_busy_tries_next_crtc(void **state) {
	card.foreign[card.n_foreign++] = 32;
	struct ask a = ask(*state, "s1", "HDMI-A-1", NULL);
	assert_int_equal(a.result, LEASE_OK);
	assert_int_equal(a.lease->crtcs[0], 31);
	assert_int_equal(card.creates, 2);
	lease_release(a.lease);
}

static void test_busy_everywhere_waits(void **state) {
	card.foreign[card.n_foreign++] = 51; /* the connector itself */
	struct ask a = ask(*state, "s1", "HDMI-A-1", NULL);
	assert_int_equal(a.result, LEASE_WAIT);
	assert_non_null(strstr(a.err, "/dev/null refused every CRTC for these outputs as busy"));
	assert_int_equal(card.creates, 2);
}

static void refused(struct lessor *l, int error, const char *want) {
	card.create_error = error;
	card.creates = 0;
	struct ask a = ask(l, "s1", "HDMI-A-1", NULL);
	assert_int_equal(a.result, LEASE_FAILED);
	assert_string_equal(a.err, want);
	assert_int_equal(card.creates, 1);
}

static void test_refusals_name_the_master(void **state) {
	refused(*state, -EACCES, "/dev/null refused to lease HDMI-A-1 (CRTC 32): Permission "
			"denied (are we still its DRM master?)");
	refused(*state, -EPERM, "/dev/null refused to lease HDMI-A-1 (CRTC 32): Operation not "
			"permitted (are we still its DRM master?)");
	refused(*state, -EINVAL, "/dev/null refused to lease HDMI-A-1 (CRTC 32): Invalid "
			"argument");
}

/* Our own leases: an output held, and CRTCs avoided without asking. */
static void test_held_by_another_seat(void **state) {
	card.foreign[card.n_foreign++] = 32;
	struct ask a = ask(*state, "a", "HDMI-A-1", NULL);
	assert_int_equal(a.lease->crtcs[0], 31);
	card.n_foreign = 0;
	struct ask b = ask(*state, "b", "HDMI-A-1", NULL);
	assert_int_equal(b.result, LEASE_WAIT);
	assert_string_equal(b.err, "output HDMI-A-1 is already leased to seat a");
	card.conns[2].probed = DRM_MODE_CONNECTED;
	card.creates = 0;
	b = ask(*state, "b", "DP-2", NULL);
	assert_int_equal(b.result, LEASE_OK);
	assert_int_equal(b.lease->crtcs[0], 32);
	assert_int_equal(card.creates, 1);
	lease_release(b.lease);
	lease_release(a.lease);
}

/* Given back: revoked by its lessee id, its output free again. */
static void test_release_revokes(void **state) {
	struct ask a = ask(*state, "a", "HDMI-A-1", NULL);
	lessor_drm_impl.release(*state, a.lease);
	assert_int_equal(card.revokes, 1);
	assert_int_equal(card.revoked[0], 100);
	struct ask b = ask(*state, "b", "HDMI-A-1", NULL);
	assert_int_equal(b.result, LEASE_OK);
	assert_int_equal(b.lease->id, 101);
	lessor_drm_impl.destroy(*state); /* revokes what is still held */
	assert_int_equal(card.revokes, 2);
	assert_int_equal(card.revoked[1], 101);
	assert_true(lease_is_void(b.lease));
	lease_release(b.lease);
	assert_int_equal(card.revokes, 2);
	card_reset();
	char err[512];
	*state = create(CARD, err, sizeof(err));
}

/* A hot-plug tells the seats; a removed card is lost, its leases void and
 * not revoked (the card is gone). */
static void test_uevents(void **state) {
	struct ask a = ask(*state, "a", "HDMI-A-1", NULL);
	card.uevent_fn(card.uevent_data, &(struct drm_uevents_seen){.hotplug = true});
	assert_int_equal(card.available, 1);
	assert_int_equal(card.lost, 0);
	card.uevent_fn(card.uevent_data, &(struct drm_uevents_seen){.removed = true,
			.hotplug = true});
	assert_int_equal(card.lost, 1);
	assert_int_equal(card.available, 1);
	assert_string_equal(card.lost_why, "card /dev/null was removed");
	assert_true(lease_is_void(a.lease));
	assert_int_equal(card.revokes, 0);
	lease_release(a.lease);
	assert_int_equal(card.revokes, 0);
}

static void test_listing_fails_waits(void **state) {
	card.no_resources = true;
	struct ask a = ask(*state, "s1", "HDMI-A-1", NULL);
	assert_int_equal(a.result, LEASE_WAIT);
	assert_string_equal(a.err, "cannot list the connectors of /dev/null: Cannot allocate "
			"memory; trying again");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_refusals),
		T(test_create_stores_master),
		T(test_current_crtc_first),
		T(test_two_outputs),
		T(test_modesetting_name),
		T(test_unknown_lists_connectors),
		T(test_disconnected_probes_then_waits),
		T(test_probe_finds_monitor),
		T(test_every_encoders_crtcs),
		T(test_no_crtc_fails),
		T(test_busy_tries_next_crtc),
		T(test_busy_everywhere_waits),
		T(test_refusals_name_the_master),
		T(test_held_by_another_seat),
		T(test_release_revokes),
		T(test_uevents),
		T(test_listing_fails_waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
