#!/usr/bin/env bash
# A library split over N shards with GNU parallel: on this machine's cores, or over ssh on several machines
# (each must see the library, at any mount point: paths are stored relative to the root). Then one merge.
#
#   Pipelines/shards/gnu-parallel.sh /srv/music /var/lib/spindle 8
#   Pipelines/shards/gnu-parallel.sh /srv/music /var/lib/spindle 8 --sshlogin 4/host1,4/host2
#
# Over ssh, the shard databases are written on the remote machines (--return brings them back).
set -euo pipefail
LIBRARY=$1 OUT=$2 N=$3; shift 3
mkdir -p "$OUT/shards"
seq 1 "$N" | parallel --halt now,fail=1 --line-buffer "$@" \
  spindle --db "$OUT/shards/shard{}.db" --library "$LIBRARY" analyze --shard {}/"$N" --jobs 1
spindle merge "$OUT"/shards/shard*.db --into "$OUT/spindle.db"
spindle --db "$OUT/spindle.db" --library "$LIBRARY" genres build
