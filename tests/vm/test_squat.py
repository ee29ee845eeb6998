"""A seat's user against the rest of the machine and the other seats, on
the rig.

(d) Everything a seat's user can write in runtime_dir (its XDG_RUNTIME_DIR,
its logs, its processes' output) lived on /run, the tmpfs the whole system
needs (in the rig, /etc's and /var's overlays too): lab1 could fill it.

(e) A seat's display :N is found by names anyone can take first: the lock
file /tmp/.XN-lock, the file /tmp/.X11-unix/XN and the abstract socket
@/tmp/.X11-unix/XN. lab2 takes lab1's display :10 in each way before lab1's
seat starts: lab1's seat must come up all the same, and lab1's clients must
reach lab1's X server, never lab2's socket.

One guest for the module; every test leaves no seat process, no squatter
and nothing mounted behind. The last test locks ptrace down for good
(kernel.yama.ptrace_scope=3): it must stay last."""

import contextlib
import re
import shlex

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, assert_head,
                   seat_map, setup_users, status_json)

SEAT_DIR = RUNTIME_DIR + "/s1"
XDG = SEAT_DIR + "/xdg"
CAP = 64 << 20  # seat_runtime_size's default
DISPLAY = ":10"  # s1's, the first display seatd-lease gives
SOCKET = "/tmp/.X11-unix/X10"
COLOUR = SEAT_COLOURS[0]

# lab2's squatter on the abstract name: "listen" accepts and reports what it
# is sent, "bound" only holds the name.
SQUATTER = r'''
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0/tmp/.X11-unix/X10")
if sys.argv[1] == "listen":
    s.listen(5)
print("squatting", sys.argv[1], flush=True)
while True:
    try:
        c, _ = s.accept() if sys.argv[1] == "listen" else (None, time.sleep(1))
    except OSError as e:
        print("accept:", e, flush=True)
        time.sleep(1)
        continue
    if c is not None:
        print("GOT A CONNECTION:", c.recv(4096)[:64], flush=True)
        c.close()
'''


# kernel.yama.ptrace_scope=3 (below) cannot be set back: the guest goes with
# the module, which therefore runs last of those on the shared guest.
SPOILS_GUEST = True


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2"])
    guest.run("mkdir -p /etc/seatd-lease")
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    guest.write_file("/tmp/squatter.py", SQUATTER.encode(), mode=0o755)
    yield guest


def seat(session=None):
    s = dict(name="s1", outputs="Virtual-2", user="lab1", colour=COLOUR)
    if session is not None:
        s["session"] = session
    return seat_map("x11", [s])


def as_lab(rig, user, command, check=False, timeout=30):
    return rig.run("su -s /bin/sh %s -c %s" % (user, shlex.quote(command)), check=check,
                   timeout=timeout)


def seat_mounts(rig):
    """Lines of /proc/mounts under runtime_dir."""
    return [line for line in rig.run("cat /proc/mounts").stdout.splitlines()
            if " %s/" % RUNTIME_DIR in line]


@contextlib.contextmanager
def supervisor(rig, text, start=True):
    """A Supervisor that is gone afterwards, with every process of lab1 and
    lab2 and whatever lab2 left in /tmp."""
    sup = Supervisor(rig, text, start=False)
    try:
        if start:
            sup.start()
        yield sup
    finally:
        try:
            sup.stop(timeout=30)
        except rigmod.RigTimeout:
            rig.run("pkill -KILL -f '^%s -c' || true" % BIN)
        rig.run("pkill -KILL -u lab1 || true; pkill -KILL -u lab2 || true")
        for line in seat_mounts(rig):
            rig.run("umount -l %s || true" % line.split()[1])
        rig.run("rm -rf %s/* /tmp/.X10-lock /tmp/.tX10-lock %s" % (RUNTIME_DIR, SOCKET))


def run_available(rig):
    return int(rig.run("df --output=avail -B1 /run | tail -1").stdout)


def file_size(rig, path):
    return int(rig.run("stat -c %%s %s" % path).stdout)


