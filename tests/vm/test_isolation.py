"""Nobody gets in, on the rig: a seat's user cannot read
another seat's input devices (nor the primary's), cannot use the control
socket, cannot write into runtime_dir or another seat's directory, and the
seat's X server and session start with no descriptor and no environment
but the ones seatd-lease(8) lists.

What other modules show already: another seat's display (test_seats
test_cookie_admits_only_the_seat, test_squat), links and planted files in
runtime_dir (test_security), a session that leaves its process group
(test_containment), the X server sharing no open file with the daemon but
its lease (test_seats)."""

import re

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, Supervisor, event_node,
                   seat_map, setup_users, two_input_seats)

# Tries to open each path read-only; prints "PATH ok" or "PATH ERRNO".
OPEN = ("import os, sys\n"
        "for p in sys.argv[1:]:\n"
        "    try:\n"
        "        os.close(os.open(p, os.O_RDONLY)); print(p, 'ok')\n"
        "    except OSError as e:\n"
        "        print(p, e.errno)\n")
# Tries to create a file in each directory; the same answers.
CREATE = ("import os, sys\n"
          "for d in sys.argv[1:]:\n"
          "    try:\n"
          "        os.close(os.open(d + '/planted', os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))\n"
          "        print(d, 'ok')\n"
          "    except OSError as e:\n"
          "        print(d, e.errno)\n")
# Connects to the control socket and asks for status.
CONNECT = ("import socket, sys\n"
           "s = socket.socket(socket.AF_UNIX)\n"
           "try:\n"
           "    s.connect(sys.argv[1])\n"
           "except OSError as e:\n"
           "    print('errno', e.errno); sys.exit()\n"
           "try:\n"
           "    s.sendall(b'status\\n')\n"
           "except OSError:\n"
           "    pass  # refused and closed before the request was read\n"
           "print('reply', s.recv(4096).decode().split('\\n')[0])\n")

# The X server, wrapped: the descriptors it has when it is started, as
# `ls -l` shows them, then the real one. dash keeps the script itself open
# (on a descriptor of 10 or more, close-on-exec): that one is the wrapper's.
# The listing runs in a subshell, whose redirection the wrapper never sees
# (dash would otherwise keep its 1 and 2 on 11 and 12 meanwhile).
XWRAP = "/tmp/xwrap"
XWRAP_SCRIPT = """#!/bin/sh
(ls -l /proc/$$/fd > /tmp/xfds 2>&1)
exec /usr/lib/xorg/Xorg "$@"
"""

# What seatd-lease(8) says the seat's processes get, and nothing else.
XSERVER_ENV = {"HOME", "USER", "LOGNAME", "SHELL", "PATH", "XDG_RUNTIME_DIR"}
SESSION_ENV = XSERVER_ENV | {"DISPLAY", "XAUTHORITY"}


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2"])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    guest.write_file(XWRAP, XWRAP_SCRIPT.encode(), mode=0o755)
    yield guest


def as_user(rig, user, script, *args):
    """Runs python3 script with args as user (its own groups, no others);
    {arg: answer} from its "ARG ANSWER" lines."""
    rig.write_file("/tmp/isolation.py", script.encode())
    out = rig.run("setpriv --reuid=%s --regid=%s --init-groups /usr/bin/python3 "
                  "/tmp/isolation.py %s" % (user, user, " ".join(args))).stdout
    return dict(line.rsplit(" ", 1) for line in out.splitlines())


def sleeping_seat(**extra):
    """s1 on the second head, whose session only sleeps: a program that opens
    nothing, so what it holds is what it was given."""
    return dict(dict(name="s1", outputs="Virtual-2", user="lab1",
                     session="/bin/sleep 100000"), **extra)


def fds(text):
    """fd -> target from `ls -l /proc/PID/fd` output."""
    return {int(m.group(1)): m.group(2)
            for m in re.finditer(r" (\d+) -> (.*)$", text, re.M)}


def environ(rig, pid):
    raw = rig.run("tr '\\0' '\\n' < /proc/%d/environ" % pid).stdout
    return dict(line.split("=", 1) for line in raw.splitlines() if "=" in line)


