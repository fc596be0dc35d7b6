#!/bin/bash
# TAP: the manual (doc/memcg-lab-*.txt, `memcg-lab help CMD`) against the
# commands it documents.  For every command `memcg-lab help` lists, and every
# subcommand of those that have them (c2c, lock, lines: the names their
# "unknown subcommand" line wants), the long and short options its --help
# prints (util/options.c prints each row "  -o, --out DIR") are the options
# its page documents, both ways: each --help option is a term ("--out DIR::")
# of the page's OPTIONS section (of "C2C RECORD OPTIONS" for `c2c record`),
# and each option term there is in --help.  -h/--help, every command's, is
# documented once in memcg-lab(1).  Then the built pages (make man:
# asciidoctor), `memcg-lab help` showing them on a terminal and off one, the
# page of an unknown name, and the README kept to what a newcomer reads.
set -u
. "$(dirname "$0")/lib/tap.sh"

# The page's option terms in section SECTION, one per line ("--out", "-o");
# its subsections ("Placement", underlined ~) included.  A section is an
# upper-case title underlined by as many '-'.
page_options() {	# page section
	awk -v want="$2" '
		/^-+$/ && prev ~ /^[A-Z][A-Z0-9 ]*$/ && length($0) == length(prev) { on = (prev == want); seen += on }
		on && /^-[^ \t].*::$/ { t = $0; sub(/::$/, "", t); sub(/[ =].*/, "", t); print t }
		{ prev = $0 }
		END { if (!seen) print "NO-SECTION" }' "$1" | sort -u
}
# The options a --help text prints: "--out" and "-o" of each option row.
help_options() {	# help text on stdin
	grep -E '^  (-[A-Za-z0-9], )?--[a-z0-9][a-z0-9-]*' | sed -E 's/^  (-[A-Za-z0-9]), /\1\n  /' |
		grep -Eo '^(-[A-Za-z0-9]$|  --[a-z0-9][a-z0-9-]*)' | tr -d ' ' | sort -u
}
# The sections of a page that document options ("OPTIONS", "C2C RECORD OPTIONS").
option_sections() {
	awk '/^-+$/ && prev ~ /^[A-Z][A-Z0-9 ]* OPTIONS$|^OPTIONS$/ && length($0) == length(prev) { print prev }
		{ prev = $0 }' "$1"
}
upper() { echo "$1" | tr '[:lower:]' '[:upper:]'; }
words() { printf '%s' "$1" | tr '\n' ' '; }

cmds=$($LAB help | awk '/^commands:/ { on = 1; next } on && /^  [a-z0-9]+ / { print $1 }' | grep -vx help)
ok '[ "$(echo "$cmds" | wc -w)" -ge 14 ]' "memcg-lab help lists the commands: $(words "$cmds")"

for c in $cmds; do
	page=doc/memcg-lab-$c.txt
	if [ ! -f "$page" ]; then
		ok false "$c: a page $page"
		continue
	fi
	ok '[ "$(sed -n 1p "$page")" = "memcg-lab-$c(1)" ] && grep -q "^memcg-lab-$c - [^ ]" "$page"' \
		"$c: $page titled memcg-lab-$c(1), with its NAME line"
	h=$($LAB "$c" --help 2>&1)
	if echo "$h" | grep -q '^  -h, --help'; then
		subs=("")
	else
		# A parent: its subcommands are what its unknown-subcommand line wants.
		want=$($LAB "$c" no-such-sub 2>&1 | sed -n 's/.*unknown subcommand .no-such-sub. (want \([^;]*\);.*/\1/p')
		read -r -a subs <<< "$(echo "$want" | sed 's/,//g; s/ or / /')"
		ok '[ "${#subs[@]}" -ge 2 ]' "$c: a command of subcommands (${subs[*]})"
	fi
	expect=""
	for s in "${subs[@]}"; do
		if [ -z "$s" ]; then
			name=$c section=OPTIONS
		else
			name="$c $s" section="$(upper "$c $s") OPTIONS"
		fi
		expect+="$section"$'\n'
		# shellcheck disable=SC2086 # name is the command and its subcommand
		hopts=$($LAB $name --help 2>&1 | help_options | grep -vx -- '--help\|-h')
		popts=$(page_options "$page" "$section" | grep -vx -- '--help\|-h')
		if [ "$popts" = NO-SECTION ]; then
			ok false "$name: $page has a section '$section'"
			continue
		fi
		ok '[ -n "$hopts" ]' "$name --help prints its options ($(words "$hopts"))"
		missing=$(comm -23 <(echo "$hopts") <(echo "$popts") | tr '\n' ' ')
		extra=$(comm -13 <(echo "$hopts") <(echo "$popts") | tr '\n' ' ')
		ok '[ -z "$missing" ]' "$name: every option of --help in $page's $section${missing:+ (missing: $missing)}"
		ok '[ -z "$extra" ]' "$name: every option of $page's $section in --help${extra:+ (not in --help: $extra)}"
	done
	# No section for a subcommand that is not there.
	have=$(option_sections "$page" | sort)
	ok '[ "$have" = "$(printf "%s" "$expect" | sort)" ]' \
		"$c: $page's option sections are its commands' ($(words "$have"))"
