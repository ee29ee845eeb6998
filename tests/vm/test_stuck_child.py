"""A seat's child that hangs before its exec does not hang the daemon: until
it execs, the child looks up its user's groups (NSS) and enters the user's
home, and a home on a dead NFS server or automount hangs in chdir. Here the
home is on a FUSE mount whose server never answers (every lookup waits for
it), which is what such a home does."""

import time

import pytest

from seatd import BIN, CONFIG, PRIMARY, SEAT_COLOURS, Supervisor, assert_head, seat_map, setup_users

HANG = "/tmp/hang"  # the guest's /mnt is the host's, read-only
# Mounts FUSE on HANG and never reads /dev/fuse: the kernel's first request
# (INIT) is never answered, so every access below HANG waits, killably.
FUSE_SERVER = r"""
import ctypes, os, sys, time
fd = os.open("/dev/fuse", os.O_RDWR)
os.makedirs(sys.argv[1], exist_ok=True)
opts = "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other" % fd
if ctypes.CDLL(None, use_errno=True).mount(b"hang", sys.argv[1].encode(), b"fuse", 0,
                                           opts.encode()) != 0:
    sys.exit("mount: " + os.strerror(ctypes.get_errno()))
open("/tmp/hang-ready", "w").close()
time.sleep(100000)
"""


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2"])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


@pytest.fixture
def hung_home(rig):
    rig.run("modprobe fuse; rm -f /tmp/hang-ready")
    rig.write_file("/tmp/fuse-hang.py", FUSE_SERVER.encode())
    server = rig.spawn("exec python3 /tmp/fuse-hang.py %s" % HANG, name="fuse-hang")
    rig.wait_until("[ -e /tmp/hang-ready ]", timeout=20)
    home = rig.run("getent passwd lab1 | cut -d: -f6").stdout.strip()
    rig.run("usermod -d %s/home lab1" % HANG)
    yield
    rig.run("usermod -d %s lab1; umount -l %s" % (home, HANG), check=False)
    server.stop()


def status_seconds(rig):
    """How long `status` takes to answer, in the guest's own clock; its output."""
    out = rig.run("s=$(date +%%s%%N); timeout 10 %s -c %s status; echo \"exit $?\"; "
                  "echo \"took $(( ($(date +%%s%%N) - s) / 1000000 )) ms\"" % (BIN, CONFIG),
                  timeout=20).stdout
    took = int(out.rsplit("took ", 1)[1].split()[0])
    return took / 1000, out


def test_a_child_stuck_before_exec_leaves_the_daemon_and_other_seats_alone(rig, hung_home):
    seats = seat_map("x11", [dict(name="s1", outputs="Virtual-2", user="lab1",
                                  colour=SEAT_COLOURS[0]),
                             dict(name="s2", outputs="Virtual-3", user="lab2",
                                  colour=SEAT_COLOURS[1])])
    with Supervisor(rig, seats) as sup:
        # s1's X server is stuck entering lab1's home; s2 comes up all the same.
        sup.wait_state("s2", "running", timeout=90)
        assert_head(rig, 3, SEAT_COLOURS[1])
        for _ in range(3):
            took, out = status_seconds(rig)
            assert "exit 0" in out and took < 2, out
            assert "s1" in out and "starting" in out.split("s1", 1)[1].splitlines()[0], out
            time.sleep(1)
        stuck = rig.run("pgrep -u lab1 -l || true").stdout
        assert stuck != "", "lab1's X server should be there, stuck in chdir"
        # The daemon still stops, and takes the stuck child with it.
        started = time.monotonic()
        assert sup.stop(timeout=30) == 0
        assert time.monotonic() - started < 20
    assert rig.run("pgrep -u lab1 || true").stdout == ""
