#!/usr/bin/env bash
# The results of docs/adapt.md: a per-scenario agent for each of the 10 shipped caches (REINFORCE
# without a baseline, as the reference, and with the batch-mean baseline), then per model the
# reference's curriculum (early, late, middle), in turn and interleaved (--rounds 30), evaluated on all
# ten caches. Prints markdown tables.
# Usage: scripts/adapt_results.sh [OUT_DIR] [SEED]   (~5 CPU minutes)
set -euo pipefail
cd "$(dirname "$0")/../python"
out=${1:-/tmp/adapt_results}
seed=${2:-1}
mkdir -p "$out"
run() { nice -n 19 /usr/bin/python3 -m schedkit_adapt "$@"; }
caches=../data/adapt
for baseline in none batch-mean; do
  echo "### per-scenario agents, baseline $baseline, seed $seed"
  header=1
  for model in cnn1 cnn2; do
    for scenario in early early-middle middle middle-late late; do
      run learn --cache "$caches/${model}_$scenario.json" --baseline "$baseline" --seed "$seed" \
          --out "$out/${model}_${scenario}_$baseline.pt" > "$out/learn.txt"
      grep -m1 "CPU s" "$out/learn.txt" >&2
      if [ $header = 1 ]; then grep '^|' "$out/learn.txt" | head -2; header=0; fi
      grep '^|' "$out/learn.txt" | tail -1
    done
  done
  for rounds in 1 30; do
    for model in cnn1 cnn2; do
      echo "### curriculum ${model}: early, late, middle in $rounds round(s); baseline $baseline, seed $seed"
      run learn --cache "$caches/${model}_"{early,late,middle}.json --rounds "$rounds" --baseline "$baseline" \
          --seed "$seed" --out "$out/${model}_curriculum_$baseline.pt" | grep -m1 "CPU s" >&2
      run evaluate --agent "$out/${model}_curriculum_$baseline.pt" \
          --cache "$caches"/cnn{1,2}_{early,early-middle,middle,middle-late,late}.json
    done
  done
done
