"""The VM rig: a QEMU guest with a multi-head virtio GPU, one keyboard and one
pointer bound to each head, real udev and (on request) a primary Xorg.

The guest is made of the host's own Debian packages: the host's kernel, a small
initramfs from tests/vm/mkinitramfs and the host's root shared read-only over
9p, so a path means the same file in the guest as on the host (the build
directory's binaries run there as they are). The guest writes to tmpfs and
overlays; $SEATD_LEASE_BUILD/vm is shared writable at its own path.

Heads are numbered from 1, like the guest's connectors Virtual-1..N. (QEMU's
own head indices start at 0; only this module deals with them.)
"""

import atexit
import base64
import collections
import ctypes
import glob
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import struct
import sys
import subprocess
import tempfile
import time
import zlib

import accel

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

MAX_HEADS = 9
# Each head's size unless a Rig says otherwise (head_size).
HEAD_WIDTH, HEAD_HEIGHT = 1024, 768
HOTPLUG_PORTS = 4
USB_PORTS = 4
# A USB device the guest has not seen after this many seconds is plugged in again.
USB_ENUMERATION_RETRY = 15

# Fixed PCI addresses (slot numbers on bus 0), so that the guest's ID_PATH of
# every device is known in advance, as a seat map's path: match needs it.
# tests/vm/README.md lists the same table.
SLOT_GPU = 0x01
SLOT_AGENT = 0x02
SLOT_HOSTROOT = 0x03
SLOT_RESULTS = 0x04
SLOT_USB = 0x05  # qemu-xhci "usb": USB devices go on its ports (rig.usb_add)
SLOT_GPU2 = 0x06  # the second card's virtio-gpu (Rig(heads2=N)), the guest's card1
AUDIODEV = "noaudio"  # QEMU's silent audiodev: usb_add("usb-audio", P, audiodev=AUDIODEV)
SLOT_KEYBOARD_1 = 0x08  # head N's keyboard, N <= 8: 0x08 + N - 1
SLOT_POINTER_1 = 0x10  # head N's pointer, N <= 8: 0x10 + N - 1
SLOT_HOTPLUG_1 = 0x18  # pcie-root-port hpN: 0x18 + N - 1; its device sits on bus N
SLOT_KEYBOARD_9 = 0x1c  # head 9's keyboard, after the hotplug ports
SLOT_POINTER_9 = 0x1d  # head 9's pointer

# Where things are in the guest.
DISPLAY = ":0"
XAUTHORITY = "/run/rig/xauthority"
XORG_LOG = "/var/log/Xorg.0.log"
GUEST_DIR = "/run/rig"
GUEST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

BOOT_TIMEOUT = 120
AGENT_TIMEOUT = 20
XORG_TIMEOUT = 60
SERIAL_TAIL_LINES = 40


def keyboard_slot(head):
    """The PCI slot of the keyboard bound to head 1..MAX_HEADS."""
    _check_head(head, MAX_HEADS)
    return SLOT_KEYBOARD_9 if head == 9 else SLOT_KEYBOARD_1 + head - 1


def pointer_slot(head):
    """The PCI slot of the pointer (a virtio tablet) bound to head."""
    _check_head(head, MAX_HEADS)
    return SLOT_POINTER_9 if head == 9 else SLOT_POINTER_1 + head - 1


def keyboard_id_path(head):
    """ID_PATH (udev) of the keyboard bound to head 1..MAX_HEADS."""
    return "pci-0000:00:%02x.0" % keyboard_slot(head)


def pointer_id_path(head):
    """ID_PATH (udev) of the pointer (a virtio tablet) bound to head."""
    return "pci-0000:00:%02x.0" % pointer_slot(head)


def hotplug_id_path(port):
    """ID_PATH of a device hot-added into root port 1..HOTPLUG_PORTS."""
    if not 1 <= port <= HOTPLUG_PORTS:
        raise ValueError("no hotplug port %r" % (port,))
    return "pci-0000:%02x:00.0" % port


def usb_id_path(port):
    """ID_PATH of the (first interface of the) USB device on port: "2" is the
    controller's port 2, "1.3" port 3 of a hub on port 1."""
    return "pci-0000:00:%02x.0-usb-0:%s:1.0" % (SLOT_USB, port)


def usb_syspath(port):
    """The sysfs path of the USB device on port (see usb_id_path)."""
    hops = port.split(".")
    return "/sys/devices/pci0000:00/0000:00:%02x.0/usb1/" % SLOT_USB + "/".join(
        "1-" + ".".join(hops[:i]) for i in range(1, len(hops) + 1))


def build_dir():
    return os.path.abspath(os.environ.get("SEATD_LEASE_BUILD") or os.path.join(TOP, "build"))


def _check_head(head, heads):
    if not 1 <= head <= heads:
        raise ValueError("no head %r: heads are 1..%d" % (head, heads))


class RigError(Exception):
    pass


class RigTimeout(RigError):
    pass


class GuestCommandError(RigError):
    def __init__(self, command, result):
        super().__init__("guest command failed with status %s: %s\n--- stdout\n%s--- stderr\n%s"
                         % (result.status, command, result.stdout, result.stderr))
        self.result = result


