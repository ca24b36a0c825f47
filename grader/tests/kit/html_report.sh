#!/usr/bin/env bash
# kit.html_report_*: the grader's HTML report, loaded in headless Chromium.
#
#   html_report.sh REPORT.html REPORT.json SCREENSHOT.png
#
# Chromium parses the page (--dump-dom); every task of the JSON report must be
# rendered as a row with its status, and every week as a section. Then it takes a
# screenshot (kept beside the results, for a person to look at).
# Exits 77 (skipped) when Chromium is not installed (./test installs it), after a line
# "skipped: REASON" that ./test's summary shows.
set -euo pipefail
html=$1
json=$2
png=$3
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "skipped: Chromium is not installed (apt-get install chromium)"
  exit 77
fi
# Ubuntu's chromium-browser package is a stub that only asks for the snap.
if ! version=$(timeout 60 "$browser" --version 2>&1); then
  echo "skipped: $browser does not run (Ubuntu's chromium-browser is a stub for the snap). It said:"
  echo "$version"
  exit 77
fi
[ -s "$html" ] || { echo "html_report: no report at $html"; exit 1; }
[ -s "$json" ] || { echo "html_report: no JSON report at $json"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$work/profile")
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$(realpath "$html")" > "$work/dom.html" 2> "$work/chromium.log" || {
  cat "$work/chromium.log"
  echo "html_report: Chromium could not load the page"
  exit 1
}

# The tasks and statuses of the JSON report, in order (the grader writes one key per line).
ids=$(grep -o '"id": "[^"]*"' "$json" | sed 's/.*: "\(.*\)"/\1/')
statuses=$(grep -o '"status": "[^"]*"' "$json" | sed 's/.*: "\(.*\)"/\1/')
[ -n "$ids" ] || { echo "html_report: the JSON report names no task"; exit 1; }
missing=0
checked=0
while read -r id status; do
  checked=$((checked + 1))
  if ! grep -q "data-task=\"$id\" data-status=\"$status\"" "$work/dom.html"; then
    echo "html_report: task $id is not rendered with status $status"
    missing=$((missing + 1))
  fi
done < <(paste -d' ' <(echo "$ids") <(echo "$statuses"))
rows=$(grep -c '<tr class="task ' "$work/dom.html" || true)
if [ "$rows" -lt "$checked" ]; then
  echo "html_report: $rows task rows rendered for $checked tasks"
  missing=$((missing + 1))
fi
grep -q 'id="summary"' "$work/dom.html" || { echo "html_report: no summary"; missing=$((missing + 1)); }
[ "$missing" -eq 0 ] || exit 1

timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size=1200,3000 --screenshot="$png" \
  "file://$(realpath "$html")" > "$work/shot.log" 2>&1 || { cat "$work/shot.log"; exit 1; }
size=$(stat -c %s "$png" 2>/dev/null || echo 0)
[ "$size" -gt 10000 ] || { echo "html_report: the screenshot $png is missing or blank ($size bytes)"; exit 1; }
echo "html_report: $checked tasks rendered with their statuses; screenshot $png ($size bytes)"
