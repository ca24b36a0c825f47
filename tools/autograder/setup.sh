#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: the
# packages, then one build of the worksheet, so that a submission recompiles only
# the student's files.
set -euo pipefail
src=${KINDLING_AUTOGRADER_ROOT:-/autograder}/source
cd "$src"
# shellcheck source=/dev/null
source tools/deps.sh
kindling_ensure_packages "${KINDLING_BUILD_PACKAGES[@]}"
# shellcheck source=/dev/null
source autograder.conf
IFS=, read -ra week_list <<< "$WEEKS"
./grade ${REFERENCE:+--reference "$REFERENCE"} --no-perf "${week_list[@]}" > /dev/null 2>&1 || true
