#!/usr/bin/env python3
"""spread.py - how far apart two variants' repetitions of one case are:
the ratio of their times with a confidence interval and a Mann-Whitney U
test, for FINDINGS.md (harness/reports/findings.py), the ablation chart
(harness/reports/plots.py) and the paired run's ratios (harness/reports/run.py);
and the same ratio over K processes or rounds (prediction, Rounds): where
one more lands, which is what a rerun checks.

The interval (95%, or 90% with 3 repetitions) is distribution-free: the Hodges-Lehmann estimate of the
shift between the logarithms of the two samples, bounded by the order
statistics of all pairwise differences that the exact null distribution
of U gives (the interval that goes with the U test).  Times are
positive and a ratio is what a reader wants, hence logarithms.

Not for: reading run files (harness/reports/run.py) or laying out tables.
Standard library only.
"""
import math
import statistics
from functools import lru_cache

ALPHA = 0.05  # two-sided: the interval is at least 95% where it can be
# 3 repetitions a side (make bench) reach 90% at most: the whole range of
# the pairwise ratios; fewer, not even that.
MIN_REPETITIONS = 3
ALPHA_FEW = 0.10


@lru_cache(maxsize=None)
def u_counts(n, m):
    """How many of the C(n+m, n) orderings give each U = 0 .. n*m (the
    exact null distribution of Mann-Whitney's U without ties)."""
    if n == 0 or m == 0:
        return (1,)
    # The largest value is from the first sample (adds m) or the second.
    a, b = u_counts(n - 1, m), u_counts(n, m - 1)
    out = [0] * (n * m + 1)
    for u, c in enumerate(a):
        out[u + m] += c
    for u, c in enumerate(b):
        out[u] += c
    return tuple(out)


def u_cdf(n, m, u):
    """P(U <= u) under the null hypothesis."""
    counts = u_counts(n, m)
    if u < 0:
        return 0.0
    return sum(counts[:int(u) + 1]) / sum(counts)


def u_test(xs, ys):
    """Two-sided exact Mann-Whitney p-value (ties count one half)."""
    n, m = len(xs), len(ys)
    u = sum((x > y) + 0.5 * (x == y) for x in xs for y in ys)
    lo, hi = u_cdf(n, m, math.floor(u)), 1 - u_cdf(n, m, math.ceil(u) - 1)
    return min(1.0, 2 * min(lo, hi))


class Spread:
    """old / new: the estimate, its interval (None with too few
    repetitions) and the interval's confidence, p, the repetition counts."""

    def __init__(self, old, new):
        self.n_old, self.n_new = len(old), len(new)
        d = sorted(math.log(x) - math.log(y) for x in old for y in new)
        self.ratio = math.exp(statistics.median(d))
        self.low = self.high = None
        self.p = u_test(old, new)
        self.confidence = None
        n, m = self.n_old, self.n_new
        if min(n, m) < MIN_REPETITIONS:
            return
        # k: the most order statistics cut from each end while
        # P(U < k) stays within alpha / 2.
        k = 0
        while u_cdf(n, m, k) <= ALPHA / 2:
            k += 1
        if k == 0 and u_cdf(n, m, 0) <= ALPHA_FEW / 2:
            k = 1
        if k == 0:
            return
        self.low, self.high = math.exp(d[k - 1]), math.exp(d[len(d) - k])
        self.confidence = 1 - 2 * u_cdf(n, m, k - 1)

    def measured(self):
        """True when the interval excludes 1: a difference beyond the
        noise of these repetitions."""
        return self.low is not None and (self.low > 1 or self.high < 1)

    def verdict(self):
        if self.low is None:
            return (f"too few repetitions ({self.n_old} and {self.n_new}; "
                    f"{MIN_REPETITIONS} needed)")
        if not self.measured():
            return "no measurable difference"
        return "old slower" if self.low > 1 else "old faster"

    def interval(self):
        if self.low is None:
            return "-"
        return (f"{self.low:.2f}-{self.high:.2f} "
                f"({math.floor(100 * self.confidence):d}%)")


# Student's t at 0.995 (two-sided 99%) by degrees of freedom; past the
# table the last value, which only widens the interval.
T_995 = (63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250,
         3.169)
# The same at 0.975 (two-sided 95%).
T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
         2.228)
MIN_PROCESSES = 3


def prediction(ratios):
    """(low, high): where one more process's ratio lands 99 times in
    100, from the ratios that K separate processes gave (K >= 3; None
    with fewer).  The logarithms taken as normal: their mean plus or
    minus t(0.995, K-1) times their deviation times sqrt(1 + 1/K), the
    classic prediction interval.  A process's ratio carries what varies
    within it and what varies from one process to the next, which an
    interval over one process's repetitions cannot."""
    return log_interval(ratios, T_995, 1 + 1 / max(len(ratios), 1))


def mean_interval(ratios):
    """(low, high): the 95% confidence interval of the ratio's geometric
    mean over K processes or rounds (K >= 3; None with fewer), the
    logarithms taken as normal: whether the ratio differs from 1, where
    prediction() says where one more lands."""
    return log_interval(ratios, T_975, 1 / max(len(ratios), 1))


def log_interval(ratios, t, var_factor):
    """exp(mean +- t(K-1) * sd * sqrt(var_factor)) of the ratios'
    logarithms; None with fewer than MIN_PROCESSES ratios."""
    k = len(ratios)
    if k < MIN_PROCESSES:
        return None
    logs = [math.log(r) for r in ratios]
    mid = statistics.mean(logs)
    half = (t[min(k - 1, len(t)) - 1] * statistics.stdev(logs)
            * math.sqrt(var_factor))
    return math.exp(mid - half), math.exp(mid + half)


class Rounds:
    """old / new over K rounds (harness/reports/rounds.py), each round's
    ratio of the two variants' medians: the median of those ratios, the
    99% interval one more round lands in (low, high), and the verdict
    from the 95% confidence interval of their mean.  Answers as Spread
    does, for the same tables; p is None (no rank test over rounds)."""

    def __init__(self, ratios):
        self.rounds = len(ratios)
        self.ratio = statistics.median(ratios)
        self.low, self.high = prediction(ratios)
        self.mean_low, self.mean_high = mean_interval(ratios)
        self.p = None

    def measured(self):
        return self.mean_low > 1 or self.mean_high < 1

    def verdict(self):
        if not self.measured():
            return "no measurable difference"
        return "old slower" if self.mean_low > 1 else "old faster"

    def interval(self):
        return (f"{self.low:.2f}-{self.high:.2f} (99%, one more round; "
                f"{self.rounds} rounds)")


def over_rounds(ratios):
    """A Rounds of the ratios, None with fewer than MIN_PROCESSES."""
    return Rounds(ratios) if len(ratios) >= MIN_PROCESSES else None
