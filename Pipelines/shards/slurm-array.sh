#!/usr/bin/env bash
# A Slurm job array: one task per shard, then a merge job that waits for all of them.
#   sbatch --array=1-16 Pipelines/shards/slurm-array.sh          (submits the shards)
#   sbatch --dependency=afterok:<jobid> --wrap 'spindle merge /shared/spindle/shards/shard*.db --into /shared/spindle/spindle.db'
#SBATCH --job-name=spindle-shard
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=12:00:00
set -euo pipefail
LIBRARY=${LIBRARY:-/shared/music}
OUT=${OUT:-/shared/spindle}
N=${SLURM_ARRAY_TASK_COUNT:?run as an array job}
K=${SLURM_ARRAY_TASK_ID:?run as an array job}
mkdir -p "$OUT/shards"
exec spindle --db "$OUT/shards/shard$K.db" --library "$LIBRARY" analyze --shard "$K/$N" --jobs "${SLURM_CPUS_PER_TASK:-2}"