def test_a_seat_user_cannot_fill_run(rig):
    # The session first writes 1.5 times the cap to its output (session.log).
    flood = "/bin/sh -c \"head -c %d /dev/zero; xsetroot -solid '%s'; exec sleep 100000\"" % (
        CAP * 3 // 2, COLOUR)
    with supervisor(rig, seat(flood)) as sup:
        sup.wait_state("s1", "running")
        assert_head(rig, 2, COLOUR)
        assert file_size(rig, SEAT_DIR + "/session.log") <= CAP
        before = run_available(rig)
        dd = as_lab(rig, "lab1", "dd if=/dev/zero of=%s/fill bs=1M count=%d 2>&1"
                    % (XDG, CAP * 3 // 2 >> 20), timeout=120)
        assert dd.status != 0 and "No space left on device" in dd.stdout, dd.stdout
        assert file_size(rig, XDG + "/fill") <= CAP
        # /run kept its room: what lab1 wrote went to the seat's own tmpfs.
        assert before - run_available(rig) < 4 << 20, rig.run("df /run").stdout
        assert rig.run("stat -f -c %%T %s" % SEAT_DIR).stdout.strip() == "tmpfs"
        mounts = seat_mounts(rig)
        assert len(mounts) == 1 and re.match(
            r"tmpfs %s tmpfs rw,nosuid,nodev,noexec,.*size=65536k" % SEAT_DIR,
            mounts[0]), mounts
        # The seat still stops cleanly, and its file system goes with it.
        rig.run("%s -c %s stop s1" % (BIN, CONFIG))
        sup.wait_state("s1", "stopped")
        assert seat_mounts(rig) == []
        # A start mounts it anew, empty.
        rig.run("%s -c %s start s1" % (BIN, CONFIG))
        sup.wait_state("s1", "running")
        assert len(seat_mounts(rig)) == 1
        assert rig.run("ls -A %s" % XDG).stdout == ""
        assert sup.stop() == 0
        assert seat_mounts(rig) == []
        assert rig.run("ls -A %s" % RUNTIME_DIR).stdout == ""


def squat(rig, how):
    """lab2 takes display :10 by how; the squatter's process, if any."""
    if how == "lock":
        as_lab(rig, "lab2", "printf '%10d\\n' 1 >/tmp/.X10-lock; touch /tmp/.tX10-lock",
               check=True)
    elif how == "socket-file":
        as_lab(rig, "lab2", "touch %s" % SOCKET, check=True)
    elif how == "socket-dir":
        as_lab(rig, "lab2", "mkdir -p %s/in/it && ln -s /etc %s/in/etc" % (SOCKET, SOCKET),
               check=True)
    else:
        proc = rig.spawn("exec su -s /bin/sh lab2 -c 'exec python3 -u /tmp/squatter.py %s'"
                         % how.split("-")[1], name="squatter")
        rig.wait_until("grep -q '@/tmp/.X11-unix/X10$' /proc/net/unix")
        return proc
    return None


@pytest.mark.parametrize("how", ["lock", "socket-file", "socket-dir", "abstract-listen",
                                 "abstract-bound"])
def test_a_display_taken_first_still_gets_its_x_server(rig, how):
    squatter = squat(rig, how)
    try:
        with supervisor(rig, seat()) as sup:
            sup.wait_state("s1", "running", timeout=90)
            assert_head(rig, 2, COLOUR)
            # lab1's clients reach lab1's X server (the session painted; so
            # does a client started now), never lab2's socket.
            xdpyinfo = as_lab(rig, "lab1", "DISPLAY=%s XAUTHORITY=%s/xauthority xdpyinfo"
                              % (DISPLAY, SEAT_DIR))
            assert xdpyinfo.status == 0, xdpyinfo.stderr
            if squatter is not None:
                assert "GOT A CONNECTION" not in squatter.output(), squatter.output()
            log = sup.log()
            if how.startswith("socket"):
                assert re.search(r"seat s1: removing %s, a (file|directory) of lab2's" % SOCKET,
                                 log), log
            if how.startswith("abstract"):
                assert re.search(r"seat s1: took display :10's abstract socket "
                                 r"@/tmp/.X11-unix/X10 from pid \d+ \(lab2: python3\)", log), log
            # The names stay root's while the seat runs: lab2 gets neither back.
            link = rig.run("stat -c '%%U %%F' %s; readlink %s" % (SOCKET, SOCKET)).stdout
            assert link == "root symbolic link\n%s/tmp/.X11-unix/X10\n" % SEAT_DIR, link
            again = as_lab(rig, "lab2", "rm -f %s; touch %s" % (SOCKET, SOCKET))
            assert again.status != 0
            bind = as_lab(rig, "lab2", "python3 -c 'import socket; socket.socket(socket.AF_UNIX)"
                          ".bind(\"\\0/tmp/.X11-unix/X10\")'")
            assert "Address already in use" in bind.stderr, bind.stderr
            # Nor while it restarts, however hard lab2 tries.
            loop = rig.spawn("exec su -s /bin/sh lab2 -c 'while :; do rm -f %s; touch %s; "
                             "mkdir %s; done 2>/dev/null'" % (SOCKET, SOCKET, SOCKET),
                             name="squat-loop")
            x = sup.xserver_pid("s1")
            rig.run("%s -c %s restart s1" % (BIN, CONFIG))
            sup.wait_state("s1", "running", after=x, timeout=90)
            assert_head(rig, 2, COLOUR)
            loop.stop()
            if squatter is not None:
                assert "GOT A CONNECTION" not in squatter.output(), squatter.output()
        # The daemon gone, so are its names for :10.
        assert rig.run("test -e %s || test -L %s" % (SOCKET, SOCKET), check=False).status != 0
    finally:
        if squatter is not None:
            squatter.stop()


def test_a_display_that_cannot_be_taken_back_is_named(rig):
    # Last: with ptrace locked down (for good), the daemon cannot take the
    # abstract socket from lab2's squatter; the seat must not start (lab1's
    # clients would reach lab2), and its error says who keeps it.
    rig.run("sysctl -q kernel.yama.ptrace_scope=3")
    squatter = squat(rig, "abstract-listen")
    try:
        with supervisor(rig, seat()) as sup:
            sup.wait_log(r"seat s1: .*display :10 is taken", timeout=60)
            s1 = status_json(rig)["s1"]
            assert s1["state"] != "running" and "running" not in re.findall(
                r"seat s1: \S+ -> (\S+?):?(?: |$)", sup.log(), re.M), sup.log()
            assert re.search(r"display :10 is taken: its abstract socket @/tmp/.X11-unix/X10 is "
                             r"bound by pid \d+ \(lab2: python3\)", s1["last_error"]), s1
            assert "GOT A CONNECTION" not in squatter.output(), squatter.output()
    finally:
        squatter.stop()
