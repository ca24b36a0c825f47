#!/usr/bin/env bash
# kit.links: the kit speaks only of itself. Every relative link of every Markdown file leads to a
# file of the repository and, with a #anchor, to a heading (GitHub's slug) or <a id> there; and
# no text file names a tracker number, the sittings in which the kit was written, or notes and
# paths outside the repository (the exact list, and the code allowed to use such words, is in
# links.py). Generated exercises/ copies are skipped when their solutions/ source is checked
# (pass --with-exercises to read them too). Prints FILE:LINE: reason for each offence.
#
#   links.sh SOURCE_DIR [--with-exercises]
set -euo pipefail
src=${1:?usage: links.sh SOURCE_DIR [--with-exercises]}
shift
exec python3 "$(dirname "${BASH_SOURCE[0]}")/links.py" "$src" "$@"
