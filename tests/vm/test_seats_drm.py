"""seatd-lease on the rig, drm lessor: no X server on the card; seatd-lease is
its DRM master and leases every head to a seat of its own. Also `seatd-lease
seat NAME`, one seat in the foreground as a service manager runs it."""

import re

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, SEAT_COLOURS, Supervisor, assert_head, seat_map,
                   setup_users)

BLACK = "#000000"


@pytest.fixture(scope="module")
def rig():
    with rigmod.Rig("seats-drm", heads=3, xorg=False) as r:
        setup_users(r, ["lab1", "lab2", "lab3"])
        yield r


def three_seats():
    return seat_map("drm", [
        dict(name="s%d" % (i + 1), outputs="Virtual-%d" % (i + 1), user="lab%d" % (i + 1),
             colour=SEAT_COLOURS[i]) for i in range(3)])


def test_three_seats_on_three_heads(rig):
    with Supervisor(rig, three_seats()) as sup:
        for i in range(3):
            sup.wait_state("s%d" % (i + 1), "running")
        for i in range(3):
            assert_head(rig, i + 1, SEAT_COLOURS[i])
        # One seat's crash leaves the others alone, and it comes back.
        x2, x3 = sup.xserver_pid("s2"), sup.xserver_pid("s3")
        rig.run("kill -9 %d" % sup.xserver_pid("s1"))
        sup.wait_log(r"seat s1: .* -> back-off")
        sup.wait_state("s1", "running", after=None)
        assert_head(rig, 1, SEAT_COLOURS[0])
        assert (sup.xserver_pid("s2"), sup.xserver_pid("s3")) == (x2, x3)
        assert sup.stop() == 0
    # Nothing holds the card any more: the heads go dark.
    assert rig.run("ls -A /run/seatd-lease").stdout == ""
    assert rig.run("pgrep -u lab1,lab2,lab3", check=False).stdout == ""


def test_drm_unknown_connector_waits(rig):
    m = seat_map("drm", [dict(name="s1", outputs="HDMI-A-1", user="lab1")])
    with Supervisor(rig, m) as sup:
        sup.wait_state("s1", "waiting")
        line = sup.wait_log(r"seat s1: .*HDMI-A-1")
        assert "Virtual-1" in line, line


def test_seat_command_runs_one_seat_and_exits_with_its_session(rig):
    m = seat_map("drm", [
        dict(name="s1", outputs="Virtual-1", user="lab1",
             # Without a '/': looked up in the seat's PATH when the map is read.
             session="sh -c \"xsetroot -solid '%s' && sleep 3 && exit 7\"" % SEAT_COLOURS[0]),
        dict(name="s2", outputs="Virtual-2", user="lab2", colour=SEAT_COLOURS[1])])
    rig.run("mkdir -p /etc/seatd-lease")
    rig.write_file(CONFIG, m.encode())
    r = rig.run("%s -c %s seat s1" % (BIN, CONFIG), check=False, timeout=90)
    # The session's status is the seat's; no restart in this mode.
    assert r.status == 7, r.stderr
    assert r.stderr.count("-> starting") == 1, r.stderr
    assert "seat s2:" not in r.stderr
    assert rig.run("ls -A /run/seatd-lease").stdout == ""


def test_seat_command_stops_cleanly_on_sigterm(rig):
    with Supervisor(rig, three_seats(), args="seat s2") as sup:
        sup.wait_state("s2", "running")
        assert_head(rig, 2, SEAT_COLOURS[1])
        # SIGHUP's default action would end it; it says why it ignores it.
        xserver = sup.xserver_pid("s2")
        rig.run("kill -HUP %d" % sup.pid())
        sup.wait_log(r"SIGHUP: a seat process does not reload")
        assert sup.running() and sup.xserver_pid("s2") == xserver
        assert sup.stop() == 0
    assert rig.run("pgrep -u lab2", check=False).stdout == ""


def test_a_second_seat_process_on_the_card_says_why_it_cannot(rig):
    # One seat per process cannot work with the drm lessor beyond one seat:
    # the card has one DRM master. The second process says so and exits.
    with Supervisor(rig, three_seats(), args="seat s2") as sup:
        sup.wait_state("s2", "running")
        r = rig.run("%s -c %s seat s1" % (BIN, CONFIG), check=False, timeout=30)
        assert r.status == 1, r.stderr
        assert "the drm lessor makes this process the DRM master of /dev/dri/card0" in r.stderr
        assert re.search(r"cannot become DRM master of /dev/dri/card0: .*another seatd-lease "
                         r"\(the drm lessor serves all seats of a card from one process: "
                         r"seatd-lease run\)", r.stderr), r.stderr
        assert "-> starting" not in r.stderr
        sup.wait_state("s2", "running", timeout=1)
        assert_head(rig, 2, SEAT_COLOURS[1])


def test_a_killed_daemon_cannot_keep_drm_seats_outside_systemd_and_says_so(rig):
    # Outside systemd nothing keeps the card's DRM master open: the kernel
    # revokes every lease with it, and the next run starts the seats afresh.
    sup = Supervisor(rig, three_seats())
    sup.start()
    for i in range(3):
        sup.wait_state("s%d" % (i + 1), "running")
    old = [sup.xserver_pid("s%d" % (i + 1)) for i in range(3)]
    rig.run("kill -9 %d" % sup.pid())
    with Supervisor(rig, three_seats()) as again:
        line = again.wait_log(r"seat s1: not adopted")
        assert "its lease no longer exists" in line, line
        assert "the drm lessor's leases end with the process that held the card" in line
        for i in range(3):
            again.wait_state("s%d" % (i + 1), "running")
            assert again.xserver_pid("s%d" % (i + 1)) not in old
        for i in range(3):
            assert_head(rig, i + 1, SEAT_COLOURS[i])
        assert "adopted from an earlier run" not in again.log()
    assert rig.run("pgrep -u lab1,lab2,lab3 -l", check=False).stdout == ""
