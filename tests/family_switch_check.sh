#!/usr/bin/env bash
# No code switches on a built-in topology family's type outside that family's own files
# (issue 27): every family's traits are found by capability (rica/topology/family.hpp), so a new
# family is its files plus one rica_topology_family() line in CMakeLists.txt. For each line of
# that list, this greps rica's sources for std::get_if / std::holds_alternative / std::get /
# is_same_v naming the type, outside the files the line names.
# FaultyTopology is exempt: it is the fault overlay (--faults) over any family, not a family
# (no spec name, no registry entry); its uses ask "does this run have faults", and the check
# still covers every family beneath it.
# Usage: family_switch_check.sh [SOURCE_DIR]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
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
  pattern="(get_if|holds_alternative|std::get)<(rica::)?${type}>|is_same_v<[^;]*\\b${type}\\b"
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
[ $fail = 0 ] && echo "ok   no switch on any of the $count families' types outside their own files"
exit $fail
