# In the guest, run by tests/vm/soak.py: the soak's kill blocks and its
# waits, driven from inside so that each poll is one request on the control
# socket rather than a process started through the guest agent.
#   wait TIMEOUT SEAT[=PID]...       every SEAT runs (an X server other than
#                                    PID) and no other seat is on the map;
#                                    prints the seconds it took
#   kill WHAT N TIMEOUT SEAT...      N kill -9 of the seats' X servers or
#                                    sessions (WHAT), seats in turn, the next
#                                    seat's kill not waiting for the last to
#                                    be back; prints each one's seconds until
#                                    its seat runs a new X server
# Exit 1, with a line saying which seat, when one is not back within TIMEOUT.
import json, os, socket, sys, time

CONTROL = os.environ["SOAK_CONTROL"]
RUNTIME = os.path.dirname(CONTROL)


def status():
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(CONTROL)
        s.sendall(b"status --json\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        _, _, body = data.partition(b"\n")
        return {x["name"]: x for x in json.loads(body)["seats"]}
    except (OSError, ValueError):
        return None


def running(states, seat, old=None):
    s = (states or {}).get(seat)
    return bool(s) and s["state"] == "running" and s.get("xserver_pid") not in (None, old)


def session_pid(seat, xserver):
    """The session's pid in the seat's pids record (seatd-lease's), once the
    record is that of the X server xserver."""
    pids = {}
    try:
        with open(os.path.join(RUNTIME, seat, "pids")) as f:
            for line in f:
                word = line.split()
                if len(word) >= 2 and word[1].isdigit():
                    pids[word[0]] = int(word[1])
    except OSError:
        pass
    return pids.get("session") if pids.get("xserver") == xserver else None


def wait(timeout, args):
    old = {a.partition("=")[0]: int(a.partition("=")[2] or 0) or None for a in args}
    start = time.monotonic()
    while True:
        states = status()
        if states is not None and set(states) == set(old) and \
                all(running(states, s, pid) for s, pid in old.items()):
            print("%.2f" % (time.monotonic() - start))
            return 0
        if time.monotonic() - start > timeout:
            print("stuck: %s" % {n: s.get("state") for n, s in (states or {}).items()})
            return 1
        time.sleep(0.1)


def kill(what, n, timeout, seats):
    pending = {}            # seat -> (its X server's pid when killed, when)
    turn = done = 0
    while done < n or pending:
        states = status()
        now = time.monotonic()
        for seat, (old, when) in list(pending.items()):
            if running(states, seat, old) and (
                    what == "xserver" or session_pid(seat, states[seat]["xserver_pid"])):
                print("%.2f" % (now - when), flush=True)
                del pending[seat]
            elif now - when > timeout:
                print("stuck: %s not back %ds after its %s's kill: %s"
                      % (seat, timeout, what, (states or {}).get(seat)), flush=True)
                return 1
        seat = seats[turn % len(seats)]
        if done < n and seat not in pending and running(states, seat):
            old = states[seat]["xserver_pid"]
            pid = old if what == "xserver" else session_pid(seat, old)
            if pid:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pid = None
            if pid:
                pending[seat] = (old, now)
                done += 1
                turn += 1
                continue
        time.sleep(0.1)
    return 0


cmd = sys.argv[1]
if cmd == "wait":
    sys.exit(wait(float(sys.argv[2]), sys.argv[3:]))
sys.exit(kill(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5:]))
