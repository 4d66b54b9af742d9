"""ratios.py FILE TEST:UNIT:A/B,C/D ...: the summary of bench/ref's
alternated scripts. FILE holds "TEST ROUND CELL VALUE" lines (a value of
0: the measurement failed, left out). For each TEST, over the rounds in
which every cell named was measured: each cell's median, and each ratio
A/B's median over the rounds with its 95% interval (the bench's rule,
bench/table.go's medianCI)."""
import statistics
import sys


def ci(q):
    """The k-th smallest and largest of q, k from the binomial tail."""
    n, k, tail, p = len(q), 0, 0.0, 0.5 ** len(q)
    while tail + p <= 0.025:
        tail += p
        p = p * (n - k) / (k + 1)
        k += 1
    s = sorted(q)
    return "%.2f-%.2f" % (s[k - 1], s[n - k]) if k else "too few rounds"


rounds = {}
for line in open(sys.argv[1]):
    test, r, cell, v = line.split()
    if float(v) > 0:
        rounds.setdefault(test, {}).setdefault(r, {})[cell] = float(v)
for spec in sys.argv[2:]:
    test, unit, pairs = spec.split(":")
    pairs = [p.split("/") for p in pairs.split(",")]
    cells = sorted({c for p in pairs for c in p})
    full = [x for x in rounds.get(test, {}).values() if all(c in x for c in cells)]
    print("%s: %d rounds of %d with every cell" % (test, len(full), len(rounds.get(test, {}))))
    if not full:
        continue
    for c in cells:
        print("%-8s %-8s %6.2f %s" % (test, c, statistics.median(x[c] for x in full), unit))
    for a, b in pairs:
        q = [x[a] / x[b] for x in full]
        print("%-8s %s / %s: median %.2f, 95%% interval %s" % (test, a, b, statistics.median(q), ci(q)))
