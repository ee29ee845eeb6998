"""Eight seats on one card: a 9-head rig with a seat on each of
heads 2..9, each with that head's keyboard and pointer, all at once, at
640x480 (the smallest mode the virtual heads offer) so that TCG draws nine
heads. Every head shows its own seat's colour, and a key typed on head 9's
keyboard reaches seat 8's session alone. The scale path, kept from rotting;
the figures against the number of seats are scripts/bench's.

The eight seats lease from the card itself (lessor = drm): Xorg's
modesetting driver offers an output only the card's first 7 CRTCs (it masks
the kernel's possible CRTCs with 0x7f), so through the X server heads 8 and
9 have no CRTC at all, which the second test shows seatd-lease saying."""

import time

import pytest

import rig as rigmod
from seatd import (PRIMARY, RUNTIME_DIR, Supervisor, assert_head, input_seat, presses,
                   seat_map, setup_users)

SEATS = 8
HEAD_SIZE = (640, 480)
# Eight colours far apart, none the primary's.
COLOURS = ["#c03020", "#20a040", "#d0b020", "#8040c0", "#20a0c0", "#c08020", "#e060a0",
           "#606060"]


@pytest.fixture(scope="module")
def rig():
    with rigmod.Rig("scale", heads=SEATS + 1, xorg=False, memory="3G",
                    head_size=HEAD_SIZE) as r:
        setup_users(r, ["lab%d" % i for i in range(1, SEATS + 1)])
        yield r


def test_eight_seats_on_one_card(rig):
    seats = [input_seat("s%d" % i, i + 1, "lab%d" % i, COLOURS[i - 1])
             for i in range(1, SEATS + 1)]
    with Supervisor(rig, seat_map("drm", seats, mode=HEAD_SIZE)) as sup:
        for i in range(1, SEATS + 1):
            sup.wait_state("s%d" % i, "running", timeout=180)
        for i in range(1, SEATS + 1):
            assert_head(rig, i + 1, COLOURS[i - 1], timeout=120)
        logs = ["%s/s%d/session.log" % (RUNTIME_DIR, i) for i in range(1, SEATS + 1)]
        sup.wait_log(r"seat s%d: 2 input devices assigned \(1 keyboard, 1 pointer\)" % SEATS)
        # A key pressed before seat 8's X server has the keyboard is lost:
        # press until one arrives.
        deadline = time.monotonic() + 60
        while presses(rig, logs[SEATS - 1]) == "0":
            assert time.monotonic() < deadline, "seat s%d got no key from head 9" % SEATS
            rig.send_key(SEATS + 1, "a")
            time.sleep(1)
        time.sleep(1)
        others = [presses(rig, log) for log in logs[:SEATS - 1]]
        assert others == ["0"] * (SEATS - 1), others


def test_through_the_x_server_head_8_has_no_crtc(rig):
    """With the primary Xorg on the nine heads, a seat on head 8 fails at
    once, in a line that says why and what to do."""
    rig.start_xorg()
    rig.run("xsetroot -solid '%s'" % PRIMARY, env=rig.x_env())
    seats = [input_seat("s7", 8, "lab7", COLOURS[6])]
    with Supervisor(rig, seat_map("x11", seats, mode=HEAD_SIZE)) as sup:
        line = sup.wait_log(r"seat s7: .*no CRTC")
        assert ("output Virtual-8 of X server :0 has no CRTC that can drive it (the X server "
                "offers it none: Xorg's modesetting driver offers outputs only the card's first "
                "7 CRTCs; for more seats on one card, use lessor = drm)") in line, line
