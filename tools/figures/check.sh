#!/usr/bin/env bash
# kit.figures: draws the lectures' figures again (kindling-figures) into a temporary folder and
# compares each with the one committed under lectures/figures/. Graphviz's renderings (*.dot ->
# *.svg) are not compared: they depend on its version; their .dot sources are.
# Week 4's feed table (kindling-figures --feed-table) must be in its lecture line for line.
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
# The lectures' bar: every week's lecture, English and Korean, shows at least two figures, and each
# figure a lecture shows is one drawn here (or a Graphviz rendering of a .dot drawn here). A Korean
# page shows the "-ko" copy of a figure where one is drawn.
lectures=$(dirname "$figures")
for page in "$lectures"/week*.md "$lectures"/ko/week*.md; do
  [ -f "$page" ] || continue
  shown=$(grep -o '](\(\.\./\)\{0,1\}figures/[^)]*)' "$page" | sed 's|.*figures/||; s|)$||' || true)
  if [ "$(printf '%s\n' "$shown" | grep -c .)" -lt 2 ]; then
    echo "figures: $page shows fewer than two figures"
    status=1
  fi
  for f in $shown; do
    if [ ! -f "$tmp/$f" ] && [ ! -f "$tmp/${f%.svg}.dot" ]; then
      echo "figures: $page shows figures/$f, which the engine does not draw"
      status=1
    fi
    case "$page" in
      */ko/*) case "$f" in
          *-ko.svg) ;;
          *) if [ -f "$tmp/${f%.svg}-ko.svg" ]; then echo "figures: $page shows $f, not its Korean copy ${f%.svg}-ko.svg"; status=1; fi ;;
        esac ;;
    esac
  done
done
# Week 4's feed table is the committed measurement's, line for line, in both editions.
for lang in en ko; do
  page="$lectures/week04-data.md"
  [ "$lang" = ko ] && page="$lectures/ko/week04-data.md"
  while IFS= read -r line; do
    if ! grep -qxF -- "$line" "$page"; then
      echo "figures: $page lacks the line '$line' of the table of figures/data/week04-feed.csv ($program --feed-table)"
      status=1
    fi
  done < <("$program" --feed-table "$figures/data" "$lang")
done
[ $status = 0 ] && echo "figures: $(ls "$tmp" | wc -l) figures match what the engine draws; every lecture shows at least two"
exit $status
