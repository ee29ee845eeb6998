"""A client that grabs the primary X server (GrabServer) stops the server
from serving anyone else until it lets go: seatd-lease must not stop with
it. While the grab lasts, the control socket answers at once and the seats
that need the primary wait; once it ends, they come back by themselves.

The grab comes from tests/vm/xgrab, which holds it until it is killed."""

import os
import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, assert_head,
                   seat_map, setup_users, status_json)

GRAB = os.path.join(rigmod.build_dir(), "tests", "vm", "xgrab")

# How long the daemon may take to answer a status request while the primary
# is grabbed (it answers in a few ms when nothing is in the way).
ANSWER_LIMIT_MS = 2000
# How long `seatd-lease status` is given before it is cut off. The command
# as a whole also pays for starting a process under TCG, 0.3 to 2 s here on
# a loaded host with nothing grabbed: the limit above is on the daemon's
# answer alone.
STATUS_CUTOFF_S = 5

# Runs in the guest: for SECONDS, a status request straight on the control
# socket (timed from connect to the whole reply), then `seatd-lease status`
# itself; one line per round: answer ms (-1: none within the cut-off), the
# command's exit status (124: cut off), its ms.
PROBE = r"""
import socket, subprocess, sys, time
path, seconds, cutoff, cli = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
end = time.monotonic() + seconds
while time.monotonic() < end:
    start, reply = time.monotonic(), b""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(cutoff)
            s.connect(path)
            s.sendall(b"status\n")
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                reply += chunk
    except OSError:
        pass
    answer = round((time.monotonic() - start) * 1000) if reply.startswith(b"0\n") else -1
    start = time.monotonic()
    try:
        rc = subprocess.run(cli, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            timeout=cutoff).returncode
    except subprocess.TimeoutExpired:
        rc = 124
    print(answer, rc, round((time.monotonic() - start) * 1000), flush=True)
    time.sleep(0.2)
"""


@pytest.fixture(scope="module")
def rig(guest):
    assert os.access(GRAB, os.X_OK), "no %s: build the project first" % GRAB
    setup_users(guest, ["lab1", "lab2"])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


def two_seats():
    return seat_map("x11", [
        dict(name="s1", outputs="Virtual-2", user="lab1", colour=SEAT_COLOURS[0]),
        dict(name="s2", outputs="Virtual-3", user="lab2", colour=SEAT_COLOURS[1]),
    ])


class Grab:
    """xgrab on the primary, from the moment the server has the grab."""

    def __init__(self, rig):
        self.rig = rig
        self.proc = rig.spawn("exec %s" % GRAB, name="xgrab", env=rig.x_env())
        deadline = time.monotonic() + 60
        while "grabbed" not in self.output():
            assert self.proc.running(), "xgrab ended: %s" % self.output()
            assert time.monotonic() < deadline, "xgrab got no grab in 60 s"
            time.sleep(0.1)

    def output(self):
        # The log appears once the spawned shell has started.
        return self.rig.run("cat %s 2>/dev/null || true" % self.proc.log).stdout

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.end()

    def end(self):
        if self.proc is not None:
            self.proc.stop()
            self.proc = None


def status_latencies(rig, seconds):
    """PROBE's rounds for seconds: (answer ms, exit status, command ms)."""
    out = rig.run("python3 - %s/control %d %d %s -c %s status"
                  % (RUNTIME_DIR, seconds, STATUS_CUTOFF_S, BIN, CONFIG), input=PROBE.encode(),
                  timeout=seconds + 3 * STATUS_CUTOFF_S + 30).stdout
    samples = [tuple(int(x) for x in line.split()) for line in out.splitlines()]
    print("status while grabbed (answer ms, exit status, command ms):", samples)
    return samples


def assert_answers(samples):
    assert samples, "no status ran"
    slow = [s for s in samples if not 0 <= s[0] <= ANSWER_LIMIT_MS or s[1] != 0]
    assert not slow, ("the daemon did not answer status within %d ms (or `seatd-lease status` "
                      "within %d s) while the primary was grabbed: (answer ms, exit status, "
                      "command ms) %s of %s" % (ANSWER_LIMIT_MS, STATUS_CUTOFF_S, slow, samples))


def test_a_grab_freezes_neither_the_control_socket_nor_the_other_seats(rig):
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        x1, x2 = sup.xserver_pid("s1"), sup.xserver_pid("s2")
        with Grab(rig) as grab:
            # s1 is restarted by hand: its lease goes back (FreeLease), and
            # its start needs a new one (CreateLease), which the grabbed
            # primary cannot give. (A seat that restarts by its policy keeps
            # its lease and would not need the primary.)
            rig.run("%s -c %s restart s1 >/dev/null" % (BIN, CONFIG))
            assert_answers(status_latencies(rig, 8))
            st = status_json(rig)
            assert st["s1"]["state"] == "waiting", st["s1"]
            assert "has not answered" in (st["s1"]["last_error"] or ""), st["s1"]
            # The seat that did not need the primary never noticed.
            assert st["s2"]["state"] == "running" and st["s2"]["xserver_pid"] == x2, st["s2"]
            sup.wait_log(r"X server :0 has not answered for 1 s \(is it still starting, or "
                         r"does a client hold a server grab\?\)")
            grab.end()
        sup.wait_state("s1", "running", after=x1, timeout=60)
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1], timeout=1)
        assert sup.xserver_pid("s2") == x2
        # Said once for the whole grab, not once per seat or per retry: the
        # first silence is the grab's, 5 s and more. (Under TCG the primary
        # can be slow for another second once the grab ends: a silence of
        # its own, said once too.)
        log = sup.log()
        silences = re.findall(r"X server :0 has not answered", log)
        answers = re.findall(r"X server :0 answers again after (\d+(?:\.\d+)?) s", log)
        assert len(silences) == len(answers) >= 1 and float(answers[0]) >= 5, log


def test_a_grab_at_start_and_a_restart_during_it(rig):
    with Grab(rig) as grab:
        # Connecting needs the server's answer too (its connection setup).
        with Supervisor(rig, two_seats()) as sup:
            rig.wait_until("[ -S %s/control ]" % RUNTIME_DIR)
            assert_answers(status_latencies(rig, 6))
            st = status_json(rig)
            assert [st[s]["state"] for s in ("s1", "s2")] == ["waiting", "waiting"], st
            r = rig.run("timeout %d %s -c %s restart s2" % (STATUS_CUTOFF_S, BIN, CONFIG),
                        check=False)
            assert r.status == 0, r.stdout + r.stderr
            grab.end()
            sup.wait_state("s1", "running", timeout=60)
            sup.wait_state("s2", "running", timeout=60)
            assert_head(rig, 2, SEAT_COLOURS[0])
            assert_head(rig, 3, SEAT_COLOURS[1])
