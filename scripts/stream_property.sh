#!/usr/bin/env bash
# The job-stream property test at length (tests/test_stream_property.cpp; issue 40): N random
# streams (default 500) over every allocator x scheduler x switch policy x job kind and mixtures,
# on direct and indirect networks, and N/4 random `rica os` requests, from seed S (default 1).
# CI runs 40 streams of the same test (seconds); this runs as many as asked, in chunks of 50
# (each chunk its own seed, so a failure names a short reproduction) and prints the totals.
#   scripts/stream_property.sh [N] [S] [PRESET]     PRESET: release (default), debug or asan
# Exit status: 0 when every stream passed; else the failing chunk's (its output is kept in
# build*/stream_property_S.log).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-500} seed=${2:-1} preset=${3:-release}
dir=build; [ "$preset" != release ] && dir=build-$preset
cmake --build --preset "$preset" -j2 --target test_stream_property >/dev/null
chunk=50 done_=0 s=$seed start=$SECONDS
totals=()
while [ "$done_" -lt "$n" ]; do
  k=$(( n - done_ < chunk ? n - done_ : chunk ))
  log=$dir/stream_property_$s.log
  if ! RICA_STREAM_CASES=$k RICA_STREAM_SEED=$s "$dir/tests/test_stream_property" >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "stream_property: chunk of seed $s failed (log: $log)" >&2
    exit 1
  fi
  totals+=("$(grep -h '^stream property:\|^os property:' "$log")")
  done_=$(( done_ + k )) s=$(( s + 1 ))
done
printf '%s\n' "${totals[@]}" | awk '
  /^stream property:/ { st += $3; ru += $5; jo += $7; one += substr($9, 2); ms += $13; sw += $15; pk += $17; rf += $22 }
  /^os property:/ { oq += $3; oru += $5; osw += $7; opk += $9 }
  END {
    printf "streams %d, runs %d, jobs %d (%d of 1 PE, %d machine-sized), switches %d, packets %d (exactly once), refused as designed %d\n", st, ru, jo, one, ms, sw, pk, rf
    printf "rica os: %d requests, %d runs, %d switches, %d packets (exactly once)\n", oq, oru, osw, opk
  }'
echo "stream_property: $n streams from seed $seed in $(( SECONDS - start )) s, nothing lost or duplicated"
