"""seatd-lease on the rig, x11 lessor: two seats on the second and third heads
of a three-head card, leased from a real primary Xorg, with real child Xorgs
running as the seats' users.

One guest for the module; every test starts its own supervisor and leaves the
guest as it found it (no seat process, empty runtime_dir, outputs back)."""

import os
import re
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, HeadSampler, Supervisor,
                   assert_head, seat_map, setup_users, status_json)

@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2", "lab3"])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


def two_seats(**extra):
    return seat_map("x11", [
        dict(name="s1", outputs="Virtual-2", user="lab1", colour=SEAT_COLOURS[0]),
        dict(name="s2", outputs="Virtual-3", user="lab2", colour=SEAT_COLOURS[1]),
    ], **extra)


def primary_outputs(rig):
    out = rig.run("xrandr --query", env=rig.x_env()).stdout
    return dict(re.findall(r"^(Virtual-\d+) (connected|disconnected)", out, re.M))


def test_two_seats_show_their_sessions(rig):
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1])
        # The first head keeps the primary desktop.
        assert_head(rig, 1, PRIMARY)
        # While leased, the primary sees the outputs as disconnected.
        outputs = primary_outputs(rig)
        assert outputs == {"Virtual-1": "connected", "Virtual-2": "disconnected",
                           "Virtual-3": "disconnected"}, outputs


def test_child_xserver_is_the_users_and_holds_only_its_lease(rig):
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        x1 = sup.xserver_pid("s1")
        status = rig.run("cat /proc/%d/status" % x1).stdout
        uid = rig.run("id -u lab1").stdout.strip()
        assert re.search(r"^Uid:\s+%s\s+%s\s+%s\s+%s$" % ((uid,) * 4), status, re.M), status
        # fd 3 is the lease: the card, open in the X server.
        assert rig.run("readlink /proc/%d/fd/3" % x1).stdout.strip() == "/dev/dri/card0"
        # The X server shares one open file with the supervisor: its lease,
        # fd 3 (modesetting may dup it), and not the other seat's lease.
        shared = shared_files(rig, x1, sup.pid())
        lease = {fs for fx, fs in shared if fx == 3}
        assert len(lease) == 1 and {fs for _, fs in shared} == lease, \
            "the X server shares %s with the supervisor, want only its lease" % shared
        other = {fs for fx, fs in shared_files(rig, sup.xserver_pid("s2"), sup.pid()) if fx == 3}
        assert len(other) == 1 and other != lease


def shared_files(rig, a, b):
    """(fd of a, fd of b) pairs that are the same open file."""
    out = rig.run("/usr/bin/python3 %s/fdshare.py %d %d" % (HERE, a, b)).stdout
    return sorted(tuple(int(x) for x in line.split()) for line in out.splitlines())


def fd_targets(rig, pid):
    """fd number -> what it is, as readlink shows it."""
    out = rig.run("cd /proc/%d/fd && for f in *; do echo \"$f $(readlink $f)\"; done"
                  % pid).stdout
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def test_cookie_admits_only_the_seat(rig):
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        display = ":10"
        auth = "/run/seatd-lease/s1/xauthority"
        ok = rig.run("su -s /bin/sh lab1 -c 'XAUTHORITY=%s xdpyinfo -display %s >/dev/null'"
                     % (auth, display), check=False)
        assert ok.status == 0, ok.stderr
        # Another seat's user cannot even read the cookie...
        peek = rig.run("su -s /bin/sh lab2 -c 'cat %s'" % auth, check=False)
        assert peek.status != 0
        # ...and its own cookie does not open this display: its socket is
        # out of lab2's reach (in lab1's runtime_dir/s1/tmp), and were it
        # not, the cookie would be refused.
        other = rig.run("su -s /bin/sh lab2 -c 'XAUTHORITY=/run/seatd-lease/s2/xauthority "
                        "xdpyinfo -display %s'" % display, check=False)
        assert other.status != 0 and "unable to open display" in other.stderr + other.stdout
        refused = rig.run("su -s /bin/sh lab2 -c 'XAUTHORITY=/run/seatd-lease/s2/xauthority "
                          "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); "
                          "s.connect(\\\"/tmp/.X11-unix/X10\\\")\"'", check=False)
        assert "Permission denied" in refused.stderr, refused.stderr
        wrong = rig.run("XAUTHORITY=/run/seatd-lease/s2/xauthority xdpyinfo -display %s"
                        % display, check=False)
        assert wrong.status != 0 and "Authorization required" in wrong.stderr + wrong.stdout
        # Nor does no cookie at all, even as root.
        none = rig.run("XAUTHORITY=/nonexistent xdpyinfo -display %s" % display, check=False)
        assert none.status != 0


