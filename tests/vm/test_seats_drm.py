"""seatd-lease on the rig, drm lessor: no X server on the card; seatd-lease is
its DRM master and leases every head to a seat of its own. Also `seatd-lease
seat NAME`, one seat in the foreground as a service manager runs it; and,
last, seats on two cards: the rig has a second virtio-gpu, card1,
with two heads (rig heads 4 and 5)."""

import json
import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, assert_head,
                   input_seat, presses, seat_map, setup_users)

BLACK = "#000000"


@pytest.fixture(scope="module")
def rig():
    with rigmod.Rig("seats-drm", heads=3, heads2=2, xorg=False) as r:
        setup_users(r, ["lab1", "lab2", "lab3", "lab4"])
        yield r


def three_seats():
    return seat_map("drm", [
        dict(name="s%d" % (i + 1), outputs="Virtual-%d" % (i + 1), user="lab%d" % (i + 1),
             colour=SEAT_COLOURS[i]) for i in range(3)])


def test_three_seats_on_three_heads(rig):
    with Supervisor(rig, three_seats()) as sup:
        for i in range(3):
            sup.wait_state("s%d" % (i + 1), "running")
        for i in range(3):
            assert_head(rig, i + 1, SEAT_COLOURS[i])
        # One seat's crash leaves the others alone, and it comes back.
        x2, x3 = sup.xserver_pid("s2"), sup.xserver_pid("s3")
        rig.run("kill -9 %d" % sup.xserver_pid("s1"))
        sup.wait_log(r"seat s1: .* -> back-off")
        sup.wait_state("s1", "running", after=None)
        assert_head(rig, 1, SEAT_COLOURS[0])
        assert (sup.xserver_pid("s2"), sup.xserver_pid("s3")) == (x2, x3)
        assert sup.stop() == 0
    # Nothing holds the card any more: the heads go dark.
    assert rig.run("ls -A /run/seatd-lease").stdout == ""
    assert rig.run("pgrep -u lab1,lab2,lab3", check=False).stdout == ""


def test_drm_unknown_connector_waits(rig):
    m = seat_map("drm", [dict(name="s1", outputs="HDMI-A-1", user="lab1")])
    with Supervisor(rig, m) as sup:
        sup.wait_state("s1", "waiting")
        line = sup.wait_log(r"seat s1: .*HDMI-A-1")
        assert "Virtual-1" in line, line


def test_seat_command_runs_one_seat_and_exits_with_its_session(rig):
    m = seat_map("drm", [
        dict(name="s1", outputs="Virtual-1", user="lab1",
             # Without a '/': looked up in the seat's PATH when the map is read.
             session="sh -c \"xsetroot -solid '%s' && sleep 3 && exit 7\"" % SEAT_COLOURS[0]),
        dict(name="s2", outputs="Virtual-2", user="lab2", colour=SEAT_COLOURS[1])])
    rig.run("mkdir -p /etc/seatd-lease")
    rig.write_file(CONFIG, m.encode())
    r = rig.run("%s -c %s seat s1" % (BIN, CONFIG), check=False, timeout=90)
    # The session's status is the seat's; no restart in this mode.
    assert r.status == 7, r.stderr
    assert r.stderr.count("-> starting") == 1, r.stderr
    assert "seat s2:" not in r.stderr
    assert rig.run("ls -A /run/seatd-lease").stdout == ""


def test_seat_command_stops_cleanly_on_sigterm(rig):
    with Supervisor(rig, three_seats(), args="seat s2") as sup:
        sup.wait_state("s2", "running")
        assert_head(rig, 2, SEAT_COLOURS[1])
        # SIGHUP's default action would end it; it says why it ignores it.
        xserver = sup.xserver_pid("s2")
        rig.run("kill -HUP %d" % sup.pid())
        sup.wait_log(r"SIGHUP: a seat process does not reload")
        assert sup.running() and sup.xserver_pid("s2") == xserver
        assert sup.stop() == 0
    assert rig.run("pgrep -u lab2", check=False).stdout == ""


