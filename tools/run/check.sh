#!/usr/bin/env bash
# kit.launcher: kindling-run as a user meets it. Every rank's lines come prefixed with its rank;
# a failing rank ends the others and makes the launcher exit 1 naming it; the timeout exits 124;
# no rank outlives the launcher.
#   check.sh KINDLING_RUN
set -euo pipefail
run=${1:?usage: check.sh KINDLING_RUN}
out=$(mktemp)
pids=$(mktemp)
trap 'rm -f "$out" "$pids"' EXIT
fail() { echo "kit.launcher: $*"; cat "$out"; exit 1; }

"$run" --nproc 3 /bin/sh -c 'echo "hello from $RANK of $WORLD_SIZE"' > "$out" 2>&1 || fail "a clean run exited $?"
for r in 0 1 2; do grep -q "^\[rank $r\] hello from $r of 3$" "$out" || fail "no prefixed line from rank $r"; done
grep -q "all 3 ranks exited with code 0" "$out" || fail "no summary"

status=0
# Ranks 0 and 1 write their pids before rank 2 fails (it waits for both lines).
KIT_PIDS=$pids "$run" --nproc 3 /bin/sh -c 'if [ "$RANK" = 2 ]; then
    while [ "$(wc -l < "$KIT_PIDS")" -lt 2 ]; do sleep 0.05; done; exit 5; fi
  echo $$ >> "$KIT_PIDS"; exec sleep 60' > "$out" 2>&1 || status=$?
[ "$status" = 1 ] || fail "a failing rank: exit $status, expected 1"
grep -q "rank 2 exited with code 5 first" "$out" || fail "the failing rank is not named"
[ "$(wc -l < "$pids")" = 2 ] || fail "ranks 0 and 1 did not both write their pid"
while read -r pid; do
  if kill -0 "$pid" 2> /dev/null; then fail "rank process $pid outlived the launcher"; fi
done < "$pids"

# Ctrl-C (SIGINT to the launcher) ends every rank, and is not a success.
status=0
"$run" --nproc 2 /bin/sh -c 'exec sleep 60' > "$out" 2>&1 &
launcher=$!
sleep 0.5
kill -INT "$launcher"
wait "$launcher" || status=$?
[ "$status" = 130 ] || fail "after SIGINT: exit $status, expected 130"
grep -q "the launcher was stopped" "$out" || fail "the stop is not said"

status=0
"$run" --nproc 2 --timeout 1 /bin/sh -c 'exec sleep 60' > "$out" 2>&1 || status=$?
[ "$status" = 124 ] || fail "the timeout: exit $status, expected 124"
grep -q "did not finish within its timeout" "$out" || fail "the timeout is not said"

status=0
"$run" --nproc 0 /bin/true > "$out" 2>&1 || status=$?
[ "$status" != 0 ] || fail "--nproc 0 was accepted"
echo "kit.launcher: prefixed output, the failing rank named, the timeout, no rank left behind"