Result = collections.namedtuple("Result", "status stdout stderr")


def _deadline_passed(deadline):
    return time.monotonic() > deadline


class _JsonSocket:
    """Line-delimited JSON over a unix socket, as QMP and qemu-ga speak it."""

    def __init__(self, path, timeout):
        deadline = time.monotonic() + timeout
        while True:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.sock.close()
                if _deadline_passed(deadline):
                    raise RigTimeout("no socket %s after %ds" % (path, timeout))
                time.sleep(0.05)
        self.buf = b""

    # recv() leaves whatever time its caller had left as the socket's timeout,
    # often a fraction of a second: sending needs its own.
    SEND_TIMEOUT = 10

    def send(self, obj, prefix=b""):
        """Raises RigTimeout when the other end stops reading (a guest whose
        agent is not up yet): the callers' waits retry on it."""
        self.sock.settimeout(self.SEND_TIMEOUT)
        try:
            self.sock.sendall(prefix + json.dumps(obj).encode() + b"\n")
        except socket.timeout:
            raise RigTimeout("nothing reads %s: its peer is not up yet"
                             % self.sock.getpeername()) from None

    def recv(self, deadline):
        """The next JSON message, or None at the deadline."""
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return None
            if not data:
                raise RigError("connection closed by QEMU")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        # qemu-ga answers guest-sync-delimited after a 0xff byte, which also
        # marks where stale output of an earlier agent session ends.
        line = line[line.rfind(b"\xff") + 1:].strip()
        if not line:
            return self.recv(deadline)
        return json.loads(line)

    def close(self):
        self.sock.close()


class Qmp(_JsonSocket):
    def __init__(self, path, timeout):
        super().__init__(path, timeout)
        self.events = []
        self.recv(time.monotonic() + timeout)  # greeting
        self.execute("qmp_capabilities")

    def execute(self, command, timeout=30, **arguments):
        self.send({"execute": command, "arguments": arguments})
        deadline = time.monotonic() + timeout
        while True:
            msg = self.recv(deadline)
            if msg is None:
                raise RigTimeout("QMP %s: no answer in %ds" % (command, timeout))
            if "event" in msg:
                self.events.append(msg)
            elif "error" in msg:
                raise RigError("QMP %s %s: %s" % (command, arguments, msg["error"]["desc"]))
            elif "return" in msg:
                return msg["return"]

    def wait_event(self, name, timeout, **data):
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event["event"] == name and all(event.get("data", {}).get(k) == v
                                                  for k, v in data.items()):
                    self.events.remove(event)
                    return event
            msg = self.recv(deadline)
            if msg is None:
                raise RigTimeout("no QMP event %s %s in %ds" % (name, data, timeout))
            if "event" in msg:
                self.events.append(msg)


class Agent(_JsonSocket):
    """qemu-ga in the guest, over virtio-serial. It answers at once (commands
    run detached), so no answer in AGENT_TIMEOUT s means a stuck guest."""

    stale = False

    def sync(self, timeout):
        """Wait for the agent to answer, skipping whatever an earlier session
        (or a command that timed out) left."""
        deadline = time.monotonic() + timeout
        while not _deadline_passed(deadline):
            token = secrets.randbelow(2**31)
            self.send({"execute": "guest-sync-delimited", "arguments": {"id": token}}, prefix=b"\xff")
            attempt = min(deadline, time.monotonic() + 1)
            while True:
                msg = self.recv(attempt)
                if msg is None:
                    break
                if msg.get("return") == token:
                    self.stale = False
                    return
        raise RigTimeout("the guest agent did not answer in %ds" % timeout)

    def execute(self, command, timeout=AGENT_TIMEOUT, **arguments):
        if self.stale:
            self.sync(timeout)
        self.send({"execute": command, "arguments": arguments})
        msg = self.recv(time.monotonic() + timeout)
        if msg is None:
            # Its answer may still come: skip it before the next command.
            self.stale = True
            raise RigTimeout("guest agent %s: no answer in %ds" % (command, timeout))
        if "error" in msg:
            raise RigError("guest agent %s: %s" % (command, msg["error"]["desc"]))
        return msg["return"]


class Picture:
    """An RGB picture of one head."""

    def __init__(self, width, height, rgb):
        self.width, self.height, self.rgb = width, height, rgb

    @classmethod
    def from_ppm(cls, data):
        match = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
        if not match or match.group(3) != b"255":
            raise RigError("not an 8-bit PPM picture")
        width, height = int(match.group(1)), int(match.group(2))
        rgb = data[match.end():match.end() + width * height * 3]
        if len(rgb) != width * height * 3:
            raise RigError("truncated PPM picture")
        return cls(width, height, rgb)

    def pixel(self, x, y):
        i = (y * self.width + x) * 3
        return tuple(self.rgb[i:i + 3])

    def colours(self, step=7):
        """How many of every step-th pixel have each colour: enough to tell
        what fills a head, at a fraction of the cost of counting them all."""
        rgb, stride = self.rgb, 3 * step
        return collections.Counter(rgb[i:i + 3] for i in range(0, len(rgb), stride))

    def dominant(self):
        """The colour of most pixels, as (r, g, b)."""
        return tuple(self.colours().most_common(1)[0][0])

    def share(self, colour):
        """Which fraction of the pixels have this (r, g, b) colour."""
        counts = self.colours()
        return counts[bytes(colour)] / sum(counts.values())

    def save_png(self, path):
        def chunk(kind, data):
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
        row = self.width * 3
        raw = b"".join(b"\0" + self.rgb[y * row:(y + 1) * row] for y in range(self.height))
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n"
                    + chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(raw, 6))
                    + chunk(b"IEND", b""))


