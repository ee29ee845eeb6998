"""Nothing blocks the daemon's loop: giving a seat's
input devices back to seat0 waits for udev on the loop, never in it. With
udevd stopped, three seats stopped at once each wait for udev (about 7 s:
udevadm's own 2 s timeout, then 5 s for udev's answers), and meanwhile the
daemon never sits in anything but its epoll_wait for 100 ms, and `status`
answers all along.

How fast `status` answers also depends on how fast the guest runs: under KVM
every answer must come within 100 ms. Under TCG on a loaded host a guest
runs so slowly that answers take 0.1 to 3 s before anything is stopped, so
there the bound is on the daemon's own waits, seen from /proc/PID/syscall,
and the answers' worst is printed; the old, blocking code answered once in
21 s (three seats, 7 s each)."""

import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, event_node,
                   input_seat, seat_map, setup_users)

LIMIT_MS = 100
SEATS = [("s1", 2, "lab1"), ("s2", 3, "lab2"), ("s3", 4, "lab3")]
SEAT0_NODE = "root input 660"
PROBE = rigmod.GUEST_DIR + "/status-probe.py"
PROBE_LOG = rigmod.GUEST_DIR + "/status-probe.log"
PROBE_STOP = rigmod.GUEST_DIR + "/status-probe.stop"

# Asks for `status` on the control socket over and over, as `seatd-lease
# status` does, and prints how long each whole answer took (connect to end of
# reply): "answer MS STATUS". Meanwhile a thread samples the daemon's
# /proc/PID/syscall every 10 ms: a wait of the loop's own is epoll_wait
# (232, or epoll_pwait 281), "running" is no wait; any other wait that the
# same sample line shows from one sample to the next is timed, and each of
# 20 ms or more printed: "wait MS LINE" (from its first sample to its last:
# what it lasted at least). Until the stop file appears.
PROBE_TEXT = r"""
import os, socket, sys, threading, time
path, pid, stop = sys.argv[1], sys.argv[2], sys.argv[3]
out = threading.Lock()
def say(text):
    with out:
        print(text, flush=True)
def waits():
    line, first, last = None, 0, 0
    while not os.path.exists(stop):
        with open("/proc/%s/syscall" % pid) as f:
            now_line, now = f.read().strip(), time.monotonic()
        if now_line != line:
            if line is not None and (last - first) * 1000 >= 20:
                say("wait %.1f %s" % ((last - first) * 1000, line))
            line, first = now_line, now
        last = now
        if now_line.split()[0] in ("232", "281", "running"):
            line = None
        time.sleep(0.01)
    if line is not None and (last - first) * 1000 >= 20:
        say("wait %.1f %s" % ((last - first) * 1000, line))
sampler = threading.Thread(target=waits)
sampler.start()
deadline = time.monotonic() + 300
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
    say("answer %.1f %s" % (ms, reply.split(b"\n", 1)[0].decode()))
    time.sleep(0.02)
sampler.join()
say("done")
"""


RIG = dict(heads=4, xorg=True)


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, [user for _, _, user in SEATS])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


def probe_output(rig):
    """(answers, waits): (ms, status line) of every answer so far, and (ms,
    syscall line) of every wait of the daemon's other than its loop's."""
    out = rig.run("cat %s" % PROBE_LOG, check=False).stdout
    return ([(float(ms), st) for ms, st in re.findall(r"^answer ([\d.]+) (\S*)$", out, re.M)],
            [(float(ms), line) for ms, line in re.findall(r"^wait ([\d.]+) (.*)$", out, re.M)])


def udev_warnings(log):
    return len(re.findall(r"udev did not answer", log))


