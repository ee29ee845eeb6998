"""The figures scripts/bench prints, each against its budget, and the last
line that names every figure over budget. The budgets and why each is what
it is: docs/figures.md, "Budgets"."""

# A frame at 60 Hz: a head's reclaim is not to be seen.
FRAME_MS = 1000.0 / 60

# A seat's start against its floor (the same lease and the same X server,
# or compositor, started by hand): what seatd-lease adds, as a ratio.
BRING_UP_RATIO = 1.05
# Reclaim, a seat's X server's exit seen to its lease freed: seatd-lease's
# own CPU, median (the emulated kernel's time in its system calls counts
# under TCG), and the wall clock's 95th percentile, under a frame.
RECLAIM_CPU_MS = {"kvm": 1.0, "tcg": 1.5}
RECLAIM_WALL_P95_MS = FRAME_MS
IDLE_CALLS = 0
RSS_3_SEATS_KIB = 4096
RSS_PER_SEAT_KIB = 64
# A restart that keeps its lease against one that leases afresh: quicker.
RESTART_KEPT_RATIO = 1.0
# The daemon killed and started again, to every seat adopted in `status`.
ADOPTION_S = 1.0


def percentile(values, p):
    """The p-th percentile (nearest rank) of values."""
    ranked = sorted(values)
    rank = max(1, -(-len(ranked) * p // 100))
    return ranked[int(rank) - 1]


class Report:
    """Figures in the order they were measured; print() ends with the line
    that names every one over its budget."""

    def __init__(self):
        self.rows = []

    def figure(self, name, value, budget, unit, detail=""):
        """value is over budget when greater than budget."""
        self.rows.append((name, value, budget, unit, detail))
        return value

    def over(self):
        return [r for r in self.rows if r[1] > r[2]]

    def print(self):
        for name, value, budget, unit, detail in self.rows:
            print("%-60s %10s %-5s budget %-9s %s%s" % (
                name, _fmt(value), unit, "<= " + _fmt(budget),
                "OVER" if value > budget else "ok", ("  (%s)" % detail) if detail else ""))
        over = self.over()
        print("%d figures, %d over budget: %s" % (
            len(self.rows), len(over), "; ".join(
                "%s %s %s > %s" % (n, _fmt(v), u, _fmt(b)) for n, v, b, u, _ in over)
            if over else "none"))


def _fmt(x):
    if isinstance(x, int):
        return "%d" % x
    return "%.3f" % x
