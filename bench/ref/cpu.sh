#!/usr/bin/env bash
# cpu.sh FABTESTS_DIR RUNNER ROUNDS SIZE: the CPU time per write of each
# side of fi_rma_bw writedata and of efaxx write over loopback tcp: each
# process's user and system seconds (getrusage) in a run of 2 GiB less
# those of a run of 128 MiB, so set-up cancels out, over alternated
# rounds. A side whose CPU time per write equals the time per write is
# busy all the time: the rate is its CPU per write. docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: cpu.sh FABTESTS_DIR RUNNER ROUNDS SIZE}
runner=${2:?runner}
rounds=${3:-10}
size=${4:-65536}
. "$(dirname "$0")/pair.sh" # makes $tmp
short=$(((1 << 27) / size)) long=$(((1 << 31) / size))

# ru OUT CMD...: runs CMD and writes its CPU seconds to OUT: user system wall.
cat >"$tmp/ru" <<'EOF'
#!/usr/bin/env python3
import os, resource, subprocess, sys, time
out = sys.argv[1].replace("{rank}", os.environ.get("OMPI_COMM_WORLD_RANK", "x"))
t = time.monotonic()
rc = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(out, "w").write("%.4f %.4f %.4f\n" % (r.ru_utime, r.ru_stime, time.monotonic() - t))
sys.exit(rc)
EOF
chmod +x "$tmp/ru"

# wrap TAG CMD... and rank_wrapper TAG: CMD's CPU seconds into $tmp/TAG.
wrap() { local tag=$1; shift; "$tmp/ru" "$tmp/$tag" "$@"; }
rank_wrapper() {
	printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$tmp/ru" "$tmp/$1.{rank}" >"$tmp/wrap.$1"
	chmod +x "$tmp/wrap.$1"
	echo "$tmp/wrap.$1"
}

fab() { # ITERATIONS ROUND
	fabtests_pair ft fi_rma_bw -m -S "$size" -I "$1" -e rdm -o writedata -W 64
	local gbps
	gbps=$(fabtests_gbs ft)
	echo "$2 fi_rma_bw $1 writer $(cat "$tmp/ft.cli") $gbps"
	echo "$2 fi_rma_bw $1 target $(cat "$tmp/ft.srv") $gbps"
}

efx() { # ITERATIONS ROUND
	efaxx_pair ef --benchmark write --sizes "$size" --iterations "$1"
	local gbps
	gbps=$(efaxx_gbs ef)
	echo "$2 efaxx $1 writer $(cat "$tmp/ef.0") $gbps"
	echo "$2 efaxx $1 target $(cat "$tmp/ef.1") $gbps"
}

for r in $(seq 1 "$rounds"); do
	if ((r % 2)); then fab $short $r; efx $short $r; fab $long $r; efx $long $r
	else efx $long $r; fab $long $r; efx $short $r; fab $short $r; fi
done | tee "$tmp/runs"

python3 - "$tmp/runs" "$size" "$short" "$long" <<'EOF'
import statistics as st, sys
from collections import defaultdict
size, short, long = (int(a) for a in sys.argv[2:])
runs = defaultdict(dict)
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) != 8:
        print("skipped, a run that failed:", l.strip(), file=sys.stderr)
        continue
    r, prog, it, side, user, sys_, wall, gbps = f
    runs[(r, prog, side)][int(it)] = (float(user), float(sys_), float(gbps))
n = long - short
print(f"\n{size} B writes, per write (medians of rounds): user, system, and the time per write of the 2 GiB run")
rate = defaultdict(dict)
for prog in ("fi_rma_bw", "efaxx"):
    for side in ("writer", "target"):
        v = [(m[long][0] - m[short][0], m[long][1] - m[short][1], m[long][2])
             for (r, p, s), m in runs.items() if p == prog and s == side and short in m and long in m]
        if not v:
            continue
        print("%-10s %-6s user %7.2f us  system %7.2f us  time %7.2f us  (%d rounds)" % (
            prog, side, st.median(x[0] for x in v) / n * 1e6, st.median(x[1] for x in v) / n * 1e6,
            st.median(size / (x[2] * 1e3) for x in v), len(v)))
for (r, p, s), m in runs.items():
    if s == "writer" and long in m:
        rate[r][p] = m[long][2]
q = [rate[r]["efaxx"] / rate[r]["fi_rma_bw"] for r in rate if len(rate[r]) == 2]
if q:
    print("efaxx / fi_rma_bw, GB/s of the 2 GiB runs: median %.2f, range %.2f-%.2f (%d rounds)" % (st.median(q), min(q), max(q), len(q)))
EOF
