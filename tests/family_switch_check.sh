#!/usr/bin/env bash
# No code switches on a built-in topology family's type outside that family's own files
# (issue 27): every family's traits are found by capability (rica/topology/family.hpp), so a new
# family is its files plus one rica_topology_family() line in CMakeLists.txt. For each line of
# that list, this greps rica's sources for std::get_if / std::holds_alternative / std::get /
# is_same_v / dynamic_cast naming the type, outside the files the line names. Given the rica
# binary, it also greps for a family's registered name compared as a string (== "torus",
# starts_with("torus"), in ("omega", ...), ...) outside runtime/topology/ and include/rica/topology/,
# and in scripts/rica_heatmap.py (its layout is the family's declared drawing, not its name).
# FaultyTopology is exempt: it is the fault overlay (--faults) over any family, not a family
# (no spec name, no registry entry); its uses ask "does this run have faults", and the check
# still covers every family beneath it.
# Usage: family_switch_check.sh [SOURCE_DIR [RICA]]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
rica=${2:-}
[ -z "$rica" ] || rica=$(cd "$(dirname "$rica")" && pwd)/$(basename "$rica")
cd "$root" || exit 2
lines=$(grep -E '^rica_topology_family\(' CMakeLists.txt) || { echo "no rica_topology_family() lines in CMakeLists.txt" >&2; exit 1; }
fail=0
count=0
while read -r line; do
  set -- $(echo "$line" | sed -E 's/^rica_topology_family\((.*)\)\s*$/\1/')
  type=$1
  shift
  count=$((count + 1))
  [ "$type" = FaultyTopology ] && continue
  own=("include/$1")
  shift
  own+=("$@")
  pattern="(get_if|holds_alternative|std::get)<(rica::)?${type}>|is_same_v<[^;]*\\b${type}\\b|dynamic_cast<[^>]*\\b${type}\\b"
  while IFS= read -r hit; do
    file=${hit%%:*}
    mine=0
    for f in "${own[@]}"; do [ "$file" = "$f" ] && mine=1; done
    if [ $mine = 0 ]; then
      echo "FAIL switch on $type outside its files: $hit" >&2
      fail=1
    fi
  done < <(grep -rnE "$pattern" runtime apps include python bench examples --include='*.cpp' --include='*.hpp' 2>/dev/null)
done <<<"$lines"
[ "$count" -ge 10 ] || { echo "FAIL only $count family lines found" >&2; exit 1; }
if [ -n "$rica" ]; then
  # Registered names compared as strings. Exempt: embed's guest graphs (ring, mesh, torus) are
  # graphs to embed, not topology families. (The traffic pattern "mesh" is no longer compared by
  # name: its pacing is its registry entry's trait, TrafficEntry::paced.)
  names=$("$rica" list --json - | python3 -c "import json,sys; print('|'.join(t['name'] for t in json.load(sys.stdin)['topologies']))") ||
    { echo "FAIL rica list --json" >&2; exit 1; }
  [ "$(tr '|' '\n' <<<"$names" | wc -l)" -ge 20 ] || { echo "FAIL only these family names: $names" >&2; exit 1; }
  named="(==|!=) *\"($names)\"|\"($names)\" *(==|!=)|(starts_with|rfind|find|compare)\\(\"($names)[:\"]|[^a-z_]in \\(([^)]*, *)?\"($names)\""
  while IFS= read -r hit; do
    case "$hit" in
      runtime/analysis/embed.cpp:*) continue ;;
    esac
    echo "FAIL a family's name compared outside its files: $hit" >&2
    fail=1
  done < <(grep -rnE "$named" runtime apps include python bench examples scripts/rica_heatmap.py --include='*.cpp' --include='*.hpp' --include='*.py' 2>/dev/null |
           grep -vE '^(runtime/topology/|include/rica/topology/)')
  names_checked=" and by name"
fi
[ $fail = 0 ] && echo "ok   no switch on any of the $count families' types${names_checked:-} outside their own files"
exit $fail
