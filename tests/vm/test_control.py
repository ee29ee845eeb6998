"""The running daemon from the outside, on the rig: the control socket
(status, start, stop, restart, reload) and its permissions, SIGHUP, and the
sd_notify messages a Type=notify unit gets."""

import os
import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, assert_head,
                   event_node, seat_map, setup_users, status_json)

HERE = os.path.dirname(os.path.abspath(__file__))
SOCKET = RUNTIME_DIR + "/control"


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2", "lab3"])
    guest.run("mkdir -p %s" % os.path.dirname(CONFIG))
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


def seat_dicts(*specs):
    """specs: (name, head, user, colour); head's keyboard is the seat's."""
    return [dict(name=n, outputs="Virtual-%d" % h, user=u, colour=c,
                 extra="inputs = path:%s\n" % rigmod.keyboard_id_path(h))
            for n, h, u, c in specs]


def seats(*specs, general=""):
    return seat_map("x11", seat_dicts(*specs), general=general)


S1 = ("s1", 2, "lab1", SEAT_COLOURS[0])
S2 = ("s2", 3, "lab2", SEAT_COLOURS[1])


def ctl(rig, args, user=None):
    """seatd-lease ARGS as root (or as user); a Result."""
    cmd = "%s -c %s %s" % (BIN, CONFIG, args)
    if user is not None:
        cmd = "su -s /bin/sh %s -c '%s'" % (user, cmd)
    return rig.run(cmd, check=False)


def test_status_shows_every_seat(rig):
    with Supervisor(rig, seats(S1, S2)) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        st = status_json(rig)
        assert sorted(st) == ["s1", "s2"]
        s1 = st["s1"]
        assert s1["state"] == "running" and s1["user"] == "lab1"
        assert s1["xserver_pid"] == sup.xserver_pid("s1")
        assert s1["session_pid"] == sup.session_pid("s1")
        assert s1["display"].startswith(":") and s1["lease"] is not None
        assert [o["name"] for o in s1["outputs"]] == ["Virtual-2"]
        assert s1["card"] == "/dev/dri/card0"
        assert isinstance(s1["outputs"][0]["crtc"], int)
        assert s1["inputs"] == [event_node(rig, rigmod.keyboard_id_path(2))]
        assert s1["restarts"] == 0 and s1["last_error"] is None
        assert abs(s1["since"] - int(rig.run("date +%s").stdout)) < 120
        # The table: a heading and one line per seat, with the same facts.
        table = ctl(rig, "status")
        assert table.status == 0, table.stderr
        lines = table.stdout.splitlines()
        assert lines[0].split()[:4] == ["SEAT", "STATE", "CARD", "OUTPUTS(CRTC)"], table.stdout
        row = lines[1].split()
        assert row[:3] == ["s1", "running", "card0"] and row[3].startswith("Virtual-2(")
        assert str(sup.xserver_pid("s1")) in row and "lab1" in row, table.stdout
        assert lines[2].split()[:2] == ["s2", "running"]
        # The socket is root's alone.
        assert rig.run("stat -c '%%U %%G %%a' %s" % SOCKET).stdout.strip() == "root root 600"
        denied = ctl(rig, "status", user="lab1")
        assert denied.status == 4 and "permission denied" in denied.stderr, denied.stderr
        assert ctl(rig, "status --yaml").status == 2
        # A client that says nothing is cut off; the others are served meanwhile.
        silent = rig.spawn("exec python3 -c \"import socket, time; s = socket.socket("
                           "socket.AF_UNIX); s.connect('%s'); t = time.monotonic(); "
                           "d = s.recv(64); print('closed after', round(time.monotonic() - t), "
                           "repr(d))\"" % SOCKET, name="silent")
        time.sleep(1)
        assert ctl(rig, "status").status == 0
        assert silent.wait(20) == 0
        assert "closed after 5 b''" in silent.output(), silent.output()
        sup.wait_log(r"control: a client sent no request in 5000 ms; closed")
    assert rig.run("ls -A %s" % RUNTIME_DIR).stdout == ""


def test_start_stop_restart_one_seat(rig):
    with Supervisor(rig, seats(S1, S2)) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        other = sup.xserver_pid("s2")
        r = ctl(rig, "stop s1")
        assert r.status == 0 and "seat s1: running -> stopping" in r.stdout, r.stdout + r.stderr
        sup.wait_state("s1", "stopped")
        assert_head(rig, 2, PRIMARY)
        assert status_json(rig)["s1"]["state"] == "stopped"
        assert ctl(rig, "stop s1").stdout == "seat s1 is already stopped\n"
        assert ctl(rig, "start s1").status == 0
        sup.wait_state("s1", "running")
        assert_head(rig, 2, SEAT_COLOURS[0])
        before = sup.xserver_pid("s1")
        assert ctl(rig, "restart s1").status == 0
        sup.wait_state("s1", "running", after=before)
        assert sup.xserver_pid("s1") != before
        assert_head(rig, 2, SEAT_COLOURS[0])
        # The other seat never noticed.
        assert sup.xserver_pid("s2") == other
        nope = ctl(rig, "stop s9")
        assert nope.status == 5, nope.stderr
        assert "no seat s9 in %s; its seats: s1 s2" % CONFIG in nope.stderr, nope.stderr
        # A seat verb without its one NAME is a usage error; `stop` alone
        # stops every seat (test_inputs.py).
        for words in ("start", "restart", "stop s1 s2"):
            assert ctl(rig, words).status == 2, words


