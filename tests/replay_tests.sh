#!/usr/bin/env bash
# rica record and rica replay end to end (docs/replay.md). Usage: replay_tests.sh <rica> <build dir>
#   - record examples/mpi/ring (known counts) under mpirun: the program's output and status pass
#     through, otf2-print reads the archive, the replay has exactly the recorded messages, is
#     verified once, and its JSON figures are identical on 1 and 2 threads
#   - master_worker (MPI_ANY_SOURCE) records and replays verified
#   - a rendezvous deadlock (ring unsafe, --eager-bytes 0): exit 3 naming every waiting rank
#   - refusals, one line and exit 2: not an OTF2 archive, more ranks than PEs, an unknown map,
#     an archive already in -o DIR, a program that cannot be run
# Exits 77 (ctest: skipped) without mpirun or the recorder (a build without MPI).
set -u
RICA=$1
BUILD=$2
command -v mpirun >/dev/null || { echo "replay_tests: mpirun not found: skipped"; exit 77; }
[ -f "$BUILD/librica_record.so" ] || { echo "replay_tests: no librica_record.so (built without MPI): skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN="timeout 120 mpirun --allow-run-as-root --oversubscribe --quiet"
EX=$BUILD/examples/mpi

# ---- record: output and status pass through, otf2-print reads the archive ---------------------
out=$("$RICA" record -o "$TMP/ring" -- $MPIRUN -np 4 "$EX/ring" 3 64 2>"$TMP/rec.err")
rc=$?
[ $rc -eq 0 ] || bad "record ring: exit $rc: $(cat "$TMP/rec.err")"
echo "$out" | grep -q "ring: 4 ranks, 3 rounds of 64 bytes, token 4" || bad "record ring: program output lost: $out"
grep -q "rica record: wrote" "$TMP/rec.err" || bad "record ring: no closing line: $(cat "$TMP/rec.err")"
if command -v otf2-print >/dev/null; then
  otf2-print "$TMP/ring/traces.otf2" >"$TMP/print.txt" 2>&1 || bad "otf2-print cannot read the recorder's archive"
  [ "$(grep -c '^MPI_SEND ' "$TMP/print.txt")" -eq 16 ] || bad "otf2-print: $(grep -c '^MPI_SEND ' "$TMP/print.txt") MPI_SEND records, 16 expected"
  [ "$(grep -c '^MPI_RECV ' "$TMP/print.txt")" -eq 16 ] || bad "otf2-print: MPI_RECV records"
fi
"$RICA" record -o "$TMP/st" -- sh -c 'exit 7' 2>/dev/null
[ $? -eq 7 ] || bad "record: a program's exit status 7 does not pass through"
err=$("$RICA" record -o "$TMP/ring" -- true 2>&1)
[ $? -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] || bad "record into a directory with an archive: $err"
"$RICA" record -o "$TMP/none" -- /nonexistent/program 2>/dev/null
[ $? -eq 127 ] || bad "record: a program that cannot run is not 127"

# ---- replay: exact counts, verified once, identical on 1 and 2 threads ------------------------
figures() {
  python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for k in list(j):
    if "wall" in k or "per_s" in k or "rss" in k or k in ("provenance", "threads", "outputs", "config", "bytes_per_pe", "host", "hostname", "start_time", "command_line", "rica_version"):
        j.pop(k)
print(json.dumps(j, sort_keys=True))
PY
}
for th in 1 2; do
  "$RICA" replay "$TMP/ring/traces.otf2" torus:4 --engine cycle --threads $th --json "$TMP/r$th.json" >"$TMP/r$th.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || bad "replay ring ($th threads): exit $rc: $(tail -3 "$TMP/r$th.txt")"
  [ "$(grep -c 'verified' "$TMP/r$th.txt")" -eq 1 ] || bad "replay ring: 'verified' not exactly once"
done
python3 - "$TMP/r1.json" <<'PY' || bad "replay ring: counts"
import json, sys
r = json.load(open(sys.argv[1]))["replay"]
assert r["ranks"] == 4, r["ranks"]
assert r["p2p_messages"] == 16, r["p2p_messages"]   # 3 rounds x 4 ranks + 4 token messages
assert r["bytes"] == 3 * 4 * 64 + 4 * 4, r["bytes"]
assert sum(x["sent"] for x in r["per_rank"]) == 16 and sum(x["received"] for x in r["per_rank"]) == 16
assert r["deadlock"] is None and r["makespan"] > 0
PY
[ "$(figures "$TMP/r1.json")" = "$(figures "$TMP/r2.json")" ] || bad "replay ring: JSON differs between 1 and 2 threads"

# ---- MPI_ANY_SOURCE: master and workers ---------------------------------------------------------
"$RICA" record -o "$TMP/mw" -- $MPIRUN -np 4 "$EX/master_worker" 20 100 >/dev/null 2>&1 || bad "record master_worker"
"$RICA" replay "$TMP/mw" torus:2x2 --engine cycle --json "$TMP/mw.json" --quiet || bad "replay master_worker: exit $?"
python3 -c "import json,sys; r=json.load(open('$TMP/mw.json'))['replay']; assert r['p2p_messages'] == 20 + 3 + 20 + 3, r['p2p_messages']" ||
  bad "replay master_worker: counts"

# ---- a rendezvous deadlock: exit 3, every waiting rank named --------------------------------------
"$RICA" record -o "$TMP/unsafe" -- $MPIRUN -np 3 "$EX/ring" 1 64 unsafe >/dev/null 2>&1 || bad "record ring unsafe"
err=$("$RICA" replay "$TMP/unsafe" torus:4 --engine cycle --eager-bytes 0 2>&1 >/dev/null)
rc=$?
out=$("$RICA" replay "$TMP/unsafe" torus:4 --engine cycle --eager-bytes 0 2>/dev/null)
[ $rc -eq 3 ] || bad "replay deadlock: exit $rc, 3 expected"
for r in 0 1 2; do
  echo "$out" | grep -q "rank $r event .*MPI_Send to rank $(( (r + 1) % 3 )).*clear-to-send" || bad "replay deadlock: rank $r not named: $out"
done

# ---- refusals: one line, exit 2, nothing run ------------------------------------------------------
refuse() {  # refuse EXPECTED args...
  local expect=$1
  shift
  local e
  e=$("$RICA" "$@" 2>&1 >/dev/null)
  local rc=$?
  [ $rc -eq 2 ] || bad "rica $*: exit $rc, 2 expected ($e)"
  [ "$(echo "$e" | wc -l)" -eq 1 ] || bad "rica $*: not one line: $e"
  echo "$e" | grep -q -- "$expect" || bad "rica $*: '$expect' not in: $e"
}
echo "junk" >"$TMP/junk.otf2"
refuse "is not an OTF2 archive" replay "$TMP/junk.otf2" torus:4
refuse "no such file" replay "$TMP/absent" torus:4
refuse "4 ranks" replay "$TMP/ring" torus:3
refuse "map" replay "$TMP/ring" torus:4 --map nowhere
refuse "compute-scale" replay "$TMP/ring" torus:4 --compute-scale -1
exit $fail
