#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that every relative markdown link, [text](path) or
# [text](path#anchor), in README.md and docs/*.md names a file or directory
# that exists, relative to the file that holds the link. Links to http(s)://
# and mailto:, and anchors within a page (#anchor), are not checked; nor is
# whether an anchor exists in the file it names. Prints each broken link as
# FILE:LINE: PATH and exits 1 if there is any, 0 if none.
#
# usage: check-doc-links.sh [FILE.md...]   (default: README.md docs/*.md)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ $# -gt 0 ]; then
	files=("$@")
else
	shopt -s nullglob
	files=(README.md docs/*.md)
	shopt -u nullglob
fi

broken=0 checked=0
for f in "${files[@]}"; do
	[ -f "$f" ] || { echo "check-doc-links: no file '$f'" >&2; exit 2; }
	dir=$(dirname "$f")
	# Each link target as LINE<TAB>TARGET: the text in [] may hold `code`
	# but no ], the target no ) or blank; an optional "title" follows it.
	# Fenced code blocks are skipped, and so are code spans, so that
	# a[i](x) in an example is not taken for a link.
	while IFS=$'\t' read -r line target; do
		case $target in
		http://* | https://* | mailto:* | '#'*) continue ;;
		esac
		path=${target%%#*}
		path=${path%%\?*}
		checked=$((checked + 1))
		if [ ! -e "$dir/$path" ]; then
			echo "$f:$line: $target"
			broken=$((broken + 1))
		fi
	done < <(awk '
		/^[ \t]*(```|~~~)/ { fence = !fence; next }
		fence { next }
		{
			s = $0
			gsub(/`[^`]*`/, "", s)
			while (match(s, /\[[^]]*\]\([^) \t]+([ \t]+"[^"]*")?\)/)) {
				l = substr(s, RSTART, RLENGTH)
				s = substr(s, RSTART + RLENGTH)
				sub(/^\[[^]]*\]\(/, "", l)
				sub(/[ \t]+"[^"]*"\)$/, "", l)
				sub(/\)$/, "", l)
				print NR "\t" l
			}
		}' "$f")
done

if [ "$broken" -gt 0 ]; then
	echo "check-doc-links: $broken of $checked relative links broken" >&2
	exit 1
fi
echo "check-doc-links: $checked relative links, all resolve"