def test_a_second_seat_process_on_the_card_says_why_it_cannot(rig):
    # One seat per process cannot work with the drm lessor beyond one seat:
    # the card has one DRM master. The second process says so and exits.
    with Supervisor(rig, three_seats(), args="seat s2") as sup:
        sup.wait_state("s2", "running")
        r = rig.run("%s -c %s seat s1" % (BIN, CONFIG), check=False, timeout=30)
        assert r.status == 1, r.stderr
        assert "the drm lessor makes this process the DRM master of /dev/dri/card0" in r.stderr
        assert re.search(r"cannot become DRM master of /dev/dri/card0: .*another seatd-lease "
                         r"\(the drm lessor serves all seats of a card from one process: "
                         r"seatd-lease run\)", r.stderr), r.stderr
        assert "-> starting" not in r.stderr
        sup.wait_state("s2", "running", timeout=1)
        assert_head(rig, 2, SEAT_COLOURS[1])


def test_a_killed_daemon_cannot_keep_drm_seats_outside_systemd_and_says_so(rig):
    # Outside systemd nothing keeps the card's DRM master open: the kernel
    # revokes every lease with it, and the next run starts the seats afresh.
    sup = Supervisor(rig, three_seats())
    sup.start()
    for i in range(3):
        sup.wait_state("s%d" % (i + 1), "running")
    old = [sup.xserver_pid("s%d" % (i + 1)) for i in range(3)]
    rig.run("kill -9 %d" % sup.pid())
    with Supervisor(rig, three_seats()) as again:
        line = again.wait_log(r"seat s1: not adopted")
        assert "its lease no longer exists" in line, line
        assert "the drm lessor's leases end with the process that held the card" in line
        for i in range(3):
            again.wait_state("s%d" % (i + 1), "running")
            assert again.xserver_pid("s%d" % (i + 1)) not in old
        for i in range(3):
            assert_head(rig, i + 1, SEAT_COLOURS[i])
        assert "adopted from an earlier run" not in again.log()
    assert rig.run("pgrep -u lab1,lab2,lab3 -l", check=False).stdout == ""


# card1 by its stable name, as a lab would write it.
CARD1 = "/dev/dri/by-path/pci-0000:00:%02x.0-card" % rigmod.SLOT_GPU2
TWO_CARD_COLOURS = SEAT_COLOURS + ["#8040c0"]


def two_cards(rig, seats=(1, 2, 3, 4)):
    """s1, s2 on card0's heads 2 and 3, leased from the primary Xorg; s3, s4
    on card1's heads 4 and 5, leased from card1 itself. Each seat has its
    head's keyboard and pointer, and logs its keys."""
    out = []
    for i in seats:
        head = i + 1
        s = input_seat("s%d" % i, head, "lab%d" % i, TWO_CARD_COLOURS[i - 1])
        s["outputs"] = rig.output_name(head)
        if rig.card(head) != "/dev/dri/card0":
            s["extra"] += "card = %s\n" % CARD1
        out.append(s)
    return seat_map("x11", out)


def card_has_master(rig, card):
    """Whether some process is card's DRM master (SET_MASTER says EBUSY):
    asked of the kernel, not of seatd-lease."""
    r = rig.run("python3 -c \"import fcntl, os; fd = os.open('%s', os.O_RDWR); "
                "fcntl.ioctl(fd, 0x641e); fcntl.ioctl(fd, 0x641f)\"" % card, check=False)
    assert r.status == 0 or "Device or resource busy" in r.stderr, r.stderr
    return r.status != 0