def test_reload_keeps_unchanged_seats_running(rig):
    with Supervisor(rig, seats(S1, S2)) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        s1 = sup.xserver_pid("s1")
        # s2 goes, s3 takes its head; s1 is written differently but the same.
        s3 = ("s3", 3, "lab3", SEAT_COLOURS[2])
        text = seats(S1, s3).replace("[seat:s1]", "# the same seat\n[seat:s1]")
        rig.write_file(CONFIG, text.encode())
        r = ctl(rig, "reload")
        assert r.status == 0, r.stderr
        assert "seat s2: removed; stopping it" in r.stdout
        assert "seat s3: new; starting it" in r.stdout
        assert "1 started, 1 stopped, 0 restarted, 1 unchanged" in r.stdout, r.stdout
        sup.wait_state("s3", "running")
        assert_head(rig, 3, SEAT_COLOURS[2])
        assert sup.xserver_pid("s1") == s1
        assert sorted(status_json(rig)) == ["s1", "s3"]
        assert rig.run("ls %s" % RUNTIME_DIR).stdout.split() == ["control", "handout", "s1", "s3"]
        # A changed seat restarts on its new settings; SIGHUP does the same.
        changed = ("s1", 2, "lab1", SEAT_COLOURS[2])
        rig.write_file(CONFIG, seats(changed, s3).encode())
        rig.run("kill -HUP %d" % sup.pid())
        sup.wait_log(r"reload: seat s1: changed; restarting it")
        sup.wait_state("s1", "running", after=s1)
        assert_head(rig, 2, SEAT_COLOURS[2])
        assert status_json(rig)["s1"]["restarts"] == 0


def test_an_invalid_map_or_general_change_changes_nothing(rig):
    with Supervisor(rig, seats(S1, S2)) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        pids = (sup.xserver_pid("s1"), sup.xserver_pid("s2"))
        good = seats(S1, S2)
        rig.write_file(CONFIG, (good + "\n[seat:s4]\noutputs = Virtual-9\nuser = nobody-here\n"
                                "sesion = /bin/true\n").encode())
        r = ctl(rig, "reload")
        assert r.status == 1
        assert re.search(r"%s:\d+: error: unknown key 'sesion'" % CONFIG, r.stderr), r.stderr
        assert re.search(r"%s:\d+: error: user nobody-here does not exist" % CONFIG, r.stderr)
        assert "errors; nothing changed" in r.stderr, r.stderr
        sup.wait_log(r"reload: .*unknown key 'sesion'")
        # The same on SIGHUP: logged, nothing changed.
        rig.run("kill -HUP %d" % sup.pid())
        time.sleep(1)
        assert len(re.findall(r"unknown key 'sesion'", sup.log())) == 2
        # [general] decides the lessor and the socket: a restart's business.
        rig.write_file(CONFIG, good.replace("lessor = x11", "lessor = drm\ncard = /dev/dri/card0")
                       .encode())
        r = ctl(rig, "reload")
        assert r.status == 1
        assert "lessor in [general] changed; that takes a restart of seatd-lease" in r.stderr
        assert (sup.xserver_pid("s1"), sup.xserver_pid("s2")) == pids
        assert sorted(status_json(rig)) == ["s1", "s2"]
        assert all(s["state"] == "running" for s in status_json(rig).values())


def test_control_group_and_refusals(rig):
    rig.run("getent group labadm >/dev/null || groupadd labadm; usermod -aG labadm lab2")
    with Supervisor(rig, seats(S1, general="control_group = labadm")) as sup:
        sup.wait_state("s1", "running")
        assert rig.run("stat -c '%%U %%G %%a' %s" % SOCKET).stdout.strip() == "root labadm 660"
        ok = ctl(rig, "status", user="lab2")
        assert ok.status == 0 and "s1" in ok.stdout, ok.stderr
        no = ctl(rig, "stop s1", user="lab1")
        assert no.status == 4 and "permission denied" in no.stderr, no.stderr
        # Were the socket's mode ever wrong, the daemon still says no.
        rig.run("chmod 666 %s" % SOCKET)
        no = ctl(rig, "stop s1", user="lab1")
        assert no.status == 4, no.stderr
        uid = rig.run("id -u lab1").stdout.strip()
        line = sup.wait_log(r"control: refused uid %s" % uid)
        assert "only root and group labadm may use %s" % SOCKET in line, line
        assert status_json(rig)["s1"]["state"] == "running"
        # One daemon at a time: a second run is turned away, the first goes on.
        second = rig.run("%s -c %s run" % (BIN, CONFIG), check=False)
        assert second.status == 1
        assert "another seatd-lease run is already running" in second.stderr, second.stderr
        assert status_json(rig)["s1"]["state"] == "running"
    gone = ctl(rig, "status")
    assert gone.status == 3 and "no seatd-lease is running" in gone.stderr, gone.stderr
    # A client that cannot read the map looked in the default runtime_dir: it says so.
    rig.run("chmod 600 %s" % CONFIG)
    lost = ctl(rig, "status", user="lab2")
    assert lost.status == 3, lost.stderr
    assert ("looked in the default runtime_dir /run/seatd-lease, since the seat map gave none: "
            "%s: cannot read the seat map: Permission denied" % CONFIG) in lost.stderr, lost.stderr


