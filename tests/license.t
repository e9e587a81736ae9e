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

while read -r f; do
  case "$f" in
    *.c|*.h) style=c; first=2 ;;             # after the line "/*"
    *.sql) style=sql; first=1 ;;
    *.js|*.ts|*.go) style=slash; first=1 ;;
    *) style=hash; first=1 ;;
  esac
  [ "$style" = hash ] || [ "$style" = slash ] &&
    head -n 1 "$f" | grep -q '^#!' && first=2
  ok=0
  [ "$style" != c ] || [ "$(head -n 1 "$f")" = "/*" ] || ok=1
  # The first line says the job: not the dedication, not an empty comment.
  opening=$(sed -n "${first}p" "$f")
  [ "$opening" = "$(head -n 1 "$tmp/$style")" ] && ok=1
  case "$opening" in ""|"**"|"#"|"--"|"//") ok=1 ;; esac
  # The dedication follows it, below an empty comment line (or, in Python,
  # the module's docstring and a blank line), within the first 80 lines.
  at=$(head -n 80 "$f" | grep -n -F -x -e "$(head -n 1 "$tmp/$style")" | head -n 1 | cut -d: -f1)
  if [ -z "$at" ] || [ "$at" -le "$first" ]; then
    ok=1
  else
    sed -n "$at,$((at + lines - 1))p" "$f" | cmp -s - "$tmp/$style" || ok=1
    case "$(sed -n "$((at - 1))p" "$f")" in "**"|"#"|"--"|"//"|"") ;; *) ok=1 ;; esac
  fi
  check $ok "$f says its job first, then the dedication"
done <"$tmp/sources"

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