def test_stopping_seats_with_udev_stopped_leaves_status_answering(rig):
    seats = [input_seat(n, h, u, SEAT_COLOURS[i]) for i, (n, h, u) in enumerate(SEATS)]
    node = event_node(rig, rigmod.keyboard_id_path(2))
    with Supervisor(rig, seat_map("x11", seats)) as sup:
        for name, _, _ in SEATS:
            sup.wait_state(name, "running", timeout=300)
            sup.wait_log(r"seat %s: 2 input devices assigned" % name, timeout=120)
        # udev has really given s1 its keyboard (a slow guest's udev may
        # have taken longer than the daemon waited for it).
        rig.run("udevadm settle --timeout=60")
        rig.wait_until("[ \"$(stat -c '%%U %%a' %s)\" = 'lab1 600' ]" % node, timeout=60)
        rig.write_file(PROBE, PROBE_TEXT.encode())
        rig.run("rm -f %s %s" % (PROBE_LOG, PROBE_STOP))
        rig.run("pkill -STOP systemd-udevd")
        try:
            probe = rig.spawn("exec python3 %s %s/control %d %s >%s" % (
                PROBE, RUNTIME_DIR, sup.pid(), PROBE_STOP, PROBE_LOG), name="status-probe")
            rig.wait_until("grep -q ^answer %s" % PROBE_LOG, timeout=180)
            before = len(probe_output(rig)[0])
            warned = udev_warnings(sup.log())
            started = time.monotonic()
            # At once: each stop only asks, the seats stop on the loop.
            rig.run("for s in %s; do %s -c %s stop $s & done; wait"
                    % (" ".join(n for n, _, _ in SEATS), BIN, CONFIG))
            for name, _, _ in SEATS:
                sup.wait_state(name, "stopped", timeout=180)
            # Each seat has waited for udev, which never answered: the
            # releases ran, and the probe asked all along.
            deadline = time.monotonic() + 120
            while udev_warnings(sup.log()) < warned + len(SEATS):
                assert time.monotonic() < deadline, sup.log()
                time.sleep(0.3)
            waited = time.monotonic() - started
            time.sleep(1)
            rig.run("touch %s" % PROBE_STOP)
            assert probe.wait(90) == 0, probe.output()
            got, waits = probe_output(rig)
        finally:
            rig.run("pkill -CONT systemd-udevd")
        during = got[before:]
        assert all(st == "0" for _, st in got), got
        worst = max(ms for ms, _ in during)
        # The seat's own file system is unmounted when it stops (umount2, 166;
        # mount, 165): kernel work that waits for no other process, but for an
        # RCU grace period, which a loaded TCG guest stretches past 100 ms
        # (measured once: 110 ms, with fuzzers sharing the host). Bounded on
        # its own; every other wait is held to LIMIT_MS.
        kernel = [(ms, line) for ms, line in waits if line.split()[0] in ("165", "166")]
        waits = [(ms, line) for ms, line in waits if (ms, line) not in kernel]
        assert all(ms < 1000 for ms, _ in kernel), kernel
        longest = max([ms for ms, _ in waits] or [0])
        print("\nstatus while three seats stopped (%s): %d answers in %.1f s, worst %.1f ms, "
              "before %.1f ms; the daemon's longest wait outside its loop: %.1f ms %s"
              % (rig.accel.name, len(during), waited, worst, max(ms for ms, _ in got[:before]),
                 longest, waits + kernel))
        assert longest < LIMIT_MS, "the daemon waited outside its loop: %s" % waits
        if rig.accel.name == "kvm":
            assert worst < LIMIT_MS, "status took %.1f ms: %s" % (worst, during)
        # Answers all along, not one long wait.
        assert len(during) >= 3 and worst < waited * 1000 / 3, (worst, waited, during)
        # Once udev runs again, the devices are seat0's.
        rig.run("udevadm settle --timeout=60")
        rig.wait_until("[ \"$(stat -c '%%U %%G %%a' %s)\" = '%s' ]" % (node, SEAT0_NODE))
        assert "ID_SEAT" not in rig.run("udevadm info -q property %s" % node).stdout
    assert rig.run("ls /run/udev/rules.d/ | grep seatd-lease || true").stdout == ""
