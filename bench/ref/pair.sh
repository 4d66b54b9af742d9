# pair.sh: sourced by the scripts beside it that compare fabtests with
# efaxx over loopback tcp: how each pair of processes starts. It makes
# $tmp, a directory removed at exit, for the caller's files. The caller
# sets ft_dir and runner, and defines wrap TAG CMD... (runs CMD, measured
# into $tmp/TAG) and rank_wrapper TAG (prints an executable that does the
# same for an mpirun rank, into $tmp/TAG.RANK); the ones below only run
# the processes, for callers that measure nothing around them.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

wrap() { shift; "$@"; }
rank_wrapper() {
	printf '#!/bin/sh\nexec "$@"\n' >"$tmp/wrap"
	chmod +x "$tmp/wrap"
	echo "$tmp/wrap"
}

# fabtests_pair TAG PROG ARGS...: PROG's server on CPU 1 and client on
# CPU 0, both bound to 127.0.0.1, measured as TAG.srv and TAG.cli; the
# client's output in TAG.out.
fabtests_pair() {
	local tag=$1 prog=$2 port=$((20000 + RANDOM % 20000))
	shift 2
	wrap "$tag.srv" "$ft_dir/bin/$prog" -B $((port + 1)) -s 127.0.0.1 --pin-core 1 -p tcp -E=$port "$@" \
		>/dev/null 2>&1 &
	sleep 0.5
	wrap "$tag.cli" "$ft_dir/bin/$prog" -B $((port + 2)) -s 127.0.0.1 --pin-core 0 -p tcp -E=$port "$@" 127.0.0.1 \
		>"$tmp/$tag.out" 2>&1
	wait
}

# fabtests_gbs TAG: the MB/sec that fabtests_pair TAG's client printed, in
# GB/s.
fabtests_gbs() { grep -o 'MB/sec: [0-9.]*' "$tmp/$1.out" | awk '{ printf "%.3f\n", $2 / 1000 }'; }

# efaxx_pair TAG ARGS...: two ranks of the runner under mpirun (bound to
# CPUs 0 and 1), measured as TAG.0 and TAG.1; their rank files in
# $tmp/TAG.d.
efaxx_pair() {
	local tag=$1
	shift
	rm -rf "$tmp/$tag.d" && mkdir -p "$tmp/$tag.d"
	mpirun --allow-run-as-root --mca btl self,vader --mca oob_tcp_if_include lo -np 2 "$(rank_wrapper "$tag")" \
		"$runner" --provider tcp --nic lo --out "$tmp/$tag.d" "$@" --warmup 10 >/dev/null 2>&1
}

# efaxx_gbs TAG: each sample of rank 0 in efaxx_pair TAG's files, in GB/s
# of payload (bytes sent and received), as the bench counts it.
efaxx_gbs() {
	grep -h '"rank":0' "$tmp/$1.d"/*.ndjson | grep '"type":"sample"' | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    print("%.3f" % ((d.get("bytes_sent", 0) + d.get("bytes_recv", 0)) * d["iterations"] / d["elapsed_ns"]))'
}
