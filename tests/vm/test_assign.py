"""`seatd-lease assign` on the rig: seats without input devices show their
assignment screens (a colour and a text of their own), F<n> typed on a
keyboard binds it, and the mouse that clicks next, to seat n; a USB hub
holding a keyboard and a mouse is bound by the hub's sysfs: match; only the
seats' inputs = lines of the map change; Escape changes nothing."""

import difflib
import os
import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, presses,
                   seat_map, setup_users, wait_presses)

FIFO = "/tmp/assign.fifo"
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "assign")
# assign-screen.c's colours of F1 and F2.
SCREEN_F1 = (0x1f, 0x4e, 0x9a)
SCREEN_F2 = (0x9a, 0x2f, 0x1f)
WHITE = (0xff, 0xff, 0xff)


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2"])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


@pytest.fixture(autouse=True)
def unplug_usb(rig):
    """What a test plugged in goes with it, as from a fresh guest."""
    yield
    rig.usb_remove_all()


@pytest.fixture
def primary_keys(rig):
    xev = rig.spawn("exec stdbuf -oL xev -root -event keyboard", name="primary-xev",
                    env=rig.x_env())
    time.sleep(1)
    yield xev.log
    xev.stop()


def logging_seat(name, head, user, colour, extra=""):
    """A seat on head whose session paints colour and logs every key it gets."""
    return dict(name=name, outputs="Virtual-%d" % head, user=user, extra=extra,
                session="/bin/sh -c \"xsetroot -solid '%s'; exec stdbuf -oL xev -root "
                        "-event keyboard\"" % colour)


def two_seats(extra1="", extra2=""):
    return seat_map("x11", [logging_seat("lab-1", 2, "lab1", SEAT_COLOURS[0], extra1),
                            logging_seat("lab-2", 3, "lab2", SEAT_COLOURS[1], extra2)])


class Assign:
    """`seatd-lease assign` in the background, its terminal a FIFO."""

    def __init__(self, rig, args=""):
        self.rig = rig
        rig.run("rm -f %s && mkfifo %s" % (FIFO, FIFO))
        self.proc = rig.spawn("exec %s -c %s assign --timeout 600 %s <>%s"
                              % (BIN, CONFIG, args, FIFO), name="assign")

    def type(self, text):
        self.rig.run("printf '%s' >%s" % (text, FIFO))

    def output(self):
        return self.rig.run("cat %s" % self.proc.log, check=False).stdout

    def wait_output(self, pattern, timeout=60):
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.output(), re.M):
            assert time.monotonic() < deadline, "assign never said %r:\n%s" % (
                pattern, self.output())
            assert self.proc.running() or re.search(pattern, self.output(), re.M), \
                "assign ended without saying %r:\n%s" % (pattern, self.output())
            time.sleep(0.3)

    def press_until(self, press, pattern, tries=8, every=5):
        """press(), and again every `every` s, until assign says pattern: a
        key sent before assign has opened a device just plugged in is lost,
        and a user presses again."""
        for attempt in range(tries):
            press()
            try:
                return self.wait_output(pattern, timeout=every)
            except AssertionError:
                if attempt == tries - 1 or not self.proc.running():
                    raise

    def wait(self, timeout=90):
        return self.proc.wait(timeout)


def wait_screen(rig, head, colour, timeout=60):
    """Head shows an assignment screen of colour: mostly that colour, with
    white letters."""
    # The background fills before the letters are drawn: wait for both.
    deadline = time.monotonic() + timeout
    while True:
        picture = rig.screendump(head)
        if (picture.share(colour) >= 0.5 and picture.share(WHITE) > 0.01) or \
                time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert picture.share(colour) >= 0.5 and picture.share(WHITE) > 0.01, \
        "head %d: %s, %.3f white" % (head, picture.dominant(), picture.share(WHITE))
    return picture


def read(rig, path):
    return rig.run("cat %s" % path).stdout


