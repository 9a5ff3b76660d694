#!/usr/bin/env bash
# The multi-seed table of docs/adapt.md: a per-scenario agent for each of the 10 shipped caches,
# trained with 5 seeds (the agent's initial weights and its sampling), without a baseline and with
# the batch-mean baseline; per cache, the learned sequence's rank for each seed, their mean, sample
# standard deviation and range, and how many seeds reach the top 5 and rank 1.
# Usage: scripts/adapt_seeds.sh [OUT_DIR] [SEEDS]   (~15 CPU minutes for 5 seeds)
set -euo pipefail
cd "$(dirname "$0")/../python"
out=${1:-/tmp/adapt_seeds}
seeds=${2:-1-5}
mkdir -p "$out"
for baseline in none batch-mean; do
  echo "### per-scenario agents, baseline $baseline, seeds $seeds"
  header=1
  for model in cnn1 cnn2; do
    for scenario in early early-middle middle middle-late late; do
      nice -n 19 /usr/bin/python3 -m schedkit_adapt learn --cache "../data/adapt/${model}_$scenario.json" \
          --baseline "$baseline" --seeds "$seeds" --out "$out/${model}_${scenario}_${baseline}_{seed}.pt" \
          > "$out/learn.txt"
      grep "CPU s" "$out/learn.txt" >&2
      if [ $header = 1 ]; then grep -A2 '^seeds' "$out/learn.txt" | tail -2; header=0; fi
      grep -A3 '^seeds' "$out/learn.txt" | tail -1
    done
  done
done
