#!/usr/bin/env python3
"""kit.links: the kit's files speak only of the kit (see links.sh, which runs this).

    links.py SOURCE_DIR [--with-exercises]

(a) Links. In every Markdown file of the repository (git ls-files, and files not yet added that
    git does not ignore), every relative link target must be a file or folder of the repository
    (not outside it, not an ignored build output), and every #anchor must exist in the target:
    a heading's anchor by GitHub's slug rule (the rule of tools/ko-sync and
    grader/tests/kit/coverage.sh, with -1, -2 for repeated headings) or an explicit
    <a id="..."> / <a name="...">; in a file that is not Markdown, #L12 or #L12-L20 within its
    lines. http(s)://, mailto: and other URLs with a scheme are not followed.
(b) Words. No text file of the repository names what lies outside it: tracker numbers, the
    sittings in which the kit was written, the design notes kept beside the repository, or paths
    into the folder beside it (see FORBIDDEN below); ALLOWED lists the code that uses such a word
    in its own sense (the grader's Session class, tmux's new-session, Popen's start_new_session),
    and the benchmark results (tools/bench/results/**.json: field names) are not read for words.

exercises/ is generated from solutions/: a file there whose solutions/ counterpart exists is
skipped (the counterpart is checked; regenerating brings the fix over), unless --with-exercises.
Prints one line per offence, FILE:LINE: reason, and a summary; exit 1 on any offence.

Why not a packaged link checker: Debian's linkchecker (10.2.1) checks HTML and web sites; its
anchor check knows HTML ids, not the anchors GitHub derives from Markdown headings, and
markdown-link-check is an npm package with no Debian package (and checks no slugs offline
either). This script needs python3's standard library only.
"""
import fnmatch
import os
import re
import subprocess
import sys
from urllib.parse import unquote

# ---- (b) the words ------------------------------------------------------------------------------
# (pattern, reason); the Korean words as escapes. This file and links.sh name the words, so they
# are not read for them (CHECKER).
I = re.IGNORECASE
FORBIDDEN = [
    (re.compile(r"\bissues?\s*#?\s*\d+", I), "a tracker number (say what was found or fixed instead)"),
    (re.compile(r"\b(?:the|this|that)\s+issue(?:'s)?\b|\bissue\s+notes?\b", I),
     "a tracker item (say what was asked, in the kit's words)"),
    (re.compile("\uc774\uc288"), "a tracker item, in Korean (say what was asked, in the kit's words)"),
    (re.compile(r"\bsessions?\b", I), "a working sitting of the kit's authors (name the date or the run instead)"),
    (re.compile("\uc138\uc158"), "a working sitting of the kit's authors, in Korean"),
    (re.compile(r"\bsteering\b", I), "notes kept outside the repository"),
    (re.compile("\uc124\uacc4 \ubc29\ud5a5\uc744 \uc815\ud558\ub294 \ub178\ud2b8|\uc124\uacc4 \ub178\ud2b8"),
     "notes kept outside the repository, in Korean"),
    (re.compile(r"\bDESIGN(?:-[A-Z]+)?(?:\.md)?\b"), "a design note kept outside the repository"),
    (re.compile(r"\bthe\s+design\s+notes?\b", I), "a design note kept outside the repository"),
    (re.compile(r"(?:\.\./)+shared\b|(?<![\w./-])shared/"), "a path into the folder beside the repository"),
]

# (path pattern, regular expression): the matched text is legitimate code in those files.
ALLOWED = [
    ("grader/src/*", re.compile(r"\bSession\b")),                       # the grader's Session class
    ("grader/tests/grader/*", re.compile(r"\bSession(?=\()")),          # ... constructed by its tests
    ("grader/src/*", re.compile(r"\bsession(?=\.\w|\()")),               # a Session object
    ("grader/src/*", re.compile(r"\bgrading session\b", I)),
    ("grader/CMakeLists.txt", re.compile(r"\bgrading session\b", I)),
    ("*", re.compile(r"\bsession\.(?:cpp|hpp)\b")),                      # grader/src/session.cpp
    ("*", re.compile(r"\bnew-session\b")),                               # tmux new-session
    ("*", re.compile(r"\bstart_new_session\b")),                         # subprocess.Popen
    # PyTorch's own DDP error, word for word ("... when reporting this issue (e.g. list, dict, ...").
    ("solutions/week07_distributed/src/ddp.cpp", re.compile(r"reporting this issue")),
    ("grader/tests/week07/data/oracle.json", re.compile(r"when reporting this issue")),
]
NOT_READ_FOR_WORDS = ["tools/bench/results/*.json"]
# The checker names the words it looks for.
CHECKER = {"grader/tests/kit/links.py", "grader/tests/kit/links.sh"}


# ---- (a) the links ------------------------------------------------------------------------------
def slug(heading: str) -> str:
    """GitHub's anchor for a heading: tools/ko-sync's slug() (the rules of coverage.sh)."""
    out = []
    for ch in heading:
        if 0x2000 <= ord(ch) <= 0x206F:
            continue
        if ch.isascii() and ch.isalnum() or ch in "-_" or not ch.isascii():
            out.append(ch.lower() if ch.isascii() else ch)
        elif ch == " ":
            out.append("-")
    return "".join(out)


FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6}) +(.*?)(?: +#+)? *$")
HTML_ID = re.compile(r"<a\b[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", I)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
INLINE_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']*)[\"']", I)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_lines(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):]:
                fence = None
            continue
        yield n, line


