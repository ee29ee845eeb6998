"""Wayland seats on the rig: a seat whose compositor (libseat-client, linked
against Debian's libseat, unmodified) gets its card and input devices through
the seat's libseat socket, beside an X seat and the primary, on one card."""

import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, HeadSampler, Supervisor,
                   assert_head, event_node, input_seat, presses, seat_map, setup_users,
                   status_json, wait_presses)

CLIENT = "%s/tests/vm/libseat-client" % rigmod.build_dir()
CLIENT_LOG = "/tmp/libseat-client.log"
GREEN = SEAT_COLOURS[1]


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2"])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


def wayland_seat(name, head, user, colour, asks="", log=CLIENT_LOG):
    """A Wayland seat on head with head's keyboard and pointer: its
    compositor paints colour, logs to log, and asks for asks too."""
    return dict(name=name, outputs="Virtual-%d" % head, user=user,
                compositor="%s 0x%s %s %dx%d %s" % (CLIENT, colour.lstrip("#"), log,
                                                     rigmod.HEAD_WIDTH, rigmod.HEAD_HEIGHT,
                                                     asks),
                extra="inputs = path:%s path:%s\n" % (rigmod.keyboard_id_path(head),
                                                     rigmod.pointer_id_path(head)))


def client_log(rig, log=CLIENT_LOG):
    return rig.run("cat %s" % log, check=False).stdout


def wait_client(rig, pattern, timeout=30, log=CLIENT_LOG):
    deadline = time.monotonic() + timeout
    while not re.search(pattern, client_log(rig, log), re.M):
        assert time.monotonic() < deadline, "the compositor's log never showed %r:\n%s" % (
            pattern, client_log(rig, log))
        time.sleep(0.2)


def test_a_wayland_seat_beside_an_x_seat(rig):
    rig.run("rm -f %s" % CLIENT_LOG)
    other_keyboard = event_node(rig, rigmod.keyboard_id_path(2))
    seats = [input_seat("s1", 2, "lab1", SEAT_COLOURS[0]),
             wayland_seat("w1", 3, "lab2", GREEN, asks="%s /dev/dri/card1 /etc/shadow"
                          % other_keyboard)]
    with Supervisor(rig, seat_map("x11", seats)) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("w1", "running")
        # Each head shows its own.
        assert_head(rig, 1, PRIMARY)
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, GREEN)
        log = client_log(rig)
        assert "seat seat-w1" in log and "enabled" in log
        assert re.search(r"^card /dev/dri/card0$", log, re.M), log
        assert re.search(r"^drew %dx%d on \d+$" % (rigmod.HEAD_WIDTH, rigmod.HEAD_HEIGHT),
                         log, re.M), log
        # Another seat's keyboard, another card, any other file: refused.
        for path in (other_keyboard, "/dev/dri/card1", "/etc/shadow"):
            assert re.search(r"^refused %s EACCES$" % re.escape(path), log, re.M), log
        assert "opened" not in log
        sup.wait_log(r"seat w1: refused its compositor \(pid \d+\) %s" % re.escape(other_keyboard))
        # Its own keyboard and pointer, through libinput on its seat, and no
        # other device.
        wait_client(rig, r"^input .*\n(.*\n)*input ")
        inputs = re.findall(r"^input (.*)$", client_log(rig), re.M)
        assert len(inputs) == 2, client_log(rig)
        # Keys: each reaches its own seat and no other.
        time.sleep(1)
        rig.send_key(3, "a")
        wait_client(rig, r"^key 30 1$")
        rig.send_key(2, "b")
        wait_presses(rig, "%s/s1/session.log" % RUNTIME_DIR, 1)
        time.sleep(1)
        assert not re.search(r"^key 48 ", client_log(rig), re.M), client_log(rig)
        # status: its kind, its compositor, what it holds through its socket
        # (the card and two input devices).
        w1 = status_json(rig)["w1"]
        assert w1["kind"] == "wayland" and w1["display"] is None
        assert w1["xserver_pid"] is None and w1["compositor_pid"] > 0
        assert w1["handed_out"] == 3, w1
        # In the seat's cgroup, which only root can leave.
        cgroup = rig.run("cat /proc/%d/cgroup" % w1["compositor_pid"]).stdout
        assert re.search(r"^0::/seatd-lease/seat-w1$", cgroup, re.M), cgroup
        # Its environment: its socket, card and seat; nothing of another's.
        env = rig.run("tr '\\0' '\\n' < /proc/%d/environ" % w1["compositor_pid"]).stdout
        for want in ("LIBSEAT_BACKEND=seatd", "SEATD_SOCK=%s/w1/libseat" % RUNTIME_DIR,
                     "WLR_DRM_DEVICES=/dev/dri/card0", "XDG_SEAT=seat-w1",
                     "XDG_SESSION_TYPE=wayland"):
            assert want in env.splitlines(), env
        assert "DISPLAY=" not in env and "WAYLAND_DISPLAY=" not in env
        # The card's render node: the seat user's while the seat runs (an
        # ACL entry, as the kernel's access check sees it), no one else's.
        render = "/dev/dri/renderD128"
        assert rig.run("su -s /bin/sh lab2 -c 'test -r %s -a -w %s'" % (render, render),
                       check=False).status == 0
        assert rig.run("su -s /bin/sh lab1 -c 'test -r %s'" % render, check=False).status != 0
        # The socket: the seat user's alone.
        sock = rig.run("stat -c '%%F %%U %%a' %s/w1/libseat" % RUNTIME_DIR).stdout.strip()
        assert sock == "socket lab2 600", sock
        other = rig.run("su -s /bin/sh lab1 -c 'SEATD_SOCK=%s/w1/libseat LIBSEAT_BACKEND=seatd "
                        "WLR_DRM_DEVICES=/dev/dri/card0 %s 0x000000 /tmp/lab1.log %dx%d'"
                        % (RUNTIME_DIR, CLIENT, rigmod.HEAD_WIDTH, rigmod.HEAD_HEIGHT),
                        check=False)
        assert other.status != 0, other.stdout + other.stderr

        # Killed, it comes back, and the primary never shows on its head.
        pid = w1["compositor_pid"]
        with HeadSampler(rig, [3]) as sampler:
            rig.run("kill -9 %d" % pid)
            sup.wait_state("w1", "running", after=None, timeout=60)
            deadline = time.monotonic() + 60
            while status_json(rig)["w1"]["compositor_pid"] in (None, pid):
                assert time.monotonic() < deadline, sup.log()
                time.sleep(0.3)
            assert_head(rig, 3, GREEN, timeout=30)
        sampler.assert_never(3, PRIMARY)
        assert status_json(rig)["w1"]["restarts"] == 1

        # restart NAME: a fresh lease, a new compositor.
        pid = status_json(rig)["w1"]["compositor_pid"]
        rig.run("%s -c /etc/seatd-lease/seats.ini restart w1" % BIN)
        deadline = time.monotonic() + 60
        while status_json(rig)["w1"]["compositor_pid"] in (None, pid) or \
                status_json(rig)["w1"]["state"] != "running":
            assert time.monotonic() < deadline, sup.log()
            time.sleep(0.3)
        assert_head(rig, 3, GREEN)
        # reload: the Wayland seat's compositor changed, so it restarts on
        # the new one; the X seat runs on untouched.
        xserver = sup.xserver_pid("s1")
        yellow = SEAT_COLOURS[2]
        seats[1] = wayland_seat("w1", 3, "lab2", yellow)
        rig.write_file("/etc/seatd-lease/seats.ini", seat_map("x11", seats).encode())
        rig.run("%s -c /etc/seatd-lease/seats.ini reload" % BIN)
        assert_head(rig, 3, yellow, timeout=60)
        assert sup.xserver_pid("s1") == xserver
        assert_head(rig, 2, SEAT_COLOURS[0])

        # stop: its output goes back to the primary; the X seat runs on.
        rig.run("%s -c /etc/seatd-lease/seats.ini stop w1" % BIN)
        sup.wait_state("w1", "stopped")
        assert rig.run("su -s /bin/sh lab2 -c 'test -r %s'" % render, check=False).status != 0
        assert_head(rig, 3, PRIMARY)
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert rig.run("test -e %s/w1/libseat" % RUNTIME_DIR, check=False).status != 0
        assert sup.stop() == 0


