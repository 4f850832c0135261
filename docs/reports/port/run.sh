#!/bin/bash
# usage: run.sh OUTDIR < list
out=$1; mkdir -p $out
export PATH=/work/main/.toolchain/cuda/bin:$PATH out
one() { f=$1; l=$2; n=$(echo $f | cut -d/ -f4)-$(basename $f)-$l
  timeout 120 /work/main/target/release/cuda-offload offload /work/main/$f --line $l --strategy port --json > $out/$n.json 2> $out/$n.err; echo "$n rc=$?" >> $out/rc.txt; }
export -f one
cd /work/main && xargs -P 2 -L 1 bash -c 'one $0 $1'
