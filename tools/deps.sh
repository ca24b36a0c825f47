# Sourced by ./grade and ./test: makes sure the Debian packages the kit needs are
# installed. As root with apt it installs what is missing; otherwise it prints the
# exact apt-get line and stops.

# Packages every build needs (compiler, CMake, Ninja, the libraries find_package looks for).
KINDLING_BUILD_PACKAGES=(g++ cmake ninja-build ccache libgtest-dev libbenchmark-dev
  libeigen3-dev nlohmann-json3-dev libcli11-dev zlib1g-dev)
# Extra packages the kit's own test suite needs (API docs, the JUnit schema check, formatting).
KINDLING_TEST_PACKAGES=(doxygen libxml2-utils clang-format)

kindling_missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

# kindling_ensure_packages PKG... : install missing packages or explain how.
kindling_ensure_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "kindling: not a Debian/Ubuntu system; make sure these are installed: $*" >&2
    return 0
  fi
  local missing
  missing=$(kindling_missing_packages "$@" | tr '\n' ' ')
  missing=${missing% }
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "kindling: installing missing packages: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || true
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
  else
    echo "kindling: missing packages: $missing" >&2
    echo "kindling: install them with:" >&2
    echo "  sudo apt-get install -y $missing" >&2
    return 1
  fi
}