def test_wayland_seats_beside_an_x_seat_with_the_drm_lessor(rig):
    """Wayland seats beside an X seat on card0, and on card1 named by its
    by-path link: each compositor is pointed at its card's node (a by-path
    name holds colons, where wlroots splits its list) and gets that card's
    lease."""
    from test_wayland import client_log, wait_client, wayland_seat
    logs = {"w2": "/tmp/libseat-client-w2.log", "w3": "/tmp/libseat-client-w3.log"}
    rig.run("rm -f %s" % " ".join(logs.values()))
    w2 = wayland_seat("w2", 2, "lab2", TWO_CARD_COLOURS[1], log=logs["w2"])
    w3 = wayland_seat("w3", 4, "lab3", TWO_CARD_COLOURS[3], log=logs["w3"])
    w3["outputs"] = rig.output_name(4)
    w3["extra"] += "card = %s\n" % CARD1
    m = seat_map("drm", [dict(name="s1", outputs="Virtual-1", user="lab1",
                              colour=SEAT_COLOURS[0]), w2, w3])
    with Supervisor(rig, m) as sup:
        for seat in ("s1", "w2", "w3"):
            sup.wait_state(seat, "running")
        assert_head(rig, 1, SEAT_COLOURS[0])
        assert_head(rig, 2, TWO_CARD_COLOURS[1])
        assert_head(rig, 4, TWO_CARD_COLOURS[3])
        wait_client(rig, r"^card /dev/dri/card0$", log=logs["w2"])
        wait_client(rig, r"^card /dev/dri/card1$", log=logs["w3"])
        seats = json.loads(rig.run("%s -c %s status --json" % (BIN, CONFIG)).stdout)["seats"]
        for name, card in (("w2", "card0"), ("w3", "card1")):
            pid = {x["name"]: x for x in seats}[name]["compositor_pid"]
            env = rig.run("tr '\\0' '\\n' < /proc/%d/environ" % pid).stdout.splitlines()
            assert "WLR_DRM_DEVICES=/dev/dri/%s" % card in env, env
        assert "opened" not in client_log(rig, logs["w2"]) + client_log(rig, logs["w3"])
        assert sup.stop() == 0
    assert rig.run("pgrep -u lab1,lab2,lab3 -l", check=False).stdout == ""