done

# A page with options is a command's; the rest are topics `help` names.
for page in doc/memcg-lab-*.txt; do
	p=$(basename "$page" .txt); p=${p#memcg-lab-}
	if echo "$cmds" | grep -qx -- "$p"; then continue; fi
	ok '[ -z "$(option_sections "$page")" ] && $LAB help | tr "\n" " " | grep -q "help TOPIC: [a-z, -]*\<$p\>"' \
		"$page: a topic (no OPTIONS), named in memcg-lab help"
done
# memcg-lab(1) names every command's page, and no other.
listed=$(awk '$0 == "COMMANDS" { on = 1; next } on && /^[A-Z][A-Z ]*$/ { exit }
	on && /^\*memcg-lab-[a-z0-9]+\*\(1\)::$/ { sub(/^\*memcg-lab-/, ""); sub(/\*.*/, ""); print }' doc/memcg-lab.txt)
ok '[ "$listed" = "$(echo "$cmds" | sort)" ]' "doc/memcg-lab.txt's COMMANDS: every command's page ($(words "$listed"))"

# The built pages: every option of a page rendered by man (asciidoctor keeps
# "--" and the names as they are written).
if ! command -v asciidoctor >/dev/null; then
	skip "make man built a page per doc/*.txt" "asciidoctor is not installed (the build said so in one line)"
else
	built=0 total=0
	for page in doc/memcg-lab*.txt; do
		total=$((total + 1))
		[ build/man/man1/"$(basename "$page" .txt)".1 -nt "$page" ] && built=$((built + 1))
	done
	ok '[ "$built" = "$total" ]' "make man built every page, newer than its .txt ($built of $total)"
	if command -v man >/dev/null; then
		for c in $cmds; do
			text=$(MANWIDTH=1000 man -l "build/man/man1/memcg-lab-$c.1" 2>/dev/null)
			lost=""
			while IFS= read -r sec; do
				for o in $(page_options "doc/memcg-lab-$c.txt" "$sec"); do
					printf '%s\n' "$text" | grep -qF -- "$o" || lost+="$o "
				done
			done < <(option_sections "doc/memcg-lab-$c.txt")
			ok '[ -n "$text" ] && [ -z "$lost" ]' "man -l memcg-lab-$c.1 shows its options as written${lost:+ (lost: $lost)}"
		done
	else
		skip "man renders the built pages" "man(1) is not installed"
	fi
fi

# memcg-lab help CMD: off a terminal, the page as text.  Without man, the
# .txt itself; with man and a built page, man's rendering.
out=$(env PATH=/nonexistent "$LAB" help probe); st=$?
ok '[ $st = 0 ] && [ "$out" = "$(cat doc/memcg-lab-probe.txt)" ]' "help probe without man: doc/memcg-lab-probe.txt as it is"
if command -v man >/dev/null && [ -f build/man/man1/memcg-lab-probe.1 ]; then
	out=$($LAB help probe); st=$?
	ok '[ $st = 0 ] && echo "$out" | grep -q "^MEMCG-LAB-PROBE(1)" && echo "$out" | grep -q "^ *memcg-lab-probe - what the kernel" &&
		! echo "$out" | grep -q "$(printf "\b")"' "help probe, not a terminal: man's plain rendering of the built page"
	# On a terminal man takes over (its pager: cat here).
	if command -v script >/dev/null; then
		out=$(MANPAGER=cat PAGER=cat script -qec "$LAB help charge" /dev/null </dev/null 2>&1); st=$?
		ok '[ $st = 0 ] && echo "$out" | tr -d "\r" | sed "s/.\x08//g" | grep -q "^MEMCG-LAB-CHARGE(1)"' \
			"help charge on a terminal: man -l build/man/man1/memcg-lab-charge.1"
	else
		skip "help on a terminal opens man" "no script(1) to give it a terminal"
	fi
else
	skip "help probe, not a terminal: man's rendering" "no man(1) or no built page (asciidoctor missing)"
fi
out=$($LAB help bad-input); st=$?
ok '[ $st = 0 ] && echo "$out" | grep -q "memcg-lab-bad-input"' "help bad-input: a topic's page"
out=$($LAB help chrage 2>&1); st=$?
ok '[ $st = 2 ] && [ "$out" = "memcg-lab: help: unknown command or topic '"'chrage'"' (nearest: charge)" ]' \
	"help of a misspelt command: one line, the nearest name, exit 2 ($out)"
out=$($LAB help ../README 2>&1); st=$?
ok '[ $st = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ]' "help of a path: no page read, one line, exit 2 ($out)"

# The README stays what a newcomer reads to the end; the manual holds the rest.
lines=$(wc -l < README.md)
ok '[ "$lines" -le 250 ]' "README.md is at most 250 lines ($lines)"
for c in $cmds; do
	ok 'grep -q "doc/memcg-lab-$c.txt" README.md' "README.md points to $c's page"
done
done_testing