def colour(spec):
    """'#rrggbb' as (r, g, b)."""
    return tuple(bytes.fromhex(spec.lstrip("#")))


class Background:
    """A command running in the guest, in its own process group, its output in
    a log file that failure reports include."""

    def __init__(self, rig, pid, command, log):
        self.rig, self.pid, self.command, self.log = rig, pid, command, log
        self.status = None

    def running(self):
        if self.status is None:
            st = self.rig._agent_call("guest-exec-status", pid=self.pid)
            if st["exited"]:
                self.status = st.get("exitcode", 128 + st.get("signal", 0))
        return self.status is None

    def wait(self, timeout):
        """The command's exit status; RigTimeout if it still runs after timeout s."""
        deadline = time.monotonic() + timeout
        while self.running():
            if _deadline_passed(deadline):
                raise RigTimeout("guest command still running after %ds: %s\n%s"
                                 % (timeout, self.command, self.rig.serial_tail()))
            time.sleep(0.1)
        return self.status

    def stop(self, timeout=10):
        """SIGTERM to its process group, SIGKILL if that is not enough."""
        if not self.running():
            return self.status
        self.rig.run("kill -TERM -%d" % self.pid, check=False)
        try:
            return self.wait(timeout)
        except RigTimeout:
            self.rig.run("kill -KILL -%d" % self.pid, check=False)
            return self.wait(5)

    def output(self):
        return self.rig.run("cat %s" % shlex.quote(self.log)).stdout


class UsbDevice:
    """A device on a port of the rig's USB controller (see usb_id_path).
    nodes are its event nodes (none for a hub)."""

    def __init__(self, driver, port):
        self.driver, self.port = driver, port
        self.qemu_id = "usb-" + port.replace(".", "-")
        self.id_path, self.syspath = usb_id_path(port), usb_syspath(port)
        self.nodes = []


class HotKeyboard:
    """A keyboard hot-added into root port hp<port>, bound to head. node and
    id_path are what the guest made of it."""

    def __init__(self, port, head):
        self.port, self.head = port, head
        self.qemu_id = "hotkeyboard%d" % port
        self.node = self.id_path = None


def _die_with_parent():
    # QEMU must not outlive the test run, even one killed with SIGKILL.
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _qemu_path_option(path):
    # QEMU's option syntax: a comma inside a value is written twice.
    return path.replace(",", ",,")


def guest_kernel():
    """(version, vmlinuz) of the newest host kernel whose modules are installed."""
    found = []
    for vmlinuz in glob.glob("/boot/vmlinuz-*"):
        version = vmlinuz[len("/boot/vmlinuz-"):]
        if os.path.isdir("/lib/modules/%s/kernel" % version):
            found.append((version, vmlinuz))
    if not found:
        raise RigError("no /boot/vmlinuz-* with modules in /lib/modules: install linux-image-amd64")
    return max(found, key=lambda kv: [int(n) if n.isdigit() else n
                                      for n in re.split(r"(\d+)", kv[0])])


def initramfs(version):
    """The rig's initramfs for this kernel, rebuilt when its sources changed."""
    out = os.path.join(build_dir(), "vm", "initramfs-%s.cpio.gz" % version)
    sources = [os.path.join(HERE, name) for name in ("mkinitramfs", "initramfs-init")]
    if not os.path.exists(out) or any(os.path.getmtime(s) > os.path.getmtime(out) for s in sources):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run([os.path.join(HERE, "mkinitramfs"), out, version], check=True, timeout=120)
    return out


_live = set()
# The rig booted last, dead or alive: what a failure report looks at when the
# failing test never got its rig (it failed to boot).
latest = None


@atexit.register
def _kill_leftovers():
    for rig in list(_live):
        rig.kill()