def test_killed_xserver_keeps_its_lease_and_restarts_alone(rig):
    """The seat keeps its lease across its own restart: its head goes black,
    never back to the primary's desktop, and the output stays leased."""
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        assert_head(rig, 2, SEAT_COLOURS[0])
        x2 = sup.xserver_pid("s2")
        x1 = sup.xserver_pid("s1")
        with HeadSampler(rig, [2, 3]) as sampler:
            rig.run("kill -9 %d" % x1)
            sup.wait_log(r"seat s1: lease kept for the next X server; cleared \d+ framebuffer")
            sup.wait_log(r"seat s1: .* -> back-off")
            # Still leased: the primary sees no monitor there.
            assert primary_outputs(rig)["Virtual-2"] == "disconnected"
            sup.wait_state("s1", "running", after=x1)
            deadline = time.monotonic() + 20
            while not sampler.shares(2, SEAT_COLOURS[0]) or \
                    sampler.shares(2, SEAT_COLOURS[0])[-1][1] < 0.9:
                assert time.monotonic() < deadline, "head 2 did not show seat s1 again"
                time.sleep(0.2)
        black = [s for _, s in sampler.shares(2, "#000000")]
        samples = len(black)
        print("head 2: %d samples, longest gap %.2f s, %d black" %
              (samples, sampler.gaps(2), sum(1 for s in black if s > 0.9)))
        sampler.assert_never(2, PRIMARY)
        sampler.assert_never(3, PRIMARY)
        # Between the two X servers the head was black, not the last picture.
        assert any(s > 0.9 for s in black), "head 2 never went black"
        assert samples >= 5
        assert "lease freed" not in sup.log().split("back-off")[-1]
        # The other seat never blinked: same X server, same picture.
        assert sup.xserver_pid("s2") == x2
        assert_head(rig, 3, SEAT_COLOURS[1], timeout=1)


def test_crashing_session_ends_failed_without_a_tight_loop(rig):
    m = seat_map("x11", [dict(name="s1", outputs="Virtual-2", user="lab1",
                              session="/bin/false", extra="restart = always\n"
                              "restart_delay = 200ms\nstart_limit = 3/60s\n")])
    with Supervisor(rig, m) as sup:
        sup.wait_state("s1", "failed", timeout=60)
        log = sup.log()
        starts = len(re.findall(r"seat s1: (?:stopped|waiting|back-off) -> starting", log))
        assert starts == 3, log
        assert "started 3 times within 60s" in log
        # The back-off doubled after each failure.
        delays = [int(d) for d in re.findall(r"restarting in (\d+)ms", log)]
        assert delays == [200, 400, 800], log
        assert_head(rig, 2, PRIMARY)


def test_sigterm_leaves_nothing_behind(rig):
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        status = sup.stop()
        assert status == 0, sup.log()
    assert_head(rig, 2, PRIMARY)
    assert_head(rig, 3, PRIMARY)
    assert primary_outputs(rig) == {"Virtual-1": "connected", "Virtual-2": "connected",
                                    "Virtual-3": "connected"}
    left = rig.run("pgrep -u lab1,lab2 -l", check=False).stdout
    assert left == "", "seat processes left: %s" % left
    assert rig.run("ls -A /run/seatd-lease").stdout == ""


def test_unknown_output_waits_with_a_clear_line(rig):
    m = seat_map("x11", [dict(name="s1", outputs="HDMI-7", user="lab1")])
    with Supervisor(rig, m) as sup:
        sup.wait_state("s1", "waiting")
        line = sup.wait_log(r"seat s1: .*HDMI-7.*")
        assert "Virtual-1" in line, "the message should list the outputs there are: " + line


