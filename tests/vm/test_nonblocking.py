"""Nothing blocks the daemon's loop (issue 13, point 5): giving a seat's
input devices back to seat0 waits for udev on the loop, never in it. With
udevd stopped, three seats stopped at once each wait for udev (about 7 s:
udevadm's own timeout, then the wait for udev's answers), and meanwhile
`status` answers as fast as ever."""

import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, event_node,
                   input_seat, seat_map, setup_users)

# The worst answer allowed; the daemon's loop used to stop for seconds.
LIMIT_MS = 100
SEATS = [("s1", 2, "lab1"), ("s2", 3, "lab2"), ("s3", 4, "lab3")]
SEAT0_NODE = "root input 660"
PROBE_LOG = rigmod.GUEST_DIR + "/status-probe.log"
PROBE_STOP = rigmod.GUEST_DIR + "/status-probe.stop"

# Asks for `status` on the control socket over and over, as
# `seatd-lease status` does, and prints how long each whole answer took
# (connect to end of reply), until told to stop.
PROBE = r"""
import os, socket, sys, time
path, stop = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 120
while not os.path.exists(stop) and time.monotonic() < deadline:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(60)
    t = time.monotonic()
    s.connect(path)
    s.sendall(b"status\n")
    reply = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        reply += d
    ms = (time.monotonic() - t) * 1000
    s.close()
    print("%.1f %s" % (ms, reply.split(b"\n", 1)[0].decode()), flush=True)
    time.sleep(0.02)
print("done", flush=True)
"""


@pytest.fixture(scope="module")
def rig():
    with rigmod.Rig("nonblocking", heads=4, xorg=True) as r:
        setup_users(r, [user for _, _, user in SEATS])
        r.run("xsetroot -solid '%s'" % PRIMARY, env=r.x_env())
        yield r


def answers(rig):
    """(ms, status line) of every answer the probe has had so far."""
    out = rig.run("cat %s" % PROBE_LOG, check=False).stdout
    return [(float(ms), st) for ms, st in re.findall(r"^([\d.]+) (\S*)$", out, re.M)]


def test_stopping_seats_with_udev_stopped_leaves_status_answering(rig):
    seats = [input_seat(n, h, u, SEAT_COLOURS[i]) for i, (n, h, u) in enumerate(SEATS)]
    node = event_node(rig, rigmod.keyboard_id_path(2))
    with Supervisor(rig, seat_map("x11", seats)) as sup:
        for name, _, _ in SEATS:
            sup.wait_state(name, "running", timeout=120)
            sup.wait_log(r"seat %s: 2 input devices assigned" % name)
        rig.write_file("/run/rig/status-probe.py", PROBE.encode())
        rig.run("rm -f %s %s" % (PROBE_LOG, PROBE_STOP))
        rig.run("pkill -STOP systemd-udevd")
        try:
            probe = rig.spawn("exec python3 /run/rig/status-probe.py %s/control %s >%s"
                              % (RUNTIME_DIR, PROBE_STOP, PROBE_LOG), name="status-probe")
            rig.wait_until("[ -s %s ]" % PROBE_LOG, timeout=30)
            before = len(answers(rig))
            started = time.monotonic()
            # At once: each stop only asks, the seats stop on the loop.
            rig.run("for s in %s; do %s -c %s stop $s & done; wait"
                    % (" ".join(n for n, _, _ in SEATS), BIN, CONFIG))
            for name, _, _ in SEATS:
                sup.wait_state(name, "stopped", timeout=90)
            # Each seat has waited for udev, which never answered: the
            # release ran, and the probe asked all along.
            deadline = time.monotonic() + 90
            while len(re.findall(r"udev did not answer", sup.log())) < len(SEATS):
                assert time.monotonic() < deadline, sup.log()
                time.sleep(0.3)
            waited = time.monotonic() - started
            time.sleep(1)
            rig.run("touch %s" % PROBE_STOP)
            assert probe.wait(90) == 0, probe.output()
            got = answers(rig)
        finally:
            rig.run("pkill -CONT systemd-udevd")
        during = got[before:]
        assert all(st == "0" for _, st in got), got
        worst = max(ms for ms, _ in during)
        print("status answers while the seats stopped: %d in %.1f s, worst %.1f ms"
              % (len(during), waited, worst))
        assert worst < LIMIT_MS, "status took %.1f ms (of %d answers): %s" % (
            worst, len(during), sorted(ms for ms, _ in during)[-10:])
        # Answers all along, not one long wait.
        assert len(during) >= waited * 5, (len(during), waited)
        # Once udev runs again, the devices are seat0's.
        rig.run("udevadm settle --timeout=30")
        rig.wait_until("[ \"$(stat -c '%%U %%G %%a' %s)\" = '%s' ]" % (node, SEAT0_NODE))
        assert "ID_SEAT" not in rig.run("udevadm info -q property %s" % node).stdout
    assert rig.run("ls /run/udev/rules.d/ | grep seatd-lease || true").stdout == ""