def test_a_wayland_seat_after_the_daemon_was_killed(rig):
    """Its socket was the daemon's: the next run does not adopt the seat,
    says why in one line, ends what the old run left, and starts it anew."""
    rig.run("rm -f %s" % CLIENT_LOG)
    seats = [wayland_seat("w1", 3, "lab2", GREEN)]
    sup = Supervisor(rig, seat_map("x11", seats))
    sup.start()
    sup.wait_state("w1", "running")
    old = status_json(rig)["w1"]["compositor_pid"]
    rig.run("kill -9 %d" % sup.pid())
    with Supervisor(rig, seat_map("x11", seats)) as again:
        line = again.wait_log(r"seat w1: not adopted")
        assert "a Wayland seat's compositor holds its devices through a socket of the " \
            "daemon's, which ended with it" in line, line
        again.wait_state("w1", "running")
        new = status_json(rig)["w1"]["compositor_pid"]
        assert new != old
        assert rig.run("test -d /proc/%d" % old, check=False).status != 0
        assert_head(rig, 3, GREEN)
        assert again.stop() == 0
    assert_head(rig, 3, PRIMARY)
    assert rig.run("pgrep -u lab2 -l", check=False).stdout == ""
    assert rig.run("su -s /bin/sh lab2 -c 'test -r /dev/dri/renderD128'",
                   check=False).status != 0


def test_a_killed_runs_render_node_grant_is_taken_back(rig):
    """The seat user's entry on the render node outlives a killed daemon;
    the next run's clean-up takes it back, though the seat is gone from its
    map."""
    render = "/dev/dri/renderD128"
    seats = [wayland_seat("w1", 3, "lab2", GREEN)]
    sup = Supervisor(rig, seat_map("x11", seats))
    sup.start()
    sup.wait_state("w1", "running")
    rig.run("kill -9 %d" % sup.pid())
    assert rig.run("su -s /bin/sh lab2 -c 'test -r %s'" % render, check=False).status == 0
    other = seat_map("x11", [input_seat("s1", 2, "lab1", SEAT_COLOURS[0])])
    with Supervisor(rig, other) as again:
        again.wait_state("s1", "running")
        assert rig.run("su -s /bin/sh lab2 -c 'test -r %s'" % render,
                       check=False).status != 0, again.log()
        assert rig.run("pgrep -u lab2 -l", check=False).stdout == ""
        assert again.stop() == 0
    assert_head(rig, 3, PRIMARY)
