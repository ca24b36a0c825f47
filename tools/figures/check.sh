#!/usr/bin/env bash
# kit.figures: draws the lectures' figures again (kindling-figures) into a temporary folder and
# compares each with the one committed under lectures/figures/. Graphviz's renderings (*.dot ->
# *.svg) are not compared: they depend on its version; their .dot sources are.
#   check.sh KINDLING_FIGURES FIGURES_DIR
set -euo pipefail
program=${1:?usage: check.sh KINDLING_FIGURES FIGURES_DIR}
figures=${2:?usage: check.sh KINDLING_FIGURES FIGURES_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$program" "$tmp" "$figures/data" > /dev/null
status=0
for f in "$tmp"/*; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  if [ ! -f "$figures/$name" ]; then
    echo "figures: $name is drawn but not committed (run tools/draw-figures)"
    status=1
  elif ! cmp -s "$f" "$figures/$name"; then
    echo "figures: lectures/figures/$name differs from what the engine draws now (run tools/draw-figures):"
    diff "$figures/$name" "$f" | head -20
    status=1
  fi
done
[ $status = 0 ] && echo "figures: $(ls "$tmp" | wc -l) figures match what the engine draws"
exit $status
