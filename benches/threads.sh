#!/usr/bin/env bash
# One binary's `build` at --threads 1 and --threads 2, alternated round by round (1 2, 2 1, …):
# median wall, CPU (user + system) and peak RSS of each, and the median of the round-by-round
# wall ratios. What a second core buys, and from it the serial share (docs/MEASUREMENTS.md,
# "Cores").
#
# usage: benches/threads.sh BIN ROUNDS OUT_DIR BUILD_ARGS...
#   e.g. benches/threads.sh target/release/indexer 5 /tmp/threads ../shared/corpus/docs/*.warc.gz --detector hybrid
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n 2,8p "$0" >&2; exit 2; }
bin=$1 rounds=$2 out=$3; shift 3
mkdir -p $out; rm -f $out/t-*
for r in $(seq $rounds); do
  order="1 2"; [[ $((r % 2)) == 0 ]] && order="2 1"
  for t in $order; do
    /usr/bin/time -f "%e %U %S %M" -o $out/t-$t-$r $bin build "$@" --threads $t --index $out/idx-$t >/dev/null 2>&1
  done
done
python3 - $out $rounds <<'PY'
import sys,statistics
out,rounds=sys.argv[1],int(sys.argv[2])
res={}
for t in (1,2):
    w=[];c=[];m=[]
    for r in range(1,rounds+1):
        e,u,s,mm=open(f"{out}/t-{t}-{r}").read().split()[-4:]
        w.append(float(e)); c.append(float(u)+float(s)); m.append(int(mm)/1024)
    res[t]=(w,c,m)
    print(f"--threads {t}: median wall {statistics.median(w):.2f} s, CPU {statistics.median(c):.2f} s, peak RSS {statistics.median(m):.0f} MiB, wall/CPU {statistics.median(w)/statistics.median(c):.2f}")
ratios=sorted(res[2][0][r]/res[1][0][r] for r in range(rounds))
print(f"wall ratio t2/t1 median {statistics.median(ratios):.3f} (range {ratios[0]:.3f}-{ratios[-1]:.3f}); CPU ratio {statistics.median(res[2][1])/statistics.median(res[1][1]):.3f}")
PY