def test_xserver_gone_at_runtime_fails_the_seat(rig):
    # check refuses a bad X server up front; one that breaks later fails the
    # seat with the reason, and the supervisor goes on.
    rig.run("cp /usr/lib/xorg/Xorg /tmp/Xorg-copy")
    m = seat_map("x11", [dict(name="s1", outputs="Virtual-2", user="lab1",
                              colour=SEAT_COLOURS[0], extra="start_limit = 2/60s\n")],
                 general="xserver = /tmp/Xorg-copy\n")
    try:
        with Supervisor(rig, m) as sup:
            sup.wait_state("s1", "running")
            rig.run("chmod -x /tmp/Xorg-copy")
            rig.run("kill -9 %d" % sup.xserver_pid("s1"))
            line = sup.wait_log(r"exec /tmp/Xorg-copy: Permission denied")
            assert "seat s1" in line
            sup.wait_state("s1", "failed")
            assert sup.running()
            assert_head(rig, 2, PRIMARY)
    finally:
        rig.run("rm -f /tmp/Xorg-copy")


def test_config_errors_refuse_to_start(rig):
    m = seat_map("x11", [dict(name="s1", outputs="Virtual-2", user="nosuchuser"),
                         dict(name="s2", outputs="Virtual-3", user="lab2")],
                 general="xserver = /usr/lib/xorg/nothing-here\n")
    rig.write_file("/etc/seatd-lease/seats.ini", m.encode())
    r = rig.run("%s -c /etc/seatd-lease/seats.ini run" % BIN, check=False, timeout=20)
    assert r.status == 1
    assert re.search(r"seats.ini:\d+: error: user nosuchuser does not exist", r.stderr), r.stderr
    assert re.search(r"seats.ini:\d+: error: X server /usr/lib/xorg/nothing-here", r.stderr)
    assert_head(rig, 3, PRIMARY)


def test_kill_9_supervisor_then_restart_adopts_every_seat(rig):
    """Seats outlive a daemon killed with SIGKILL: the next run adopts them,
    with their X servers, sessions, pictures and restart counts, and from
    then on reclaims, restarts and stops them as its own."""
    sup = Supervisor(rig, two_seats())
    sup.start()
    sup.wait_state("s1", "running")
    sup.wait_state("s2", "running")
    assert_head(rig, 2, SEAT_COLOURS[0])
    assert_head(rig, 3, SEAT_COLOURS[1])
    before = status_json(rig)
    pids = {s: (sup.xserver_pid(s), sup.session_pid(s)) for s in ("s1", "s2")}
    with HeadSampler(rig, [2, 3]) as sampler:
        rig.run("kill -9 %d" % sup.pid())
        time.sleep(2)
        # Nothing of the seats went with the daemon: still leased.
        outputs = primary_outputs(rig)
        assert outputs["Virtual-2"] == outputs["Virtual-3"] == "disconnected"
        again = Supervisor(rig, two_seats(), start=False)
        again.start()
        try:
            for seat in ("s1", "s2"):
                again.wait_log(r"seat %s: adopted from an earlier run: X server pid %d, "
                               r"session pid %d" % (seat, pids[seat][0], pids[seat][1]))
            again.wait_state("s1", "running")
            time.sleep(1)
        except BaseException:
            again.stop()
            raise
    with again:
        after = status_json(rig)
        for seat in ("s1", "s2"):
            assert after[seat]["xserver_pid"] == before[seat]["xserver_pid"]
            assert after[seat]["session_pid"] == before[seat]["session_pid"]
            assert after[seat]["restarts"] == before[seat]["restarts"]
            assert abs(after[seat]["since"] - before[seat]["since"]) <= 2
        for head, colour in ((2, SEAT_COLOURS[0]), (3, SEAT_COLOURS[1])):
            sampler.assert_never(head, PRIMARY)
            low = [round(x, 2) for _, x in sampler.shares(head, colour) if x < 0.9]
            assert not low, "head %d did not show its seat throughout: %s" % (head, low)
        # A reload that changes nothing leaves the adopted seats alone.
        rig.run("%s -c %s reload" % (BIN, CONFIG))
        again.wait_log(r"0 started, 0 stopped, 0 restarted, 2 unchanged")
        # An adopted X server's end is reclaimed and the seat restarted.
        rig.run("kill -9 %d" % pids["s1"][0])
        again.wait_log(r"seat s1: the adopted X server \(pid %d\) ended" % pids["s1"][0])
        again.wait_state("s1", "running", after=pids["s1"][0])
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert status_json(rig)["s1"]["restarts"] == before["s1"]["restarts"] + 1
        assert again.xserver_pid("s2") == pids["s2"][0]
        # And stopping gives every output back, adopted lease included.
        assert again.stop() == 0, again.log()
    assert_head(rig, 2, PRIMARY)
    assert_head(rig, 3, PRIMARY)
    assert rig.run("pgrep -u lab1,lab2 -l", check=False).stdout == ""
    assert rig.run("ls -A /run/seatd-lease").stdout == ""


