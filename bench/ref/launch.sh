#!/usr/bin/env bash
# launch.sh FABTESTS_DIR [RUNNER] [ROUNDS]: what being launched as an
# MPI rank costs over loopback tcp. fi_rma_bw writedata at 64 KiB started
# plainly (server on CPU 1, client on CPU 0), as two ranks of mpirun (the
# same CPUs, mpirun's binding), and as two ranks that also ran MPI_Init
# (mpiinit.c, by LD_PRELOAD: Open MPI's threads and components in the
# process, as in efaxx-runner's), beside efaxx write; 1 GiB a run,
# alternated. Each one's median, and the ratios' medians with their 95%
# intervals (the bench's rule). docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: launch.sh FABTESTS_DIR [RUNNER] [ROUNDS]}
runner=${2:-bin/efaxx-runner}
rounds=${3:-24}
. "$(dirname "$0")/pair.sh" # makes $tmp
size=65536 iters=$(((1 << 30) / 65536))
mpicc -O2 -Wall -shared -fPIC -o "$tmp/mpiinit.so" "$(dirname "$0")/mpiinit.c"
args=(-m -S $size -I $iters -e rdm -o writedata -W 64)

# ranks TAG PRELOAD: fi_rma_bw as two ranks of mpirun, rank 1 the server
# and rank 0 the client; the client's output in TAG.out.
ranks() {
	local tag=$1 preload=$2 port=$((20000 + RANDOM % 20000)) pause="sleep 0.5"
	[ -z "$preload" ] || pause=": rank 0 waits after MPI_Init, in mpiinit.c"
	cat >"$tmp/$tag.sh" <<SH
#!/bin/sh
${preload:+export LD_PRELOAD=$preload}
if [ "\$OMPI_COMM_WORLD_RANK" = 1 ]; then
	exec "$ft_dir/bin/fi_rma_bw" -B $((port + 1)) -s 127.0.0.1 --pin-core 1 -p tcp -E=$port ${args[*]} >/dev/null 2>&1
fi
$pause
exec "$ft_dir/bin/fi_rma_bw" -B $((port + 2)) -s 127.0.0.1 --pin-core 0 -p tcp -E=$port ${args[*]} 127.0.0.1 >"$tmp/$tag.out" 2>&1
SH
	chmod +x "$tmp/$tag.sh"
	mpirun --allow-run-as-root --mca btl self,vader --mca oob_tcp_if_include lo -np 2 "$tmp/$tag.sh" >/dev/null 2>&1
}

cells=(plain mpirun mpiinit efaxx)
for r in $(seq 1 "$rounds"); do
	for k in 0 1 2 3; do # each round starts one cell later
		c=${cells[$(((k + r) % 4))]}
		case $c in
		plain) fabtests_pair plain fi_rma_bw "${args[@]}" && v=$(fabtests_gbs plain) ;;
		mpirun) ranks mpirun "" && v=$(fabtests_gbs mpirun) ;;
		mpiinit) ranks mpiinit "$tmp/mpiinit.so" && v=$(fabtests_gbs mpiinit) ;;
		efaxx) efaxx_pair ef --benchmark write --sizes $size --iterations $iters && v=$(efaxx_gbs ef) ;;
		esac
		echo "write $r $c ${v:-0}" | tee -a "$tmp/all"
	done
done
python3 "$(dirname "$0")/ratios.py" "$tmp/all" \
	"write:GB/s:mpirun/plain,mpiinit/plain,mpiinit/mpirun,efaxx/plain,efaxx/mpiinit"