class Rig:
    """One guest. Use as a context manager, or call boot() and shutdown().

    name names its directory, $SEATD_LEASE_BUILD/vm/<name>/ (serial log,
    QEMU's own log, screendumps). writable_usr puts a tmpfs overlay on /usr
    too, for packages the guest installs and the host must not have."""

    def __init__(self, name, heads=3, xorg=False, memory="2G", init="rig", writable_usr=False,
                 head_size=(HEAD_WIDTH, HEAD_HEIGHT), heads2=0, etc=None, cmdline=()):
        """heads2: heads on a second card (video1, the guest's card1), numbered
        after the first card's: with heads=3, heads2=2, heads 4 and 5 are
        card1's Virtual-1 and Virtual-2. Each head has its keyboard and
        pointer; the primary Xorg (xorg=True) drives the first card alone.
        etc: a host directory whose files are copied into the guest's /etc
        before its init starts (what a test needs there at boot). cmdline:
        more words for the guest kernel's command line (and, under systemd,
        for what systemd reads as that)."""
        _check_head(heads + heads2, MAX_HEADS)
        self.head_width, self.head_height = head_size
        if init not in ("rig", "systemd"):
            raise ValueError("init is 'rig' (guest-init) or 'systemd', not %r" % (init,))
        self.name, self.heads, self.xorg, self.memory = name, heads, xorg, memory
        self.heads2 = heads2
        self.all_heads = heads + heads2
        self.init, self.writable_usr = init, writable_usr
        self.etc, self.cmdline = etc, list(cmdline)
        self.share = os.path.join(build_dir(), "vm")
        self.dir = os.path.join(self.share, name)
        self.serial_log = os.path.join(self.dir, "serial.log")
        self.guest_logs = ["/var/log/Xorg.*.log"]
        self._proc = self._qmp = self._agent = self._sockets = None
        self._hotplugged = []
        self._usb = []
        self._spawned = 0

    # --- life cycle

    def __enter__(self):
        self.boot()
        return self

    def __exit__(self, *exc):
        self.shutdown()

    def boot(self):
        global latest
        latest = self
        try:
            self.accel = accel.choice()
        except accel.AccelError as e:
            raise RigError(str(e)) from None
        version, vmlinuz = guest_kernel()
        initrd = initramfs(version)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        # Unix socket paths are short (108 bytes): keep them out of the build dir.
        self._sockets = tempfile.mkdtemp(prefix="seatd-lease-rig.")
        qmp_sock = os.path.join(self._sockets, "qmp")
        agent_sock = os.path.join(self._sockets, "agent")
        with open(os.path.join(self.dir, "qemu.log"), "wb") as qemu_log:
            self._proc = subprocess.Popen(
                self._qemu_command(vmlinuz, initrd, qmp_sock, agent_sock),
                stdin=subprocess.DEVNULL, stdout=qemu_log, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=_die_with_parent)
        _live.add(self)
        try:
            started = time.monotonic()
            self._qmp = Qmp(qmp_sock, timeout=10)
            self._agent = Agent(agent_sock, timeout=10)
            self._wait_agent(BOOT_TIMEOUT)
            self.boot_seconds = time.monotonic() - started
            self.run("mkdir -p %s" % GUEST_DIR)
            if self.xorg:
                self.start_xorg()
        except BaseException:
            self.kill()
            raise

    def _qemu_command(self, vmlinuz, initrd, qmp_sock, agent_sock):
        cmdline = ["console=ttyS0", "quiet", "loglevel=3", "panic=-1", "mitigations=off",
                   "tsc=reliable", "no_timer_check",
                   "rig.init=" + os.path.join(HERE, "guest-init"), "rig.share=" + self.share]
        if self.writable_usr:
            cmdline.append("rig.usr=rw")
        if self.etc is not None:
            if any(c.isspace() for c in self.etc):
                raise RigError("etc=%r: the kernel's command line splits at spaces" % (self.etc,))
            cmdline.append("rig.etc=" + self.etc)
        cmdline += self.cmdline
        if self.init == "systemd":
            # systemd in the guest may read its command line from its own
            # arguments (initramfs-init says why): the same words there.
            cmdline += ["rig.systemd.arg=" + word for word in self.cmdline]
        if self.init == "systemd":
            cmdline += ["rig.systemd=1", "systemd.unit=rig.target", "systemd.show_status=0"]
        # Without a QEMU display only head 1 would be connected.
        # The kernel numbers virtual connectors across cards: the second
        # card's heads are Virtual-<heads + 1> on (output_name).
        cmdline += ["video=%s:%dx%de" % (self.output_name(h), self.head_width, self.head_height)
                    for h in range(1, self.all_heads + 1)]
        cmd = ["qemu-system-x86_64", *self.accel.args,
               "-machine", "q35,i8042=off",  # no PS/2 keyboard to take unbound input
               "-smp", "2", "-m", self.memory, "-nodefaults", "-no-reboot",
               "-display", "none", "-vga", "none", "-monitor", "none",
               "-serial", "file:" + _qemu_path_option(self.serial_log),
               "-qmp", "unix:%s,server=on,wait=off" % _qemu_path_option(qmp_sock),
               "-kernel", vmlinuz, "-initrd", initrd, "-append", " ".join(cmdline),
               "-device", "virtio-gpu-pci,id=video0,max_outputs=%d,addr=0x%x" % (self.heads, SLOT_GPU),
               *(["-device", "virtio-gpu-pci,id=video1,max_outputs=%d,addr=0x%x"
                  % (self.heads2, SLOT_GPU2)] if self.heads2 else []),
               "-chardev", "socket,id=agent,path=%s,server=on,wait=off" % _qemu_path_option(agent_sock),
               "-device", "virtio-serial-pci,id=serial0,addr=0x%x" % SLOT_AGENT,
               "-device", "virtserialport,bus=serial0.0,chardev=agent,name=org.qemu.guest_agent.0",
               "-fsdev", "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap",
               "-device", "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot,addr=0x%x" % SLOT_HOSTROOT,
               "-fsdev", "local,id=results,path=%s,security_model=none,multidevs=remap"
               % _qemu_path_option(self.share),
               "-device", "virtio-9p-pci,fsdev=results,mount_tag=results,addr=0x%x" % SLOT_RESULTS]
        for head in range(1, self.all_heads + 1):
            bind = "display=%s,head=%d" % self._video(head)
            cmd += ["-device", "virtio-keyboard-pci,id=keyboard%d,%s,addr=0x%x"
                    % (head, bind, keyboard_slot(head)),
                    "-device", "virtio-tablet-pci,id=pointer%d,%s,addr=0x%x"
                    % (head, bind, pointer_slot(head))]
        # USB 2 and 3 ports share numbers; low-speed devices use the USB 2 side.
        cmd += ["-device", "qemu-xhci,id=usb,p2=%d,p3=%d,addr=0x%x" % (USB_PORTS, USB_PORTS, SLOT_USB)]
        # A silent sound backend, for usb-audio devices (usb_add).
        cmd += ["-audiodev", "none,id=%s" % AUDIODEV]
        for port in range(1, HOTPLUG_PORTS + 1):
            cmd += ["-device", "pcie-root-port,id=hp%d,chassis=%d,addr=0x%x"
                    % (port, port, SLOT_HOTPLUG_1 + port - 1)]
        return cmd

    def _wait_agent(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            self.check_alive()
            try:
                self._agent.sync(timeout=min(5, max(1, deadline - time.monotonic())))
                return
            except RigTimeout:
                if _deadline_passed(deadline):
                    raise RigTimeout("the guest did not come up in %ds\n%s"
                                     % (timeout, self.serial_tail())) from None

    def check_alive(self):
        """RigError unless QEMU still runs."""
        if self._proc is None or self._proc.poll() is not None:
            code = None if self._proc is None else self._proc.returncode
            raise RigError("QEMU is not running (exit status %s); see %s\n%s"
                           % (code, os.path.join(self.dir, "qemu.log"), self.serial_tail()))

    def shutdown(self, timeout=20):
        """Power the guest off, and make sure QEMU is gone."""
        if self._proc is None:
            return
        try:
            if self._proc.poll() is None:
                # sysrq powers off at once; the agent gets no chance to answer.
                self._agent.send({"execute": "guest-exec", "arguments": {
                    "path": "/bin/sh", "arg": ["-c", "sync; echo o >/proc/sysrq-trigger"]}})
                self._proc.wait(timeout)
        except (OSError, RigError, subprocess.TimeoutExpired):
            pass
        finally:
            self.kill()

    def kill(self):
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._proc.wait()
        for conn in (self._qmp, self._agent):
            if conn is not None:
                conn.close()
        if self._sockets:
            shutil.rmtree(self._sockets, ignore_errors=True)
        self._proc = self._qmp = self._agent = self._sockets = None
        _live.discard(self)

    def _agent_call(self, command, **arguments):
        self.check_alive()
        try:
            return self._agent.execute(command, **arguments)
        except RigTimeout as e:
            raise RigTimeout("%s: the guest is stuck\n%s" % (e, self.serial_tail())) from None

    def serial_tail(self, lines=SERIAL_TAIL_LINES):
        try:
            with open(self.serial_log, errors="replace") as f:
                tail = f.readlines()[-lines:]
        except OSError as e:
            return "(no serial log: %s)" % e
        return "--- last lines of %s\n%s---" % (self.serial_log, "".join(tail))

    # --- commands in the guest

    def run(self, command, timeout=30, check=True, input=None, env=None):
        """Run a shell command in the guest as root; Result(status, stdout, stderr).

        A command still running after timeout s is killed and raises RigTimeout,
        as does a guest that does not answer."""
        environment = {"PATH": GUEST_PATH, "HOME": "/root", "LANG": "C.UTF-8"}
        environment.update(env or {})
        args = {"path": "/usr/bin/timeout",
                "arg": ["-k", "2", str(timeout), "/bin/sh", "-c", command],
                "env": ["%s=%s" % kv for kv in environment.items()],
                "capture-output": True}
        if input is not None:
            args["input-data"] = base64.b64encode(input).decode()
        pid = self._agent_call("guest-exec", **args)["pid"]
        deadline = time.monotonic() + timeout + 10
        while True:
            st = self._agent_call("guest-exec-status", pid=pid)
            if st["exited"]:
                break
            if _deadline_passed(deadline):
                raise RigTimeout("guest stuck running: %s\n%s" % (command, self.serial_tail()))
            self.check_alive()
            time.sleep(0.05)
        result = Result(st.get("exitcode", 128 + st.get("signal", 0)),
                        base64.b64decode(st.get("out-data", "")).decode(errors="replace"),
                        base64.b64decode(st.get("err-data", "")).decode(errors="replace"))
        if result.status == 124:  # timeout(1)'s own status
            raise RigTimeout("guest command timed out after %ds: %s\n--- stdout\n%s--- stderr\n%s%s"
                             % (timeout, command, result.stdout, result.stderr, self.serial_tail()))
        if check and result.status != 0:
            raise GuestCommandError(command, result)
        return result

    def spawn(self, command, name=None, env=None):
        """Start a long-running shell command in the guest as root; a Background."""
        self._spawned += 1
        log = "%s/%s.log" % (GUEST_DIR, name or "background-%d" % self._spawned)
        environment = {"PATH": GUEST_PATH, "HOME": "/root", "LANG": "C.UTF-8"}
        environment.update(env or {})
        # setsid: its own process group, which stop() signals as a whole.
        pid = self._agent_call("guest-exec", path="/usr/bin/setsid", arg=[
            "/bin/sh", "-c", 'exec >"$1" 2>&1; eval "$2"', "sh", log, command],
            env=["%s=%s" % kv for kv in environment.items()])["pid"]
        self.add_log(log)
        return Background(self, pid, command, log)

    def write_file(self, path, data, mode=0o644):
        self.run("umask 077; cat >%s && chmod %o %s" % (shlex.quote(path), mode, shlex.quote(path)),
                 input=data)

    def add_log(self, pattern):
        """Have failure reports include these guest files (a shell glob)."""
        self.guest_logs.append(pattern)

    def wait_until(self, command, timeout=20, env=None):
        """Wait in the guest until a shell condition holds; RigTimeout if it never does."""
        loop = "until %s; do sleep 0.1; done" % command
        self.run(loop, timeout=timeout, env=env)

    # --- X

    def x_env(self):
        """The environment of an X client of the primary Xorg."""
        return {"DISPLAY": DISPLAY, "XAUTHORITY": XAUTHORITY}

    def xorg_running(self):
        """Whether the primary Xorg that start_xorg started still runs."""
        server = getattr(self, "xorg_server", None)
        return server is not None and server.running()

    def start_xorg(self, auto_add_gpu=True):
        """The primary Xorg: root, modesetting on card0, every head lit, side by
        side. With a second card, Xorg adds it as a GPU screen (its DRM master)
        unless auto_add_gpu is False."""
        self.write_file(XAUTHORITY, _xauthority(bytes(secrets.token_bytes(16))), mode=0o600)
        self.write_file(GUEST_DIR + "/xorg-primary.conf", primary_xorg_conf(
            self.heads, (self.head_width, self.head_height), auto_add_gpu).encode())
        ready = GUEST_DIR + "/xorg-primary.ready"
        # What an earlier primary wrote there must not pass for this one's word:
        # the shell below truncates the file only once it runs.
        self.run("rm -f %s" % ready)
        # -displayfd: Xorg writes its display number there once clients can connect.
        self.xorg_server = self.spawn(
            "exec /usr/lib/xorg/Xorg %s -seat seat0 vt1 -novtswitch -nolisten tcp -noreset"
            " -auth %s -config %s -logfile %s -displayfd 3 3>%s"
            % (DISPLAY, XAUTHORITY, GUEST_DIR + "/xorg-primary.conf", XORG_LOG, ready),
            name="xorg-primary")
        try:
            self.wait_until("[ -s %s ]" % ready, timeout=XORG_TIMEOUT)
        except RigTimeout:
            raise RigTimeout("the primary Xorg did not start in %ds\n%s"
                             % (XORG_TIMEOUT, self.run("tail -n 30 " + XORG_LOG,
                                                       check=False).stdout)) from None

    # --- pictures

    def output_name(self, head):
        """The kernel's name of head's connector. Debian 12's kernel numbers
        connectors of a type across all cards, in probe order: card1's first
        head is Virtual-<heads + 1>, not Virtual-1."""
        _check_head(head, self.all_heads)
        return "Virtual-%d" % head

    def card(self, head):
        """The guest's card of head: /dev/dri/card0, or card1 for a second
        card's."""
        return "/dev/dri/card%d" % (0 if self._video(head)[0] == "video0" else 1)

    def _video(self, head):
        """QEMU's device and head index of rig head 1..all_heads."""
        _check_head(head, self.all_heads)
        return ("video0", head - 1) if head <= self.heads else ("video1", head - self.heads - 1)

    def screendump(self, head):
        """Head 1..N's picture, as QEMU shows it."""
        device, index = self._video(head)
        path = os.path.join(self.dir, "screendump.ppm")
        self._qmp.execute("screendump", filename=path, device=device, head=index)
        with open(path, "rb") as f:
            return Picture.from_ppm(f.read())

    def wait_for_colour(self, head, rgb, share=0.9, timeout=10):
        """Head's picture once at least share of it is rgb, or the last one
        taken when timeout s have passed: the caller asserts on it."""
        deadline = time.monotonic() + timeout
        while True:
            picture = self.screendump(head)
            if picture.share(rgb) >= share or _deadline_passed(deadline):
                return picture
            time.sleep(0.2)

    # --- input

    def send_key(self, head, *keys):
        """Press keys (QEMU qcodes: 'a', 'shift', 'ret', ...) together on
        head's keyboard, then release them."""
        _check_head(head, self.all_heads)
        events = [{"type": "key", "data": {"down": True, "key": {"type": "qcode", "data": k}}}
                  for k in keys]
        self.send_events(head, events)
        for event in reversed(events):
            self.send_events(head, [{"type": "key", "data": dict(event["data"], down=False)}])

    def click(self, head, x, y, button="left"):
        """Click at (x, y) of head's picture with head's pointer."""
        _check_head(head, self.all_heads)
        self.send_events(head, [
            {"type": "abs", "data": {"axis": "x", "value": x * 0x7fff // (self.head_width - 1)}},
            {"type": "abs", "data": {"axis": "y", "value": y * 0x7fff // (self.head_height - 1)}}])
        for down in (True, False):
            self.send_events(head, [{"type": "btn", "data": {"down": down, "button": button}}])

    def send_events(self, head, events):
        """QMP input events (input-send-event's list) to head's keyboard and
        pointer, as they are: a key held down stays down."""
        device, index = self._video(head)
        self._qmp.execute("input-send-event", device=device, head=index, events=events)

    # --- hotplug

    def hotplug_keyboard(self, head, timeout=30):
        """Hot-add a keyboard bound to head into a free root port. Returns once
        udev has made its event node, with the ID_PATH the guest gave it."""
        _check_head(head, self.all_heads)
        taken = {hk.port for hk in self._hotplugged}
        free = [p for p in range(1, HOTPLUG_PORTS + 1) if p not in taken]
        if not free:
            raise RigError("all %d hotplug ports are taken" % HOTPLUG_PORTS)
        keyboards = "/dev/input/by-path/*-event-kbd"
        before = self.run("ls %s" % keyboards).stdout.split()
        hk = HotKeyboard(free[0], head)
        self._qmp.execute("device_add", driver="virtio-keyboard-pci", id=hk.qemu_id,
                          bus="hp%d" % hk.port, display=self._video(head)[0],
                          head=self._video(head)[1])
        self._hotplugged.append(hk)
        self.wait_until("[ $(ls %s | wc -l) -gt %d ]" % (keyboards, len(before)), timeout=timeout)
        new = set(self.run("ls %s" % keyboards).stdout.split()) - set(before)
        hk.node = new.pop()
        hk.id_path = re.search(r"^ID_PATH=(.*)$", self.run("udevadm info -q property %s" % hk.node).stdout,
                               re.M).group(1)
        return hk

    def unplug(self, hk, timeout=30):
        """Remove a hot-added device; returns once the guest has let go of it."""
        self._qmp.execute("device_del", id=hk.qemu_id)
        self._qmp.wait_event("DEVICE_DELETED", timeout, device=hk.qemu_id)
        self._hotplugged.remove(hk)
        self.wait_until("[ ! -e %s ]" % hk.node, timeout=timeout)

    # --- USB

    def usb_add(self, driver, port, timeout=30, disk=None, **props):
        """Plug a QEMU USB device (usb-kbd, usb-mouse, usb-tablet, usb-hub,
        and others such as usb-audio or usb-storage) into port ("1", or "1.2"
        behind a hub on port 1). disk: a raw image on the host, the
        usb-storage's medium; props: more of the device's QEMU properties.
        Returns once the guest has its sysfs device and, for input devices,
        its event nodes. USB devices are bound to no head: usb_key and
        usb_click reach them."""
        if not 1 <= int(port.split(".")[0]) <= USB_PORTS:
            raise ValueError("no USB port %r: the controller has 1..%d" % (port, USB_PORTS))
        dev = UsbDevice(driver, port)
        if disk is not None:
            dev.node_name = "disk-" + dev.qemu_id
            self._qmp.execute("blockdev-add", driver="raw", **{"node-name": dev.node_name},
                              file={"driver": "file", "filename": disk})
            props["drive"] = dev.node_name
        self._qmp.execute("device_add", driver=driver, id=dev.qemu_id, bus="usb.0", port=port,
                          **props)
        self._usb.append(dev)
        try:
            self._usb_wait_ready(dev, min(timeout, USB_ENUMERATION_RETRY))
        except RigTimeout:
            # Under TCG the guest once missed a keyboard plugged in behind a
            # hub it had just set up (CI, 2026-12-04). The rig plugs it in
            # once more, and says so; it is the guest's USB stack, not ours.
            sys.stderr.write("rig: %s on port %s not seen by the guest in %d s; plugged in again."
                             " The guest's USB:\n%s\n" % (driver, port, USB_ENUMERATION_RETRY,
                                                          self._usb_report()))
            self._qmp.execute("device_del", id=dev.qemu_id)
            self._qmp.wait_event("DEVICE_DELETED", timeout, device=dev.qemu_id)
            self._qmp.execute("device_add", driver=driver, id=dev.qemu_id, bus="usb.0",
                              port=port, **props)
            self._usb_wait_ready(dev, timeout)
        return dev

    def _usb_wait_ready(self, dev, timeout):
        if dev.driver == "usb-hub":
            # Its ports exist once the guest's hub driver has set it up.
            name = os.path.basename(dev.syspath)
            self.wait_until("[ -e %s/%s:1.0/%s-port1 ]" % (dev.syspath, name, name),
                            timeout=timeout)
        elif dev.driver in ("usb-kbd", "usb-mouse", "usb-tablet"):
            self.wait_until("ls /dev/input/by-path/%s-event* >/dev/null 2>&1" % dev.id_path,
                            timeout=timeout)
            dev.nodes = sorted(set(self.run("readlink -f /dev/input/by-path/%s-event*"
                                            % dev.id_path).stdout.split()))
        else:
            # USB 2 or 3: the guest puts a super-speed device on the second bus.
            self.wait_until("ls -d /sys/bus/usb/devices/*-%s >/dev/null 2>&1" % dev.port,
                            timeout=timeout)

    def _usb_report(self):
        return self.run("ls /sys/bus/usb/devices; dmesg | grep -i usb | tail -n 20",
                        check=False).stdout

    def usb_remove(self, dev, timeout=30):
        """Unplug a device usb_add plugged in; returns once the guest has let
        go of it."""
        self._qmp.execute("device_del", id=dev.qemu_id)
        self._qmp.wait_event("DEVICE_DELETED", timeout, device=dev.qemu_id)
        self._usb.remove(dev)
        if getattr(dev, "node_name", None):
            self._qmp.execute("blockdev-del", **{"node-name": dev.node_name})
        self.wait_until("[ ! -e %s ]" % dev.syspath, timeout=timeout)

    def plugged(self):
        """Every device hot-added (hotplug_keyboard, usb_add) and not
        taken out yet, the first first."""
        return list(self._hotplugged) + list(self._usb)

    def usb_remove_all(self, timeout=30):
        """Unplug every device usb_add plugged in, the last first."""
        for dev in reversed(list(self._usb)):
            self.usb_remove(dev, timeout)

    def usb_key(self, *keys):
        """Press keys together on a USB keyboard, then release them. QEMU gives
        input bound to no head to the keyboard plugged in last."""
        events = [{"type": "key", "data": {"down": True, "key": {"type": "qcode", "data": k}}}
                  for k in keys]
        self._qmp.execute("input-send-event", events=events)
        for event in reversed(events):
            self._qmp.execute("input-send-event",
                              events=[{"type": "key", "data": dict(event["data"], down=False)}])

    def usb_click(self, button="left"):
        """Click with a USB mouse (or tablet) where its pointer is."""
        for down in (True, False):
            self._qmp.execute("input-send-event",
                              events=[{"type": "btn", "data": {"down": down, "button": button}}])

    # --- when a test fails

    def collect(self, dest):
        """Copy what tells why a test failed into dest (under the build
        directory): serial log, QEMU's log, every head's picture, the guest's
        logs. Best effort: a dead guest still leaves its serial log."""
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        problems = []
        for name in ("serial.log", "qemu.log"):
            try:
                shutil.copy(os.path.join(self.dir, name), dest)
            except OSError as e:
                problems.append("%s: %s" % (name, e))
        if self._proc is not None and self._proc.poll() is None:
            for head in range(1, self.all_heads + 1):
                try:
                    self.screendump(head).save_png(os.path.join(dest, "head-%d.png" % head))
                except (OSError, RigError) as e:
                    problems.append("head %d: %s" % (head, e))
            guest_dest = os.path.join(dest, "guest")
            try:
                # The results share is the host's build/vm at the same path.
                if not guest_dest.startswith(self.share + os.sep):
                    raise RigError("%s is not under the results share %s" % (guest_dest, self.share))
                self.run("mkdir -p {d}; for f in {logs}; do [ -e \"$f\" ] && cp --parents \"$f\" {d}; done;"
                         " dmesg >{d}/dmesg.txt; ps -ef >{d}/ps.txt; true"
                         .format(d=shlex.quote(guest_dest), logs=" ".join(self.guest_logs)), timeout=20)
            except RigError as e:
                problems.append("guest logs: %s" % e)
        if problems:
            with open(os.path.join(dest, "collect-problems.txt"), "w") as f:
                f.write("\n".join(problems) + "\n")
        return dest


def _xauthority(cookie):
    """An Xauthority file with one MIT-MAGIC-COOKIE-1 entry for display 0 on any host."""
    family_wild = 0xffff

    def counted(data):
        return struct.pack(">H", len(data)) + data
    return (struct.pack(">H", family_wild) + counted(b"") + counted(DISPLAY.lstrip(":").encode())
            + counted(b"MIT-MAGIC-COOKIE-1") + counted(cookie))


def primary_xorg_conf(heads, size=(HEAD_WIDTH, HEAD_HEIGHT), auto_add_gpu=True):
    """Modesetting without acceleration (no GL under TCG), each head of size
    (the forced heads would pick 5120x2160) placed right of the one before;
    auto_add_gpu False: other cards are left alone."""
    width, height = size
    flags = [] if auto_add_gpu else ['Section "ServerFlags"', '\tOption "AutoAddGPU" "false"',
                                     "EndSection"]
    device = flags + ['Section "Device"', '\tIdentifier "card0"', '\tDriver "modesetting"',
              '\tOption "kmsdev" "/dev/dri/card0"', '\tOption "AccelMethod" "none"']
    monitors = []
    for head in range(1, heads + 1):
        device.append('\tOption "Monitor-Virtual-%d" "head%d"' % (head, head))
        monitors += ['Section "Monitor"', '\tIdentifier "head%d"' % head,
                     '\tOption "PreferredMode" "%dx%d"' % (width, height),
                     '\tOption "Position" "%d 0"' % ((head - 1) * width), "EndSection"]
    device.append("EndSection")
    screen = ['Section "Screen"', '\tIdentifier "screen0"', '\tDevice "card0"', "EndSection"]
    return "\n".join(device + monitors + screen) + "\n"