def test_f2_binds_head_3_and_a_hub_binds_by_its_sysfs_path(rig, primary_keys):
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("lab-1", "running")
        sup.wait_state("lab-2", "running")
        before = read(rig, CONFIG)
        wizard = Assign(rig)
        # Each seat restarts on its assignment screen: its own colour and text.
        wait_screen(rig, 2, SCREEN_F1)
        wait_screen(rig, 3, SCREEN_F2)
        time.sleep(1)
        head2, head3 = rig.screendump(2), rig.screendump(3)
        os.makedirs(DOCS, exist_ok=True)
        head2.save_png(os.path.join(DOCS, "head-2.png"))
        head3.save_png(os.path.join(DOCS, "head-3.png"))
        assert head2.dominant() != head3.dominant()
        # Different seat names and keys: the letters are not where they are
        # on the other screen.
        assert head2.rgb != head3.rgb
        white2 = {i for i in range(0, len(head2.rgb), 3 * 5) if head2.rgb[i:i + 3] == b"\xff" * 3}
        white3 = {i for i in range(0, len(head3.rgb), 3 * 5) if head3.rgb[i:i + 3] == b"\xff" * 3}
        assert white2 and white3 and white2 != white3
        wizard.wait_output(r"^lab-2 +F2 +Virtual-3 +\(press F2 on its keyboard\)")
        # Head 3's keyboard, then the click of head 3's pointer (another PCI
        # path: the click, not the port, says whose it is).
        rig.send_key(3, "f2")
        wizard.wait_output(r"keyboard \S+ bound to seat lab-2: inputs = path:%s; now click"
                           % re.escape(rigmod.keyboard_id_path(3)))
        rig.wait_until("grep -qx keyboard %s/lab-2/assign-state" % RUNTIME_DIR)
        # The screen says so (it reads its state every quarter second).
        time.sleep(1.5)
        assert rig.screendump(3).rgb != head3.rgb
        rig.click(3, 512, 700)
        wizard.wait_output(r"pointer \S+ bound to seat lab-2: path:%s"
                           % re.escape(rigmod.pointer_id_path(3)))
        # A hub on a root port, with a mouse and a keyboard behind it (the
        # keyboard plugged in last: usb_key types on it).
        rig.usb_add("usb-hub", "1")
        rig.usb_add("usb-mouse", "1.1")
        rig.usb_add("usb-kbd", "1.2")
        wizard.press_until(lambda: rig.usb_key("f1"),
                           r"bound to seat lab-1: inputs = sysfs:%s \(its mouse is on the "
                           r"same hub\)" % re.escape(rigmod.usb_syspath("1")))
        # Both seats complete: the map is written, the daemon reloads.
        assert wizard.wait() == 0, wizard.output()
        out = wizard.output()
        assert "wrote %s (the old one is %s.bak)" % (CONFIG, CONFIG) in out, out
        after = read(rig, CONFIG)
        assert read(rig, CONFIG + ".bak") == before
        changed = [line for line in difflib.ndiff(before.splitlines(True),
                                                  after.splitlines(True))
                   if line[:2] in ("+ ", "- ")]
        assert sorted(changed) == sorted([
            "+ inputs = sysfs:%s\n" % rigmod.usb_syspath("1"),
            "+ inputs = path:%s path:%s\n" % (rigmod.keyboard_id_path(3),
                                              rigmod.pointer_id_path(3))]), changed
        assert rig.run("stat -c '%%U %%a' %s" % CONFIG).stdout.strip() == "root 644"
        assert rig.run("%s check %s" % (BIN, CONFIG), check=False).status == 0
        # The seats are back on their sessions, with their new devices.
        rig.wait_for_colour(3, rigmod.colour(SEAT_COLOURS[1]), timeout=60)
        rig.wait_for_colour(2, rigmod.colour(SEAT_COLOURS[0]), timeout=60)
        sup.wait_log(r"seat lab-2: 2 input devices assigned \(1 keyboard, 1 pointer\)")
        lab1_log = "%s/lab-1/session.log" % RUNTIME_DIR
        lab2_log = "%s/lab-2/session.log" % RUNTIME_DIR
        rig.wait_until("grep -q 'seat lab-1: .* input devices assigned' %s/seatd-lease.log"
                       % rigmod.GUEST_DIR)
        time.sleep(2)
        start = int(presses(rig, primary_keys))
        rig.send_key(3, "b")
        wait_presses(rig, lab2_log, 1)
        rig.usb_key("c")
        wait_presses(rig, lab1_log, 1)
        time.sleep(1)
        assert presses(rig, lab2_log) == "1" and presses(rig, lab1_log) == "1"
        assert int(presses(rig, primary_keys)) == start, "the primary got head 3's key"


