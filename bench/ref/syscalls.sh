#!/usr/bin/env bash
# syscalls.sh FABTESTS_DIR [RUNNER]: the system calls per iteration of
# fi_rma_bw writedata and efaxx write (64 KiB), and of fi_rdm_pingpong and
# efaxx sendrecv (64 B), over loopback tcp, each process counted by
# perf stat: a long run less a short one, so set-up cancels out. Counts
# do not depend on how fast the machine is that minute; polls count
# waiting. Needs perf with tracepoints (root). docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: syscalls.sh FABTESTS_DIR [RUNNER]}
runner=${2:-bin/efaxx-runner}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
calls=(raw_syscalls:sys_enter syscalls:sys_enter_sendmsg syscalls:sys_enter_sendto
	syscalls:sys_enter_recvfrom syscalls:sys_enter_poll syscalls:sys_enter_read syscalls:sys_enter_write)
events=$(IFS=,; echo "${calls[*]}")

# count FILE CMD...: CMD's system calls into FILE.
count() { local f=$1; shift; perf stat -x, -o "$f" -e "$events" "$@"; }

# fab PROG TAG ARGS...: a fabtests server and client on 127.0.0.1.
fab() {
	local prog=$1 tag=$2 port=$((20000 + RANDOM % 20000)); shift 2
	count "$tmp/$tag.srv" "$ft_dir/bin/$prog" -B $((port + 1)) -s 127.0.0.1 --pin-core 1 -p tcp -E=$port "$@" \
		>"$tmp/$tag.srv.out" 2>&1 &
	sleep 0.5
	count "$tmp/$tag.cli" "$ft_dir/bin/$prog" -B $((port + 2)) --pin-core 0 -p tcp -E=$port "$@" 127.0.0.1 \
		>"$tmp/$tag.cli.out" 2>&1
	wait
}

# efx TAG ARGS...: two efaxx ranks under mpirun, each counted.
efx() {
	local tag=$1; shift
	cat >"$tmp/wrap" <<EOF
#!/bin/sh
exec perf stat -x, -o "$tmp/$tag.\$OMPI_COMM_WORLD_RANK" -e "$events" "\$@"
EOF
	chmod +x "$tmp/wrap"
	mkdir -p "$tmp/out.$tag"
	mpirun --allow-run-as-root --mca btl self,vader --mca oob_tcp_if_include lo -np 2 "$tmp/wrap" \
		"$runner" --provider tcp --nic lo --out "$tmp/out.$tag" "$@" --warmup 10 >"$tmp/$tag.out" 2>&1
}

# row NAME SHORT LONG N: (LONG - SHORT) / N for each call.
row() {
	printf '%-24s' "$1"
	for e in "${calls[@]}"; do
		local a b
		a=$(grep ",$e," "$2" | cut -d, -f1)
		b=$(grep ",$e," "$3" | cut -d, -f1)
		awk -v a="$a" -v b="$b" -v n="$4" 'BEGIN { printf " %8.2f", (b - a) / n }'
	done
	echo
}

# fab_pair PROG NAME SHORT LONG ARGS...: both sides of a short and a long fabtests run.
fab_pair() {
	local prog=$1 name=$2 short=$3 long=$4; shift 4
	fab "$prog" "$name.s" -I "$short" "$@"
	fab "$prog" "$name.l" -I "$long" "$@"
	row "$prog client" "$tmp/$name.s.cli" "$tmp/$name.l.cli" $((long - short))
	row "$prog server" "$tmp/$name.s.srv" "$tmp/$name.l.srv" $((long - short))
}

# efx_pair BENCHMARK SIZE SHORT LONG: both ranks of a short and a long efaxx run.
efx_pair() {
	local bench=$1 size=$2 short=$3 long=$4
	efx "$bench.s" --benchmark "$bench" --sizes "$size" --iterations "$short"
	efx "$bench.l" --benchmark "$bench" --sizes "$size" --iterations "$long"
	row "efaxx $bench rank 0" "$tmp/$bench.s.0" "$tmp/$bench.l.0" $((long - short))
	row "efaxx $bench rank 1" "$tmp/$bench.s.1" "$tmp/$bench.l.1" $((long - short))
}

printf '%-24s %8s %8s %8s %8s %8s %8s %8s\n' "per iteration" all sendmsg sendto recvfrom poll read write
fab_pair fi_rma_bw w 2000 32768 -m -S 65536 -e rdm -o writedata -W 64
efx_pair write 65536 2000 32768
fab_pair fi_rdm_pingpong p 2000 22000 -S 64
efx_pair sendrecv 64 2000 22000