def test_a_seat_user_cannot_read_another_seats_input_devices(rig):
    with Supervisor(rig, two_input_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        nodes = {(head, kind): event_node(rig, path(head))
                 for head in (1, 2, 3)
                 for kind, path in (("kbd", rigmod.keyboard_id_path),
                                    ("ptr", rigmod.pointer_id_path))}
        for user, own, other in (("lab1", 2, 3), ("lab2", 3, 2)):
            got = as_user(rig, user, OPEN, *nodes.values())
            for (head, kind), node in nodes.items():
                # Its own seat's devices, yes (it owns them: the check can
                # succeed); the other seat's and the primary's, EACCES.
                want = "ok" if head == own else str(13)
                assert got[node] == want, "%s opening %s's %s (%s): %s, want %s" % (
                    user, "head %d" % head, kind, node, got[node], want)


def test_a_seat_user_cannot_write_into_runtime_dir_or_another_seats_files(rig):
    seats = seat_map("x11", [sleeping_seat(),
                             dict(name="s2", outputs="Virtual-3", user="lab2",
                                  session="/bin/sleep 100000")])
    with Supervisor(rig, seats) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        s2 = RUNTIME_DIR + "/s2"
        dirs = [RUNTIME_DIR, RUNTIME_DIR + "/s1", s2, s2 + "/xdg", s2 + "/tmp", s2 + "/log"]
        got = as_user(rig, "lab1", CREATE, *dirs)
        assert got == {d: "13" for d in dirs}, got
        # Its own writable places, yes (the check can succeed).
        own = as_user(rig, "lab1", CREATE, RUNTIME_DIR + "/s1/xdg")
        assert own == {RUNTIME_DIR + "/s1/xdg": "ok"}, own
        rig.run("rm -f %s/s1/xdg/planted" % RUNTIME_DIR)
        # Nor read the other seat's cookie or configuration.
        files = [s2 + "/xauthority", s2 + "/xorg.conf"]
        assert rig.run("ls %s" % " ".join(files), check=False).status == 0
        got = as_user(rig, "lab1", OPEN, *files)
        assert got == {f: "13" for f in files}, got
        assert rig.run("ls %s/planted %s/*/planted 2>/dev/null || true" % (
            RUNTIME_DIR, RUNTIME_DIR)).stdout == ""


def test_a_seat_user_cannot_use_the_control_socket(rig):
    socket_path = RUNTIME_DIR + "/control"
    with Supervisor(rig, seat_map("x11", [sleeping_seat()])) as sup:
        sup.wait_state("s1", "running")
        got = as_user(rig, "lab1", CONNECT, socket_path)
        assert got == {"errno": "13"}, got
        denied = rig.run("setpriv --reuid=lab1 --regid=lab1 --init-groups %s stop s1" % BIN,
                         check=False)
        assert denied.status == 4, (denied.status, denied.stderr)
        # Were the socket's mode ever wrong, the daemon refuses the peer
        # all the same: it checks who connected.
        rig.run("chmod 0666 %s" % socket_path)
        got = as_user(rig, "lab1", CONNECT, socket_path)
        assert got == {"reply": "4"}, got
        denied = rig.run("setpriv --reuid=lab1 --regid=lab1 --init-groups %s stop s1" % BIN,
                         check=False)
        assert denied.status == 4 and "permission denied" in denied.stderr, \
            (denied.status, denied.stderr)
        sup.wait_log(r"control: refused uid %s" % rig.run("id -u lab1").stdout.strip())
        assert "s1" in rig.run("%s status" % BIN).stdout
        sup.wait_state("s1", "running")


def test_the_x_server_and_session_get_only_their_descriptors(rig):
    rig.run("rm -f /tmp/xfds")
    seats = seat_map("x11", [sleeping_seat()], general="xserver = %s\n" % XWRAP)
    with Supervisor(rig, seats) as sup:
        sup.wait_state("s1", "running")
        listing = rig.run("cat /tmp/xfds").stdout
        got = {fd: target for fd, target in fds(listing).items() if target != XWRAP}
        # 0 from /dev/null, 1 and 2 the seat's log, 3 the lease, 4 the
        # ready pipe (seatd-lease(8)); nothing else.
        assert sorted(got) == [0, 1, 2, 3, 4], listing
        assert got[0] == "/dev/null" and got[1] == got[2], listing
        assert got[1].endswith("/s1/Xorg.stderr"), listing
        assert got[3] == "/dev/dri/card0" and got[4].startswith("pipe:["), listing
        session = sup.session_pid("s1")
        out = rig.run("ls -l /proc/%d/fd" % session).stdout
        held = fds(out)
        assert sorted(held) == [0, 1, 2], out
        assert held[0] == "/dev/null" and held[1] == held[2], out
        assert held[1].endswith("/s1/session.log"), out


def test_the_x_server_and_session_get_only_their_environment(rig):
    seats = seat_map("x11", [sleeping_seat()])
    sup = Supervisor(rig, seats, start=False)
    rig.run("mkdir -p /etc/seatd-lease")
    rig.write_file(CONFIG, seats.encode())
    # What the daemon was started with must not reach the seats.
    planted = {"SEATD_LEASE_PLANTED": "from-the-daemon", "LD_LIBRARY_PATH": "/tmp/planted",
               "XAUTHORITY": "/tmp/planted-cookie", "DISPLAY": ":99"}
    sup.proc = rig.spawn("exec %s -c %s %s" % (BIN, CONFIG, sup.args), name="seatd-lease",
                         env=planted)
    try:
        sup.wait_state("s1", "running")
        daemon = environ(rig, sup.pid())
        assert daemon["SEATD_LEASE_PLANTED"] == "from-the-daemon", daemon
        uid_home = rig.run("getent passwd lab1").stdout.strip().split(":")[5]
        x = environ(rig, sup.xserver_pid("s1"))
        assert set(x) == XSERVER_ENV, x
        assert x["USER"] == x["LOGNAME"] == "lab1" and x["HOME"] == uid_home, x
        assert x["XDG_RUNTIME_DIR"] == RUNTIME_DIR + "/s1/xdg", x
        session = environ(rig, sup.session_pid("s1"))
        assert set(session) == SESSION_ENV, session
        assert session["DISPLAY"] == ":10", session
        assert session["XAUTHORITY"] == RUNTIME_DIR + "/s1/xauthority", session
        assert {k: session[k] for k in XSERVER_ENV} == x, (session, x)
    finally:
        sup.stop()