def test_a_desk_keyboard_can_neither_end_the_wizard_nor_reach_the_primary(rig, primary_keys):
    """While assign runs, the keyboards it may bind are its alone: Enter,
    Escape, Ctrl+C and letters typed at a desk reach neither the primary X
    server (where root's terminal running assign may be) nor anyone else,
    and end nothing; the desk's F<n> still binds it. Afterwards the desk's
    keyboard, bound to no seat, is seat0's again."""
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("lab-1", "running")
        sup.wait_state("lab-2", "running")
        # Head 2's keyboard is seat0's now: the primary hears it.
        time.sleep(1)
        start = int(presses(rig, primary_keys))
        rig.send_key(2, "a")
        wait_presses(rig, primary_keys, start + 1)
        wizard = Assign(rig)
        wait_screen(rig, 2, SCREEN_F1)
        wizard.wait_output(r"^lab-1 +F1")
        time.sleep(1)
        start = int(presses(rig, primary_keys))
        for keys in (["ret"], ["kp_enter"], ["esc"], ["a"], ["ctrl", "c"], ["ctrl", "d"]):
            rig.send_key(2, *keys)
        time.sleep(2)
        assert int(presses(rig, primary_keys)) == start, "the primary got a desk's keys"
        assert wizard.proc.running(), wizard.output()
        assert not re.search(r"cancelled|wrote|no keyboard was bound", wizard.output()), \
            wizard.output()
        rig.send_key(2, "f1")
        wizard.wait_output(r"keyboard \S+ bound to seat lab-1: inputs = path:%s"
                           % re.escape(rigmod.keyboard_id_path(2)))
        assert int(presses(rig, primary_keys)) == start, "the primary got the desk's F1"
        wizard.type("\\033")
        assert wizard.wait() == 0, wizard.output()
        assert "cancelled: the seat map is left as it was" in wizard.output()
        rig.wait_for_colour(2, rigmod.colour(SEAT_COLOURS[0]), timeout=60)
        time.sleep(1)
        start = int(presses(rig, primary_keys))
        rig.send_key(2, "b")
        wait_presses(rig, primary_keys, start + 1)


def test_escape_leaves_the_map_byte_identical(rig):
    text = two_seats()
    with Supervisor(rig, text) as sup:
        sup.wait_state("lab-2", "running")
        rig.run("rm -f %s.bak" % CONFIG)
        sha = rig.run("sha256sum %s" % CONFIG).stdout
        wizard = Assign(rig)
        wait_screen(rig, 3, SCREEN_F2)
        wizard.wait_output(r"^lab-2 +F2")
        rig.send_key(3, "f2")
        wizard.wait_output(r"bound to seat lab-2")
        wizard.type("\\033")
        assert wizard.wait() == 0, wizard.output()
        assert "cancelled: the seat map is left as it was" in wizard.output()
        assert rig.run("sha256sum %s" % CONFIG).stdout == sha
        assert rig.run("ls %s.bak" % CONFIG, check=False).status != 0
        # Back to their sessions, as the map says.
        rig.wait_for_colour(3, rigmod.colour(SEAT_COLOURS[1]), timeout=60)
        rig.wait_for_colour(2, rigmod.colour(SEAT_COLOURS[0]), timeout=60)


def test_a_seat_whose_keyboard_is_gone_gets_its_screen_and_nothing_is_stolen(rig):
    # lab-1 has head 2's devices; lab-2's keyboard was on a port that is
    # empty now: only lab-2 is assigned.
    text = two_seats("inputs = path:%s path:%s\n" % (rigmod.keyboard_id_path(2),
                                                     rigmod.pointer_id_path(2)),
                     "inputs = path:%s\n" % rigmod.hotplug_id_path(1))
    with Supervisor(rig, text) as sup:
        sup.wait_state("lab-1", "running")
        sup.wait_state("lab-2", "running")
        wizard = Assign(rig)
        wait_screen(rig, 3, SCREEN_F2)
        wizard.wait_output(r"^lab-2 +F2")
        assert not re.search(r"^lab-1 ", wizard.output(), re.M), wizard.output()
        assert rig.screendump(2).share(rigmod.colour(SEAT_COLOURS[0])) > 0.9
        # lab-1's keyboard presses lab-2's key: not moved, and lab-2's screen says so.
        rig.send_key(2, "f2")
        wizard.wait_output(r"keyboard \S+ is seat lab-1's already: not moved to lab-2")
        rig.wait_until("grep -qx 'taken lab-1' %s/lab-2/assign-state" % RUNTIME_DIR)
        wizard.type("\\033")
        assert wizard.wait() == 0, wizard.output()


