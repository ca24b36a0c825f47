# Sourced by ./grade and ./test: makes sure the Debian packages the kit needs are
# installed. As root with apt it installs what is missing; otherwise it prints the
# exact apt-get line and stops.

# Packages every build needs (compiler, CMake, Ninja, the libraries find_package looks for).
KINDLING_BUILD_PACKAGES=(g++ cmake ninja-build ccache libgtest-dev libbenchmark-dev
  libeigen3-dev nlohmann-json3-dev libcli11-dev zlib1g-dev libboost-context-dev libgloo-dev)
# Packages that only make things faster: a failed install of these stops nothing.
KINDLING_OPTIONAL_PACKAGES=(ccache)
# Extra packages the kit's own test suite needs (API docs, the JUnit schema check, formatting,
# property tests, the HTML report in a headless browser, watch mode driven through tmux).
KINDLING_TEST_PACKAGES=(doxygen libxml2-utils clang-format librapidcheck-dev chromium tmux zip unzip python3-yaml python3-jsonschema)

# The command a tool package provides: a tool found on the PATH counts as installed,
# whatever installed it (the GPU host's CMake and Ninja come from a Python venv).
kindling_command_of() {
  case "$1" in
    g++) echo g++ ;; cmake) echo cmake ;; ninja-build) echo ninja ;; ccache) echo ccache ;;
    doxygen) echo doxygen ;; libxml2-utils) echo xmllint ;; clang-format) echo clang-format ;;
    chromium) echo chromium ;; tmux) echo tmux ;;
  esac
}

# Ubuntu has no Chromium .deb: its `chromium-browser` is a stub that asks for the snap, and
# apt-get installs that stub for `chromium`. The HTML-report test skips without a browser.
kindling_unavailable_here() {
  [ "$1" = chromium ] && grep -qs '^ID=ubuntu' /etc/os-release
}

kindling_missing_packages() {
  local p c
  for p in "$@"; do
    kindling_unavailable_here "$p" && continue
    c=$(kindling_command_of "$p")
    [ -n "$c" ] && command -v "$c" > /dev/null 2>&1 && continue
    # (A pattern, not =: a package installed for two architectures prints its status twice.)
    case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" in *"install ok installed"*) ;; *) echo "$p" ;; esac
  done
}

kindling_is_optional() {
  local o
  for o in "${KINDLING_OPTIONAL_PACKAGES[@]}"; do [ "$o" = "$1" ] && return 0; done
  return 1
}

# kindling_ensure_packages PKG... : install missing packages or explain how.
kindling_ensure_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "kindling: not a Debian/Ubuntu system; make sure these are installed: $*" >&2
    return 0
  fi
  local missing required="" p
  missing=$(kindling_missing_packages "$@" | tr '\n' ' ')
  missing=${missing% }
  [ -z "$missing" ] && return 0
  for p in $missing; do kindling_is_optional "$p" || required="$required $p"; done
  required=${required# }
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "kindling: installing missing packages: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || true
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing && return 0
    [ -z "$required" ] && { echo "kindling: could not install $missing (optional); continuing" >&2; return 0; }
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $required
  elif [ -z "$required" ]; then
    echo "kindling: optional package(s) not installed: $missing (sudo apt-get install -y $missing)" >&2
  else
    echo "kindling: missing packages: $missing" >&2
    echo "kindling: install them with:" >&2
    echo "  sudo apt-get install -y $missing" >&2
    return 1
  fi
}
