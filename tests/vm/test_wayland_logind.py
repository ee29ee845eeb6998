"""Wayland seats as labs run them, on the rig's systemd guest: the compositor
in a logind session of type wayland on the seat, opened through PAM; then
Debian's own cage and sway, unmodified, as seats' compositors: what they get
through the seat's libseat socket, and what they do with it on the rig's
2D card. cage and sway are installed in the guest only
(Rig(writable_usr=True)), from the .debs scripts/test downloads into
build/vm/debs."""

import re
import time

import pytest

import reuse
import rig as rigmod
import seatd
from seatd import (PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, assert_head,
                   install_guest_debs, seat_map, setup_users, status_json)
from test_wayland import CLIENT, CLIENT_LOG, client_log, wait_client, wayland_seat

GUEST_PACKAGES = "cage sway xwayland"
# On the shared systemd guest (reuse.systemd_guest), after test_systemd.
SYSTEMD_GUEST = 2.5
GREEN = SEAT_COLOURS[1]


@pytest.fixture(scope="module")
def rig(request):
    failed = request.session.testsfailed
    with reuse.systemd_guest("test_wayland_logind",
                             lambda: request.session.testsfailed == failed) as r:
        if not r.xorg_running():
            r.start_xorg(auto_add_gpu=False)
        install_guest_debs(r, GUEST_PACKAGES, "cage, sway and Xwayland")
        setup_users(r, ["lab1", "lab2"])
        r.run("xsetroot -solid '%s'" % PRIMARY, env=r.x_env())
        with open(seatd.PAM_FILE, "rb") as f:
            r.write_file("/etc/pam.d/seatd-lease", f.read())
        r.run("systemctl start dbus.service systemd-logind.service", timeout=90)
        r.add_log("/run/rig/*.log")
        yield r


def show(rig, what, name, prop):
    return rig.run("loginctl show-%s %s -p %s --value" % (what, name, prop),
                   check=False).stdout.strip()


def test_the_compositor_is_a_wayland_session_on_its_seat(rig):
    rig.run("rm -f %s" % CLIENT_LOG)
    with Supervisor(rig, seat_map("x11", [wayland_seat("w1", 3, "lab2", GREEN)])) as sup:
        sup.wait_state("w1", "running", timeout=90)
        assert_head(rig, 3, GREEN)
        deadline = time.monotonic() + 60
        while show(rig, "seat", "seat-w1", "ActiveSession") == "":
            assert time.monotonic() < deadline, rig.run("loginctl list-sessions").stdout
            time.sleep(0.3)
        session = show(rig, "seat", "seat-w1", "ActiveSession")
        assert show(rig, "session", session, "Type") == "wayland"
        assert show(rig, "session", session, "Name") == "lab2"
        assert show(rig, "session", session, "Remote") == "no"
        assert show(rig, "session", session, "Seat") == "seat-w1"
        # Its keyboard, through libinput on the logind seat.
        wait_client(rig, r"^input ")
        time.sleep(1)
        rig.send_key(3, "a")
        wait_client(rig, r"^key 30 1$")
        assert sup.stop() == 0
    assert show(rig, "seat", "seat-w1", "Id") == ""


@pytest.mark.parametrize("compositor", ["cage -- /bin/sleep 600", "sway"])
def test_debians_compositors_on_a_seat(rig, compositor):
    """What an unmodified wlroots compositor (0.15) gets through the socket,
    and what it does with it on the rig's card, which has no 3D: it opens
    its seat, its card (the lease) and its input devices through the
    socket; its renderer takes the render node (the seat user's while the
    seat runs), where EGL finds no driver, Mesa falls back to kms_swrast,
    whose dumb buffers the kernel refuses on a render node: no buffer, no
    frame. The other heads are untouched."""
    seat = dict(name="w1", outputs="Virtual-3", user="lab2", compositor=compositor,
                extra="inputs = path:%s path:%s\nstart_limit = 2/1min\n" % (
                    rigmod.keyboard_id_path(3), rigmod.pointer_id_path(3)))
    with Supervisor(rig, seat_map("x11", [seat])) as sup:
        sup.wait_log(r"seat w1: its compositor \(pid \d+\) has its lease", timeout=120)
        sup.wait_log(r"seat w1: its user may use /dev/dri/renderD128 while it runs")
        # Its card and its two input devices, through the socket.
        deadline = time.monotonic() + 60
        most = 0
        while most < 3 and time.monotonic() < deadline:
            most = max(most, status_json(rig)["w1"]["handed_out"] or 0)
            time.sleep(0.2)
        out = rig.run("cat %s/w1/compositor.log" % RUNTIME_DIR, check=False).stdout
        print("== the daemon's log\n%s\n== %s's output\n%s" % (sup.log(), compositor, out))
        assert most == 3, "at most %d devices handed out" % most
        assert "refused its compositor" not in sup.log()
        deadline = time.monotonic() + 60
        while "DRM_IOCTL_MODE_CREATE_DUMB failed: Permission denied" not in out:
            assert time.monotonic() < deadline, out
            time.sleep(0.5)
            out = rig.run("cat %s/w1/compositor.log" % RUNTIME_DIR, check=False).stdout
        assert "EGL_NOT_INITIALIZED" in out and "falling back to kms_swrast" in out, out
        assert_head(rig, 1, PRIMARY)
