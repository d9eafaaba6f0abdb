#!/usr/bin/env bash
# A Slurm job array that spreads one matrix over N machines: task I runs shard I/N into its
# own directory, runs/shard-I (tools/cluster/run-shard, with --resume). From the repository
# root on a shared file system:
#   mkdir -p runs
#   sbatch --array=0-3 tools/cluster/slurm-array.sh harness/matrices/full.toml c7g.8xlarge
#   build/release/sparsebench report runs/shard-* --out results/merged
# Resubmitting the same command after a task failed or was cancelled finishes the matrix;
# cells that already finished ok are skipped. The directives below are for 32-vCPU machines;
# command-line options override them (tools/cluster/test-slurm runs this on a 2-CPU node with
# --cpus-per-task=2). SPARSEBENCH_RUNS, SPARSEBENCH_PRESET, SPARSEBENCH_SHARDS: see run-shard.
#SBATCH --job-name=sparsebench
#SBATCH --cpus-per-task=32
#SBATCH --exclusive
#SBATCH --time=12:00:00
#SBATCH --output=runs/slurm-%A_%a.log
set -euo pipefail
# Slurm runs a copy of this script from its spool directory: the checkout is where sbatch ran.
cd "${SLURM_SUBMIT_DIR:-.}"
exec tools/cluster/run-shard "${1:-harness/matrices/default.toml}" "${2:-}"
