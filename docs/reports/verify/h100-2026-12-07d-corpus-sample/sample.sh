#!/usr/bin/env bash
# Offloads corpus loops (list.txt: "file line") through the port on the GPU, $2 at a time,
# starting no job after $1 seconds. Results under $OUT/res.
set -u
DEADLINE=$(( $(date +%s) + ${1:-500} )); P=${2:-4}
mkdir -p /tmp/co && [ -x /tmp/co/cuda-offload ] || { xz -dc .carry/bin/cuda-offload.xz > /tmp/co/cuda-offload && chmod +x /tmp/co/cuda-offload; }
res=$OUT/res; mkdir -p $res
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $res/gpu.txt
nvcc --version | tail -1 >> $res/gpu.txt
nproc >> $res/gpu.txt
export ROOT=$PWD res DEADLINE
one() {
  local f=$1 l=$2 name; name=$(echo $f | cut -d/ -f4)-$(basename $f)-$l
  [ $(date +%s) -ge $DEADLINE ] && { echo "$name skipped" >> $res/rc.txt; return; }
  local start=$(date +%s)
  timeout 170 /tmp/co/cuda-offload offload $ROOT/$f --line $l --strategy port --json > $res/$name.json 2> $res/$name.err
  echo "$name rc=$? $(( $(date +%s) - start ))s" >> $res/rc.txt
}
export -f one
xargs -P $P -L 1 bash -c 'one $0 $1' < ${3:-.carry/s/list.txt}
for j in $res/*.json; do
  printf '%s // ' "$(basename $j .json)" >> $res/summary.txt
  python3 -c "
import json,sys
try:
  d=json.load(open(sys.argv[1])); r=d.get('result') or {}
  print(r.get('verified'), r.get('speedup'), r.get('roofline_fraction'), '|', (r.get('verdict') or '')[:300])
except Exception as e: print('no json:', e)" $j >> $res/summary.txt
done