def test_seats_on_two_cards(rig):
    """Last in the module: it starts the primary Xorg, on card0. s1 and s2
    lease from it, s3 and s4 from card1; each head shows its seat, a key on
    card1's second head reaches s4 alone, check and status name the cards,
    the primary's loss stops card0's seats only, and a reload that drops
    card1's seats lets card1 go."""
    assert rig.output_name(4) == "Virtual-4" and rig.run(
        "ls /sys/class/drm/card1-Virtual-4 /sys/class/drm/card1-Virtual-5").status == 0
    # An Xorg that drives card0 takes card1 as a GPU screen by default:
    # card1's seats wait, saying why and what to change.
    rig.start_xorg()
    with Supervisor(rig, two_cards(rig, seats=(3,))) as sup:
        line = sup.wait_log(r"lessor drm of %s: cannot become DRM master" % re.escape(CARD1))
        assert 'Option "AutoAddGPU" "false"' in line, line
        sup.wait_log(r"seat s3: .*waiting for the drm lessor of %s: cannot become DRM "
                     r"master" % re.escape(CARD1))
        # status says it too, not only the log.
        error = json.loads(rig.run("%s -c %s status --json" % (BIN, CONFIG)).stdout)[
            "seats"][0]["last_error"]
        assert 'Option "AutoAddGPU" "false"' in error, error
    rig.xorg_server.stop()
    rig.start_xorg(auto_add_gpu=False)
    rig.run("xsetroot -solid '%s'" % PRIMARY, env=rig.x_env())
    assert not card_has_master(rig, "/dev/dri/card1")

    rig.write_file(CONFIG, two_cards(rig).encode())
    check = rig.run("%s check %s" % (BIN, CONFIG)).stdout
    assert "card /dev/dri/card0: 2 seats, leased from the X server on :0\n" in check, check
    assert "card %s: 2 seats, leased from the card itself (drm)\n" % CARD1 in check, check
    assert "seat s4: card %s, outputs Virtual-5," % CARD1 in check, check
    # card0 under another name is card0 still: an error, not a second lessor.
    alias = two_cards(rig).replace(CARD1, "/dev/dri/by-path/pci-0000:00:%02x.0-card"
                                   % rigmod.SLOT_GPU, 1)
    rig.write_file("/tmp/alias.ini", alias.encode())
    r = rig.run("%s check /tmp/alias.ini" % BIN, check=False)
    assert r.status == 1 and re.search(
        r"alias.ini:\d+: error: card /dev/dri/by-path/pci-0000:00:01.0-card is "
        r"/dev/dri/card0 \(\[general\]'s card\) by another name", r.stderr), r.stderr

    with Supervisor(rig, two_cards(rig)) as sup:
        for i in range(1, 5):
            sup.wait_state("s%d" % i, "running", timeout=120)
        for i in range(1, 5):
            assert_head(rig, i + 1, TWO_CARD_COLOURS[i - 1], timeout=60)
        assert_head(rig, 1, PRIMARY)
        sup.wait_log(r"lessor drm of %s ready" % re.escape(CARD1))
        st = {s["name"]: s for s in json.loads(rig.run(
            "%s -c %s status --json" % (BIN, CONFIG)).stdout)["seats"]}
        assert [st["s%d" % i]["card"] for i in range(1, 5)] == [
            "/dev/dri/card0", "/dev/dri/card0", CARD1, CARD1], st
        table = rig.run("%s -c %s status" % (BIN, CONFIG)).stdout.splitlines()
        assert table[0].split()[:3] == ["SEAT", "STATE", "CARD"], table
        assert table[4].split()[:4] == ["s4", "running", CARD1[len("/dev/dri/"):],
                                        "Virtual-5(%s)" % st["s4"]["outputs"][0]["crtc"]], table
        # A key on card1's second head reaches s4 alone.
        logs = ["%s/s%d/session.log" % (RUNTIME_DIR, i) for i in range(1, 5)]
        sup.wait_log(r"seat s4: 2 input devices assigned")
        deadline = time.monotonic() + 60
        while presses(rig, logs[3]) == "0":
            assert time.monotonic() < deadline, "seat s4 got no key from head 5"
            rig.send_key(5, "a")
            time.sleep(1)
        time.sleep(1)
        assert [presses(rig, log) for log in logs[:3]] == ["0"] * 3

        # The primary goes: card0's seats wait for it; card1's run on.
        card1_xservers = (sup.xserver_pid("s3"), sup.xserver_pid("s4"))
        rig.xorg_server.stop()
        sup.wait_log(r"lost the x11 lessor")
        sup.wait_state("s1", "waiting")
        sup.wait_state("s2", "waiting")
        assert (sup.xserver_pid("s3"), sup.xserver_pid("s4")) == card1_xservers
        assert_head(rig, 4, TWO_CARD_COLOURS[2])
        assert_head(rig, 5, TWO_CARD_COLOURS[3])
        assert "seat s3: running ->" not in sup.log() and "seat s4: running ->" not in sup.log()
        rig.start_xorg(auto_add_gpu=False)
        sup.wait_state("s1", "running", timeout=90)
        sup.wait_state("s2", "running", timeout=90)
        assert_head(rig, 2, TWO_CARD_COLOURS[0])

        # A reload without card1's seats: card1's lessor goes with them.
        assert card_has_master(rig, "/dev/dri/card1")
        rig.write_file(CONFIG, two_cards(rig, seats=(1, 2)).encode())
        reload = rig.run("%s -c %s reload" % (BIN, CONFIG))
        assert "2 stopped" in reload.stdout and "2 unchanged" in reload.stdout, reload.stdout
        deadline = time.monotonic() + 30
        while card_has_master(rig, "/dev/dri/card1"):
            assert time.monotonic() < deadline, "card1 still has a DRM master:\n" + sup.log()
            time.sleep(0.5)
        assert rig.run("pgrep -u lab3,lab4 -l", check=False).stdout == ""
        sup.wait_state("s1", "running", timeout=1)
    assert rig.run("pgrep -u lab1,lab2,lab3,lab4 -l", check=False).stdout == ""
    assert rig.run("ls -A %s" % RUNTIME_DIR).stdout == ""
