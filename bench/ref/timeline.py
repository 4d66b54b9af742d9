"""timeline.py NAME A B SIZE: the steps of each message of a ping-pong of
SIZE bytes over rxm's rendezvous on tcp, from the `perf script` system
call traces of its two sides (timeline.sh): the median of each step in
µs, for each direction, over the round trips after the first 40."""
import re
import statistics
import sys

CALL = re.compile(r"\s*\d+\s+([\d.]+):\s+syscalls:sys_(enter|exit)_(\w+):\s*(.*)")


def calls(path, side):
    """(start, end, side, name, result) of every call but empty reads and polls."""
    out, open_ = [], {}
    for line in open(path):
        m = CALL.match(line)
        if not m:
            continue
        t, io, name, rest = float(m[1]), m[2], m[3], m[4].strip()
        if io == "enter":
            open_[name] = t
        elif name in open_:
            r = int(rest, 16) if rest.startswith("0x") else int(rest)
            r = r - 2**64 if r >= 2**63 else r
            if name != "poll" and r > 0:
                out.append((open_.pop(name), t, side, name, r))
    return out


def steps(ev, size):
    """Yields the sending side and its step times (µs) for each message."""
    small = lambda e: 100 < e[4] < 1000
    i = 0
    while i < len(ev):
        e = ev[i]
        if e[3] != "sendmsg" or not small(e):  # the request to send: rxm's RTS
            i += 1
            continue
        x, y = e[2], "B" if e[2] == "A" else "A"

        def after(j, pred):
            while not pred(ev[j]):
                j += 1
            return j
        try:
            got = after(i, lambda f: f[2] == y and f[3] == "recvfrom" and small(f))
            ask = after(got, lambda f: f[2] == y and f[3] == "sendto")  # the read request
            data = after(ask, lambda f: f[2] == x and f[3] == "sendmsg" and f[4] >= size)
            done = after(data, lambda f: f[2] == y and f[3] == "sendto")  # the completion
            reply = after(done, lambda f: f[2] == y and f[3] == "sendmsg" and small(f))
        except IndexError:
            return
        t = [e[0], ev[got][0], ev[ask][0], ev[data][0], ev[data][1], ev[done][0], ev[reply][0]]
        yield x, [(b - a) * 1e6 for a, b in zip(t, t[1:])] + [(t[-1] - t[0]) * 1e6]
        i = data + 1


def main():
    name, a, b, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    ev = sorted(calls(a, "A") + calls(b, "B"))
    ev = [e for e in ev if e[3] in ("sendmsg", "sendto", "recvfrom")]
    heads = ["request", "read request", "to the data", "data sendmsg", "to completion", "to next request", "message"]
    print(f"{name}: median µs of each step of a {size}-byte message")
    print("  %-5s" % "from" + "".join("%16s" % h for h in heads))
    for side in "AB":
        rows = [s for x, s in steps(ev, size) if x == side][40:]
        if rows:
            print("  %-5s" % side + "".join("%16.1f" % statistics.median(r[k] for r in rows) for k in range(len(heads))))


main()
