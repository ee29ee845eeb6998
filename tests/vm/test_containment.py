"""A seat's end is the end of everything it started, and of every hold on its
devices: a process that left its session's process group (setsid and a
double fork) dies with the seat (its cgroup), and a process outside the seat
that kept one of the seat's event devices open loses it (EVIOCREVOKE through
pidfd_getfd) before the device goes back to the primary."""

import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, SEAT_COLOURS, Supervisor, event_node, input_seat,
                   seat_map, setup_users)

ESCAPE = "/tmp/escape-session"
# The session: paints, then leaves a process behind that is in no process
# group of the seat's (setsid) and no child of the session (a double fork).
ESCAPE_SCRIPT = """#!/bin/sh
xsetroot -solid '%s'
setsid sh -c 'sleep 100000 & echo $! > /tmp/escapee-$(id -un).pid' </dev/null >/dev/null 2>&1
exec sleep 100000
"""


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2"])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    guest.write_file(ESCAPE, (ESCAPE_SCRIPT % SEAT_COLOURS[0]).encode())
    guest.run("chmod 755 %s" % ESCAPE)
    yield guest


def escapee(rig, user="lab1", timeout=20):
    """The pid the escaping session wrote, once it is there."""
    path = "/tmp/escapee-%s.pid" % user
    rig.wait_until("[ -s %s ]" % path, timeout=timeout)
    return int(rig.run("cat %s" % path).stdout)


def alive(rig, pid):
    return rig.run("kill -0 %d" % pid, check=False).status == 0


def wait_gone(rig, pid, timeout=10):
    deadline = time.monotonic() + timeout
    while alive(rig, pid):
        assert time.monotonic() < deadline, "pid %d is still alive: %s" % (
            pid, rig.run("ps -o pid,pgid,sid,user,args -p %d" % pid, check=False).stdout)
        time.sleep(0.2)


def test_a_process_that_left_the_session_ends_with_its_seat(rig):
    rig.run("rm -f /tmp/escapee-*.pid")
    s1 = dict(name="s1", outputs="Virtual-2", user="lab1", session=ESCAPE)
    with Supervisor(rig, seat_map("x11", [s1])) as sup:
        sup.wait_state("s1", "running")
        pid = escapee(rig)
        # Out of the session's reach by process group and parentage...
        session = sup.session_pid("s1")
        stat = rig.run("ps -o pgid=,sid=,ppid= -p %d" % pid).stdout.split()
        assert str(session) not in stat, stat
        # ...but in the seat's cgroup, which only root can leave.
        cgroup = rig.run("cat /proc/%d/cgroup" % pid).stdout
        assert re.search(r"^0::/seatd-lease/seat-s1$", cgroup, re.M), cgroup
        rig.run("%s -c %s stop s1" % (BIN, CONFIG))
        sup.wait_state("s1", "stopped")
        wait_gone(rig, pid)
        assert rig.run("pgrep -u lab1 || true").stdout == ""


def test_an_escaped_process_does_not_outlive_the_seats_restart(rig):
    rig.run("rm -f /tmp/escapee-*.pid")
    s1 = dict(name="s1", outputs="Virtual-2", user="lab1", session=ESCAPE)
    with Supervisor(rig, seat_map("x11", [s1])) as sup:
        sup.wait_state("s1", "running")
        first = escapee(rig)
        xserver = sup.xserver_pid("s1")
        rig.run("rm -f /tmp/escapee-lab1.pid; kill -9 %d" % sup.session_pid("s1"))
        sup.wait_state("s1", "running", after=xserver)
        wait_gone(rig, first)
        second = escapee(rig)
        assert second != first and alive(rig, second)
    # The daemon's stop (SIGTERM) ends the second one too, and leaves no
    # cgroup behind: neither the seat's nor the one it made at the root.
    wait_gone(rig, second)
    assert rig.run("ls -d /sys/fs/cgroup/seatd-lease 2>&1 || true").stdout.endswith(
        "No such file or directory\n")


def test_a_killed_daemons_leftovers_die_at_the_next_start(rig):
    rig.run("rm -f /tmp/escapee-*.pid")
    s1 = dict(name="s1", outputs="Virtual-2", user="lab1", session=ESCAPE)
    first = Supervisor(rig, seat_map("x11", [s1]))
    first.start()
    first.wait_state("s1", "running")
    pid = escapee(rig)
    rig.run("kill -9 %d" % first.pid())
    first.proc.wait(10)
    first.proc = None
    assert alive(rig, pid)
    other = dict(name="s9", outputs="Virtual-3", user="lab2", colour=SEAT_COLOURS[1])
    with Supervisor(rig, seat_map("x11", [other])) as sup:
        sup.wait_log(r"seat s1: killed \d+ process\(es\) an earlier run left in its cgroup")
        wait_gone(rig, pid)
        sup.wait_state("s9", "running")


READER = "/tmp/evdev-reader"


def test_a_device_kept_open_outside_the_seat_is_revoked(rig):
    # lab1 opens the seat's keyboard while the seat has it (owner lab1, 0600),
    # from outside the seat: a login of its own, not the seat's session.
    rig.run("rm -f /tmp/reader-ready")
    node = event_node(rig, rigmod.keyboard_id_path(2))
    seats = seat_map("x11", [input_seat("s1", 2, "lab1", SEAT_COLOURS[0])])
    with Supervisor(rig, seats) as sup:
        sup.wait_state("s1", "running")
        assert rig.run("stat -c %%U %s" % node).stdout.strip() == "lab1"
        reader = rig.spawn("exec setpriv --reuid=lab1 --regid=lab1 --clear-groups "
                           "/usr/bin/python3 %s/evdev-log /tmp/reader-ready %s"
                           % (rigmod.HERE, node), name="evdev-reader")
        rig.wait_until("[ -e /tmp/reader-ready ]", timeout=20)
        assert reader.running()
        rig.run("%s -c %s stop s1" % (BIN, CONFIG))
        sup.wait_state("s1", "stopped")
        # Back with the primary; the reader hears nothing of it any more.
        rig.wait_until("[ \"$(stat -c %%U %s)\" = root ]" % node, timeout=20)
        rig.send_key(2, "a")
        time.sleep(2)
        log = rig.run("cat %s" % reader.log).stdout
        assert not re.search(r"^%s \d+ \d+$" % re.escape(node), log, re.M), \
            "a key typed after the seat stopped reached lab1's reader:\n" + log
        assert "No such device" in log, log
        sup.wait_log(r"seat s1: revoked pid \d+'s descriptor")
        assert "keeps descriptor" not in sup.log(), sup.log()
        reader.stop()