def test_sd_notify_ready_status_stopping(rig):
    # A stand-in for systemd's notify socket: every datagram, one per line.
    notify = rig.spawn("exec python3 -u %s/notify-listen.py /run/rig/notify.sock" % HERE,
                       name="notify")
    rig.wait_until("[ -S /run/rig/notify.sock ]")
    waiting = ("s2", 3, "lab2", SEAT_COLOURS[1])
    text = seats(S1, waiting).replace("outputs = Virtual-3", "outputs = Virtual-7")
    sup = Supervisor(rig, text, start=False)
    sup.rig.write_file(CONFIG, text.encode())
    sup.proc = rig.spawn("NOTIFY_SOCKET=/run/rig/notify.sock exec %s -c %s -v run"
                         % (BIN, CONFIG), name="seatd-lease")
    try:
        sup.wait_state("s1", "running")
        rig.wait_until("grep -q '^STATUS=1/2 seats running, s2 waiting' %s" % notify.log)
        out = notify.output()
        assert "READY=1" in out.splitlines(), out
        assert re.search(r"^STATUS=1/2 seats running, s2 waiting: .*Virtual-7", out, re.M), out
    finally:
        sup.stop()
        notify.stop()
    assert "STOPPING=1" in notify.output().splitlines()


def test_a_seat_inserted_at_the_top_keeps_the_others_running(rig):
    # Automatic displays: s1 :10, s2 :11. A seat inserted above them (on an
    # output this card does not have: it waits) takes a number of its own,
    # and the others keep their displays and their X servers.
    with Supervisor(rig, seats(S1, S2)) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        before = status_json(rig)
        assert (before["s1"]["display"], before["s2"]["display"]) == (":10", ":11")
        pids = sup.xserver_pid("s1"), sup.xserver_pid("s2")
        top = dict(name="s0", outputs="Virtual-9", user="lab3", colour=SEAT_COLOURS[2])
        rig.write_file(CONFIG, seat_map("x11", [top] + seat_dicts(S1, S2)).encode())
        r = ctl(rig, "reload")
        assert r.status == 0, r.stderr
        assert "1 started, 0 stopped, 0 restarted, 2 unchanged" in r.stdout, r.stdout
        after = status_json(rig)
        assert (after["s1"]["display"], after["s2"]["display"]) == (":10", ":11"), after
        assert after["s0"]["display"] == ":12", after
        assert (sup.xserver_pid("s1"), sup.xserver_pid("s2")) == pids
        assert sup.stop() == 0


def test_reloads_in_quick_succession(rig):
    # s2 is removed, then back before it has finished stopping: its stubborn
    # session takes a while to die, and the second map must win.
    stubborn = ("/bin/sh -c \"trap 'sleep 2; exit 0' TERM; xsetroot -solid '%s'; "
                "while :; do sleep 0.2; done\"" % SEAT_COLOURS[1])
    s2 = dict(name="s2", outputs="Virtual-3", user="lab2", session=stubborn)
    s1 = dict(name="s1", outputs="Virtual-2", user="lab1", colour=SEAT_COLOURS[0])
    both = seat_map("x11", [s1, s2])
    with Supervisor(rig, both) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        s1_pid, s2_pid = sup.xserver_pid("s1"), sup.xserver_pid("s2")
        rig.write_file(CONFIG, seat_map("x11", [s1]).encode())
        assert "seat s2: removed; stopping it" in ctl(rig, "reload").stdout
        rig.write_file(CONFIG, both.encode())
        r = ctl(rig, "reload")
        assert r.status == 0, r.stderr
        assert "seat s2: in the map again; starting it once its last run has stopped" \
            in r.stdout, r.stdout
        assert "1 started, 0 stopped, 0 restarted, 1 unchanged" in r.stdout, r.stdout
        # The old s2 stops, and s2 comes back on the map in force.
        sup.wait_state("s2", "running", after=s2_pid, timeout=60)
        assert_head(rig, 3, SEAT_COLOURS[1])
        assert sup.xserver_pid("s1") == s1_pid
        assert sorted(status_json(rig)) == ["s1", "s2"]
        # And a third reload, of the same map, changes nothing at all.
        s2_new = sup.xserver_pid("s2")
        assert "0 restarted, 2 unchanged" in ctl(rig, "reload").stdout
        assert (sup.xserver_pid("s1"), sup.xserver_pid("s2")) == (s1_pid, s2_new)
        assert sup.stop() == 0
