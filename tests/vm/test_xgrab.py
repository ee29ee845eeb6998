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

# How long `seatd-lease status` may take, at most, while the primary is
# grabbed (it takes about 0.1 s under TCG when nothing is in the way).
STATUS_LIMIT_MS = 2000
# How long a status that does not answer is given before it is cut off.
STATUS_CUTOFF_S = 5


@pytest.fixture(scope="module")
def rig():
    assert os.access(GRAB, os.X_OK), "no %s: build the project first" % GRAB
    with rigmod.Rig("xgrab", heads=3, xorg=True) as r:
        setup_users(r, ["lab1", "lab2"])
        r.run("xsetroot -solid '%s'" % PRIMARY, env=r.x_env())
        yield r


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
        deadline = time.monotonic() + 20
        while "grabbed" not in self.proc.output():
            assert self.proc.running(), "xgrab ended: %s" % self.proc.output()
            assert time.monotonic() < deadline, "xgrab got no grab in 20 s"
            time.sleep(0.1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.end()

    def end(self):
        if self.proc is not None:
            self.proc.stop()
            self.proc = None


def status_latencies(rig, seconds):
    """Runs `seatd-lease status` in the guest again and again for seconds;
    (exit status, milliseconds) of each run. A run that has not answered
    after STATUS_CUTOFF_S is cut off (status 124)."""
    out = rig.run(
        "end=$(( $(date +%%s) + %d )); while [ $(date +%%s) -lt $end ]; do "
        "s=$(date +%%s%%N); timeout %d %s -c %s status >/dev/null 2>&1; rc=$?; "
        "echo \"$rc $(( ($(date +%%s%%N) - s) / 1000000 ))\"; sleep 0.2; done"
        % (seconds, STATUS_CUTOFF_S, BIN, CONFIG), timeout=seconds + STATUS_CUTOFF_S + 30).stdout
    samples = [tuple(int(x) for x in line.split()) for line in out.splitlines()]
    print("status while grabbed (exit status, ms):", samples)
    return samples


def assert_answers(samples):
    assert samples, "no status ran"
    slow = [s for s in samples if s[0] != 0 or s[1] > STATUS_LIMIT_MS]
    assert not slow, ("status did not answer within %d ms while the primary was grabbed: "
                      "(exit status, ms) %s of %s" % (STATUS_LIMIT_MS, slow, samples))


def test_a_grab_freezes_neither_the_control_socket_nor_the_other_seats(rig):
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        x1, x2 = sup.xserver_pid("s1"), sup.xserver_pid("s2")
        with Grab(rig) as grab:
            # s1 ends: its lease goes back (FreeLease), and its restart needs
            # a new one (CreateLease), which the grabbed primary cannot give.
            rig.run("kill -9 %d" % x1)
            assert_answers(status_latencies(rig, 8))
            st = status_json(rig)
            assert st["s1"]["state"] == "waiting", st["s1"]
            assert "has not answered" in (st["s1"]["last_error"] or ""), st["s1"]
            # The seat that did not need the primary never noticed.
            assert st["s2"]["state"] == "running" and st["s2"]["xserver_pid"] == x2, st["s2"]
            sup.wait_log(r"X server :0 has not answered for 1 s \(a client may hold a server "
                         r"grab\)")
            grab.end()
        sup.wait_state("s1", "running", after=x1, timeout=60)
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1], timeout=1)
        assert sup.xserver_pid("s2") == x2
        # Said once for the whole grab, not once per seat or per retry.
        log = sup.log()
        assert len(re.findall(r"X server :0 has not answered", log)) == 1, log
        assert re.search(r"X server :0 answers again after \d+(\.\d+)? s", log), log


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