def test_assignment_is_roots_alone(rig):
    # A control_group member may stop and start seats, but not take input
    # devices: assign-begin is refused by the daemon itself.
    rig.run("getent group labadm >/dev/null || groupadd labadm; usermod -aG labadm lab2")
    with Supervisor(rig, two_seats().replace("[general]", "[general]\ncontrol_group = labadm")) \
            as sup:
        sup.wait_state("lab-1", "running")
        ask = ("import socket; s = socket.socket(socket.AF_UNIX); s.connect('%s/control'); "
               "s.sendall(b'assign-begin lab-1\\n'); print(s.makefile().read())" % RUNTIME_DIR)
        reply = rig.run("su -s /bin/sh lab2 -c \"python3 -c \\\"%s\\\"\"" % ask).stdout
        assert reply.startswith("4\n") and "only root may assign input devices" in reply, reply
        sup.wait_log(r"control: refused assign-begin of uid \d+")
        status = rig.run("su -s /bin/sh lab2 -c '%s -c %s status'" % (BIN, CONFIG)).status
        assert status == 0
        cli = rig.run("su -s /bin/sh lab2 -c '%s -c %s assign'" % (BIN, CONFIG), check=False)
        assert cli.status == 1 and "run it as root" in cli.stderr, cli.stderr
        time.sleep(1)
        assert rig.screendump(2).share(rigmod.colour(SEAT_COLOURS[0])) > 0.9


def test_the_keyboard_that_typed_the_command_is_not_taken(rig):
    # Head 1's keyboard (the primary's) holds Enter down as assign starts,
    # as the keyboard that typed the command does: F1 on it binds nothing.
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("lab-1", "running")
        enter = {"type": "key", "data": {"down": True, "key": {"type": "qcode", "data": "ret"}}}
        rig.send_events(1, [enter])
        try:
            wizard = Assign(rig)
            wizard.wait_output(r"^lab-1 +F1")
        finally:
            rig.send_events(1, [{"type": "key", "data": dict(enter["data"], down=False)}])
        wait_screen(rig, 2, SCREEN_F1)
        rig.send_key(1, "f1")
        wizard.wait_output(r"F1 on \S+: that keyboard typed this command \(the primary's\); "
                           r"not taken")
        rig.wait_until("grep -qx primary %s/lab-1/assign-state" % RUNTIME_DIR)
        # Any other keyboard may still take the seat.
        rig.send_key(2, "f1")
        wizard.wait_output(r"keyboard \S+ bound to seat lab-1: inputs = path:%s"
                           % re.escape(rigmod.keyboard_id_path(2)))
        wizard.type("\\033")
        assert wizard.wait() == 0, wizard.output()


def test_the_wizard_ends_when_nothing_is_bound_for_its_timeout(rig):
    # --timeout counts from the last binding: a wizard that holds the
    # keyboard it was started from gives it back by itself, and a lab that
    # takes longer than the timeout to walk is not cut short.
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("lab-2", "running")
        rig.run("rm -f %s.bak" % CONFIG)
        sha = rig.run("sha256sum %s" % CONFIG).stdout
        wizard = Assign(rig, "--timeout 30")
        wait_screen(rig, 3, SCREEN_F2)
        wizard.wait_output(r"^lab-2 +F2")
        seen = time.monotonic()
        assert "with nothing bound for 30 s it ends by itself" in wizard.output()
        time.sleep(15)
        wizard.press_until(lambda: rig.send_key(3, "f2"), r"bound to seat lab-2")
        bound_at = time.monotonic()
        assert bound_at < seen + 27, "the binding came too late to tell: %.1f s" % (
            bound_at - seen)
        # Past the first 30 s, it still runs.
        time.sleep(max(0.0, seen + 36 - time.monotonic()))
        assert wizard.proc.running(), wizard.output()
        assert wizard.wait(timeout=60) == 0, wizard.output()
        assert time.monotonic() - bound_at >= 27
        assert "nothing bound for 30 s (--timeout): the seat map is left as it was" \
            in wizard.output()
        assert rig.run("sha256sum %s" % CONFIG).stdout == sha
        rig.wait_for_colour(3, rigmod.colour(SEAT_COLOURS[1]), timeout=60)