def test_a_record_naming_a_reused_pid_is_not_adopted(rig):
    """The record names another process of the seat's user at the X server's
    pid: not adopted, not signalled, and the seat starts afresh."""
    m = seat_map("x11", [dict(name="s1", outputs="Virtual-2", user="lab1",
                              colour=SEAT_COLOURS[0])])
    sup = Supervisor(rig, m)
    sup.start()
    sup.wait_state("s1", "running")
    x, session = sup.xserver_pid("s1"), sup.session_pid("s1")
    rig.run("kill -9 %d" % sup.pid())
    rig.run("kill -9 %d %d" % (x, session))
    other = rig.spawn("exec su -s /bin/sh lab1 -c 'exec sleep 1000'")
    try:
        rig.wait_until("pgrep -u lab1 -x sleep >/dev/null", timeout=10)
        stranger = int(rig.run("pgrep -u lab1 -x sleep").stdout.split()[0])
        rig.run("sed -i 's/^xserver %d /xserver %d /' %s/s1/pids" % (x, stranger, RUNTIME_DIR))
        with Supervisor(rig, m) as again:
            again.wait_log(r"seat s1: not adopted from an earlier run: its X server "
                           r"\(pid %d\) is gone, or is not the process that was started"
                           % stranger)
            again.wait_state("s1", "running")
            assert again.xserver_pid("s1") not in (x, stranger)
            assert rig.run("kill -0 %d" % stranger, check=False).status == 0, \
                "the stranger was signalled"
            assert_head(rig, 2, SEAT_COLOURS[0])
    finally:
        other.stop()


def test_next_run_stops_what_a_killed_run_left(rig):
    # A seat whose settings changed while no daemon ran is not adopted: the
    # next run stops what the record names, even a session ignoring SIGTERM.
    stubborn = ("/bin/sh -c \"trap '' TERM; xsetroot -solid '%s'; "
                "while :; do sleep 1; done\"" % SEAT_COLOURS[0])
    m = seat_map("x11", [dict(name="s1", outputs="Virtual-2", user="lab1", session=stubborn)])
    first = Supervisor(rig, m)
    first.start()
    first.wait_state("s1", "running")
    session = first.session_pid("s1")
    rig.run("kill -9 %d" % first.pid())
    assert rig.run("kill -0 %d" % session, check=False).status == 0, "the session did not survive"
    m = m.replace("sleep 1;", "sleep 2;")
    with Supervisor(rig, m) as again:
        again.wait_log(r"seat s1: not adopted from an earlier run: its settings changed")
        again.wait_log(r"stopping the session of seat s1 \(pid %d\) left by an earlier run"
                       % session)
        again.wait_log(r"ignored SIGTERM; killing it")
        assert rig.run("kill -0 %d" % session, check=False).status != 0
        again.wait_state("s1", "running")
        assert_head(rig, 2, SEAT_COLOURS[0])


def test_primary_restart_stops_and_brings_back_every_seat(rig):
    # Last in the module: it replaces the primary X server.
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        old = (sup.xserver_pid("s1"), sup.xserver_pid("s2"))
        rig.xorg_server.stop()
        sup.wait_log(r"lost the x11 lessor")
        sup.wait_state("s1", "waiting")
        sup.wait_state("s2", "waiting")
        left = rig.run("pgrep -u lab1,lab2 -l", check=False).stdout
        assert left == "", "seat processes left while the primary is away: %s" % left
        rig.start_xorg()
        rig.run("xsetroot -solid '%s'" % PRIMARY, env=rig.x_env())
        sup.wait_state("s1", "running", timeout=90)
        sup.wait_state("s2", "running", timeout=90)
        assert (sup.xserver_pid("s1"), sup.xserver_pid("s2")) != old
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1])
        assert_head(rig, 1, PRIMARY)