def heading_text(raw):
    """The heading as GitHub renders it: links and images by their text, HTML tags dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    return re.sub(r"<[^>]+>", "", text)


def anchors_of(text):
    found, seen = set(), {}
    for _, line in markdown_lines(text):
        m = HEADING.match(line)
        if m:
            base = slug(heading_text(m.group(2)))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        found.update(HTML_ID.findall(line))
    return found


def links_of(text):
    """(line number, target) of every link in a Markdown text, code spans and blocks excepted."""
    for n, line in markdown_lines(text):
        plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for m in INLINE_LINK.finditer(plain):
            yield n, m.group(2)
        m = REF_DEF.match(plain)
        if m:
            yield n, m.group(1)
        for target in HTML_LINK.findall(plain):
            yield n, target


# ---- the repository -----------------------------------------------------------------------------
def repository_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True).stdout
        files = sorted({f for f in out.decode("utf-8", "surrogateescape").split("\0") if f})
    except (OSError, subprocess.CalledProcessError):
        # Not a git checkout (a copied tree): every file but build outputs.
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in (".git", "build", "out", "__pycache__")]
            files += [os.path.relpath(os.path.join(d, x), root).replace(os.sep, "/") for x in names]
        files.sort()
    return [f for f in files if os.path.isfile(os.path.join(root, f))]


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    with_exercises = "--with-exercises" in argv
    if len(args) != 1:
        print("usage: links.py SOURCE_DIR [--with-exercises]", file=sys.stderr)
        return 2
    root = os.path.realpath(args[0])
    files = repository_files(root)
    file_set = set(files)
    dirs = {""}
    for f in files:
        parts = f.split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))

    def generated_copy(f):
        return f.startswith("exercises/") and ("solutions/" + f[len("exercises/"):]) in file_set

    checked = [f for f in files if with_exercises or not generated_copy(f)]
    skipped = len(files) - len(checked)
    offences = []
    texts = {}

    def text_of(f):
        if f not in texts:
            with open(os.path.join(root, f), "rb") as h:
                data = h.read()
            texts[f] = None if b"\0" in data[:8192] else data.decode("utf-8", "replace")
        return texts[f]

    anchor_cache = {}
    n_links = 0
    for f in checked:
        if not f.endswith(".md"):
            continue
        text = text_of(f)
        here = os.path.dirname(f)
        for n, target in links_of(text):
            target = target.strip("<>")
            if not target or SCHEME.match(target):
                continue
            n_links += 1
            path, _, anchor = target.partition("#")
            path = unquote(path)
            if path.startswith("/"):
                resolved = os.path.normpath(path.lstrip("/"))
            else:
                resolved = os.path.normpath(os.path.join(here, path)) if path else f
            resolved = resolved.replace(os.sep, "/")
            if resolved == ".":
                resolved = ""
            if resolved.startswith("../") or resolved == "..":
                offences.append((f, n, f"link {target}: leads outside the repository"))
                continue
            if resolved not in file_set and resolved not in dirs:
                why = "is not in the repository" if os.path.exists(os.path.join(root, resolved)) else "does not exist"
                offences.append((f, n, f"link {target}: {resolved} {why}"))
                continue
            if not anchor:
                continue
            anchor = unquote(anchor)
            if resolved in dirs:
                offences.append((f, n, f"link {target}: a folder has no anchors"))
            elif resolved.endswith(".md"):
                if resolved not in anchor_cache:
                    anchor_cache[resolved] = anchors_of(text_of(resolved) or "")
                if anchor not in anchor_cache[resolved]:
                    offences.append((f, n, f"link {target}: {resolved} has no heading or <a id> with the anchor #{anchor}"))
            else:
                m = re.fullmatch(r"L(\d+)(?:-L(\d+))?", anchor)
                lines = len((text_of(resolved) or "").splitlines())
                if not m or max(int(m.group(1)), int(m.group(2) or 0)) > lines:
                    offences.append((f, n, f"link {target}: #{anchor} is not a line of {resolved} ({lines} lines)"))

    n_words = 0
    for f in checked:
        if f in CHECKER or any(fnmatch.fnmatch(f, p) for p in NOT_READ_FOR_WORDS):
            continue
        text = text_of(f)
        if text is None:
            continue
        n_words += 1
        allowed = [rx for p, rx in ALLOWED if fnmatch.fnmatch(f, p)]
        for rx in allowed:  # blanked to the same length, so that offsets keep their lines
            text = rx.sub(lambda m: " " * len(m.group(0)), text)
        found = set()
        for rx, reason in FORBIDDEN:  # over the whole text: a phrase may be broken across lines
            for m in rx.finditer(text):
                n = text.count("\n", 0, m.start()) + 1
                if (n, reason) not in found:
                    found.add((n, reason))
                    offences.append((f, n, f"{' '.join(m.group(0).split())!r}: {reason}"))

    out = sys.stderr if offences else sys.stdout
    for f, n, reason in sorted(offences):
        print(f"{f}:{n}: {reason}", file=out)
    note = f", {skipped} generated exercises/ files skipped (their solutions/ sources are checked)" if skipped else ""
    summary = (f"links: {len(checked)} files, {n_links} relative links in Markdown, {n_words} text files read "
               f"for words{note}: {len(offences)} offence(s)")
    print(summary, file=out)
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
