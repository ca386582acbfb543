# Sourced by every run-fuzz script: how long a fuzz run lasts, as libFuzzer arguments.
# `run-fuzz SECONDS` explores for that long (random seed, runs vary with machine load).
# FUZZ_RUNS=N (seed FUZZ_SEED, default 1) runs exactly N inputs, the same N on every machine:
# CI uses that, so a red CI means a regression, never a lucky find (those come from exploring).
if [[ -n "${FUZZ_RUNS:-}" ]]; then
  fuzz_budget=(-runs="$FUZZ_RUNS" -seed="${FUZZ_SEED:-1}")
else
  fuzz_budget=(-max_total_time="${1:-60}")
fi
# The lines of libFuzzer's output worth keeping in a log: the seed, the verdict and why.
fuzz_report() { grep -aE '^INFO: Seed|^Done|Assertion|ERROR|SUMMARY|Test unit written|deadly signal|^ +#[0-9] ' | head -n 40; }
# The SwiftPM fuzz builds' debug information: line tables only. A finding's stack trace keeps its
# files and lines; the full DWARF of a debug build (types, variables) made the HAP fuzzer's build
# 13 % dearer in CPU (218 against 189 s) for nothing a fuzz report shows.
# shellcheck disable=SC2034  # used by the run-fuzz scripts that source this file
fuzz_debug_info="-Xswiftc -gline-tables-only -Xcc -gline-tables-only -Xcxx -gline-tables-only"
