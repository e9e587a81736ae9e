#!/bin/sh
# The license is stated everywhere: every source file under ext/, tests/
# and sql/, and the Makefile (C and headers, .py, .sh, .sql, .t, .mk, and
# the packages' and host tests' .js, .ts, .go, .pl, .rb, .tcl) opens with
# a sentence or two of its job (after a shebang line if there is one; a
# Python module's docstring), then the dedication, word for word as the
# "License: public-domain" paragraph of ext/packaging/copyright gives it,
# below an empty comment line; README.md ends with a License section.  The
# files are git's tracked ones (those found on disk outside a git checkout,
# as in an unpacked tarball); data (test vectors, fuzzing seeds, expected
# output) and the .md documents are not source.  Prints TAP.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib/tap.sh

# --- the text, from the package's copyright file ----------------------------
copyright=ext/packaging/copyright
# The stand-alone paragraph "License: public-domain": its continuation lines,
# less their leading space (" ." is an empty line in Debian's format).
awk 'started && !/^ / { exit }
     started { sub(/^ /, ""); if ($0 == ".") $0 = ""; print }
     /^License: public-domain$/ && !in_files { started = 1 }
     /^Files:/ { in_files = 1 } /^$/ { in_files = 0 }' \
  "$copyright" >"$tmp/text" 2>/dev/null
lines=$(wc -l <"$tmp/text")
grep -q 'dedicated to the public domain' "$tmp/text" &&
  grep -q 'as is, without warranty of any' "$tmp/text" &&
  grep -q 'not liable' "$tmp/text" && [ "$lines" -ge 4 ] && [ "$lines" -le 7 ]
check $? "$copyright gives the dedication and the disclaimer in $lines lines (4 to 7)" \
  "$(cat "$tmp/text")"
[ "$(head -n 1 "$copyright")" = \
  "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ] &&
  awk '/^Files: \*$/ { f = 1 } f && /^License: public-domain$/ { ok = 1 }
       /^$/ { f = 0 } END { exit !ok }' "$copyright"
check $? "$copyright is in Debian's machine-readable format: Files: * under License: public-domain"

# The dedication as each comment syntax writes it.
sed 's/^/** /; s/ *$//' "$tmp/text" >"$tmp/c"
sed 's/^/# /; s/ *$//' "$tmp/text" >"$tmp/hash"
sed 's/^/-- /; s/ *$//' "$tmp/text" >"$tmp/sql"
sed 's,^,// ,; s/ *$//' "$tmp/text" >"$tmp/slash"

# --- every source file -------------------------------------------------------
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -- ext tests sql Makefile >"$tmp/all"
else
  { find ext tests sql -type f; echo Makefile; } | sort >"$tmp/all"
fi
grep -E '\.(c|h|py|sh|sql|t|mk|js|ts|go|pl|rb|tcl)$|^Makefile$' "$tmp/all" >"$tmp/sources"
count=$(wc -l <"$tmp/sources")
kinds=""
for k in c h py sh sql t mk js ts go pl rb tcl; do
  grep -q "\.$k\$" "$tmp/sources" || kinds="$kinds .$k"
done
[ "$count" -ge 100 ] && [ -z "$kinds" ] && grep -qx Makefile "$tmp/sources"
check $? "$count source files found, of every kind and the Makefile" "none of:$kinds"

# One awk over every file (a loop of sed, head and grep per file took
# 15 seconds): for each, 0 (passes) or 1, then its name.
awk -v tmp="$tmp" -v lines="$lines" '
  function text(style,   line, k) {
    k = 0
    while ((getline line < (tmp "/" style)) > 0) t[style, ++k] = line
    close(tmp "/" style)
  }
  BEGIN { text("c"); text("hash"); text("sql"); text("slash") }
  {
    f = $0
    if (f ~ /\.[ch]$/) { style = "c"; first = 2 }      # after the line "/*"
    else if (f ~ /\.sql$/) { style = "sql"; first = 1 }
    else if (f ~ /\.(js|ts|go)$/) { style = "slash"; first = 1 }
    else { style = "hash"; first = 1 }
    m = 0
    while (m < 80 + lines && (getline line < f) > 0) l[++m] = line
    close(f)
    bad = 0
    if ((style == "hash" || style == "slash") && l[1] ~ /^#!/) first = 2
    if (style == "c" && l[1] != "/*") bad = 1
    # The first line says the job: not the dedication, not an empty comment.
    opening = first <= m ? l[first] : ""
    if (opening == t[style, 1]) bad = 1
    if (opening == "" || opening == "**" || opening == "#" || opening == "--" ||
        opening == "//") bad = 1
    # The dedication follows it, below an empty comment line (or, in Python,
    # the module docstring and a blank line), within the first 80 lines.
    at = 0
    for (i = 1; i <= m && i <= 80; i++) if (l[i] == t[style, 1]) { at = i; break }
    if (at <= first) bad = 1
    else {
      for (i = 0; i < lines; i++)
        if (at + i > m || l[at + i] != t[style, i + 1]) bad = 1
      above = l[at - 1]
      if (above != "**" && above != "#" && above != "--" && above != "//" &&
          above != "") bad = 1
    }
    print bad, f
    delete l
  }' "$tmp/sources" >"$tmp/verdicts"
while read -r ok f; do
  check "$ok" "$f says its job first, then the dedication"
done <"$tmp/verdicts"

# --- the README --------------------------------------------------------------
# Its last section is "## License", one line that says what the license is.
tail_lines=$(awk '/^## / { h = $0; body = 0; next } NF { body++ }
                  END { print h "|" body }' README.md)
last=$(grep -v '^[[:space:]]*$' README.md | tail -n 1)
[ "$tail_lines" = "## License|1" ] &&
  printf '%s\n' "$last" | grep -q 'public domain'
check $? "README.md ends with a one-line License section" "ends: $tail_lines: $last"

echo "1..$n"
exit $failed
