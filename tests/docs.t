#!/bin/sh
# The documents speak to users and to the next engineer, not to the team's
# tracker: no Markdown file names an issue or a numbered target ("issue
# 24", "target 2b"); each says what was found or measured instead.  The
# files are git's tracked ones (those on disk outside a checkout).  Prints
# TAP.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
. tests/lib/tap.sh

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  docs=$(git ls-files '*.md')
else
  docs=$(find . -name '*.md' -not -path './build/*' | sed 's|^\./||')
fi
count=$(printf '%s\n' $docs | grep -c .)
pattern='\bissues? #?[0-9]+|\btargets? [0-9]+[a-c]?\b'
found=$(printf '%s\n' $docs | xargs grep -n -i -E "$pattern" 2>/dev/null)
[ "$count" -ge 10 ] && [ -z "$found" ]
check $? "$count documents name no issue or numbered target" "$found"
# The check itself: the pattern finds what it must.
printf 'as issue 24 found\nTarget 2b met\n' | grep -c -i -E "$pattern" | grep -qx 2
check $? "the pattern finds \"issue 24\" and \"Target 2b\""
echo "1..$n"
exit $failed
