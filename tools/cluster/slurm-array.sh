#!/usr/bin/env bash
# A Slurm job array that spreads one matrix over N machines: task I runs shard I/N into its
# own directory; merge afterwards with
#   build/release/sparsebench report runs/shard-* --out results/merged
# Submit from the repository root on a shared file system:
#   sbatch --array=0-3 tools/cluster/slurm-array.sh harness/matrices/full.toml c7g.8xlarge
#SBATCH --job-name=sparsebench
#SBATCH --cpus-per-task=32
#SBATCH --exclusive
#SBATCH --time=12:00:00
#SBATCH --output=runs/slurm-%A_%a.log
set -euo pipefail
matrix="${1:-harness/matrices/default.toml}"
instance="${2:-}"
shards="${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array=0-(N-1)}"
shard="${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-(N-1)}"
cd "${SLURM_SUBMIT_DIR:-.}"
tools/setup release
args=(run --matrix "$matrix" --out "runs/shard-$shard" --shard "$shard/$shards" --resume)
[[ -n "$instance" ]] && args+=(--instance "$instance")
build/release/sparsebench "${args[@]}"
