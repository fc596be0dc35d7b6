#!/bin/bash
# The ASCII cacheline maps, struct by struct, on the layouts of real
# kernels (layout --btf of each BTF fixture, 5.10 to 7.3): every cacheline
# of mem_cgroup, page_counter, memcg_stock_pcp and obj_stock_pcp has its
# own row, numbered, holding every box label the map's TSV says is drawn
# there (the terminal is sized to the struct: two rows per line), within
# 72 columns and with no control character (gnuplot's dumb terminal
# starts with a form feed), the list of keys under the x label, not on
# its row; the hot line of memcg_stock_pcp shows cached
# and names nr_pages, page_counter's first line shows usage.
set -u
. "$(dirname "$0")/lib/tap.sh"

command -v gnuplot >/dev/null || skip_all "gnuplot not installed (make deps)"
[ -f build/btf/vmlinux-6.18.44.btf ] || skip_all "build/btf/ is not built (make build)"

# What is not where it should be in a map (nothing: all is).
map_rows() { awk -F'\t' -v nl="$3" -f lab/tests/lib/ascii-map-rows.awk "$2" "$1"; }

for rel in 5.10.262 6.1.192 6.12.117 6.16.12 6.18.44 7.1.13 7.2.12 7.3.4-rt; do
	r=$T/$rel
	mkdir -p "$r/data"
	echo '{"name":"t","status":"complete","probe":{"kernel":"'"$rel"'"}}' > "$r/meta.json"
	if ! $LAB layout --btf "build/btf/vmlinux-$rel.btf" --out "$r/data/layout" >"$T/layout.out" 2>&1 ||
	   ! $LAB plot "$r" >"$T/plot.out" 2>&1; then
		ok false "$rel: layout and plot ($(tail -n1 "$T/layout.out" "$T/plot.out" | tr '\n' ' '))"
		continue
	fi
	for st in mem_cgroup page_counter memcg_stock_pcp obj_stock_pcp; do
		txt=$r/plots/cachelines-$st.txt
		if ! grep -q "^struct $st: [0-9]* B, [0-9]* cachelines" "$r/data/layout/cachelines.txt"; then
			ok 'grep -q "^struct $st: absent" "$r/data/layout/cachelines.txt" && [ ! -e "$txt" ]' \
				"$rel $st: absent from the kernel, and no map"
			continue
		fi
		nl=$(sed -n "s/^struct $st: [0-9]* B, \([0-9]*\) cachelines.*/\1/p" "$r/data/layout/cachelines.txt")
		bad=$(map_rows "$txt" "$r/plots/cachelines-$st.tsv" "$nl")
		ok '[ -s "$txt" ] && [ -z "$bad" ]' \
			"$rel $st: each of its $nl cachelines on a row of its own, with its labels${bad:+: $(echo "$bad" | head -n2 | tr '\n' ' ')}"
		xl=$(grep "byte of the line" "$txt")
		ok '[ "$(echo "$xl" | sed "s/byte of the line;  |name\* hot-written,  |name~ read-mostly//" | tr -d " ")" = "" ]' \
			"$rel $st: the x label has its row to itself, the key list under it (\"$xl\")"
		cc=$(od -An -c "$txt" | grep -o '\\[^n ]' | sort -u | tr '\n' ' ')
		ok '[ "$(LC_ALL=C.UTF-8 wc -L < "$txt")" -le 72 ] && ! LC_ALL=C grep -q "[[:cntrl:]]" "$txt"' \
			"$rel $st: within 72 columns, no control character${cc:+ (has $cc)}"
	done
done

# What issue 31 saw lost: the hot line of 6.18's stock, page_counter's usage.
m=$T/6.18.44/plots
ok 'grep -Eq "^ *0 \|.*\|cached\*" "$m/cachelines-memcg_stock_pcp.txt" &&
	grep -Eq "^ *0 \|\|b\*" "$m/cachelines-memcg_stock_pcp.txt" && grep -Eq "(^| )b nr_pages( |$)" "$m/cachelines-memcg_stock_pcp.txt"' \
	"6.18 memcg_stock_pcp: line 0 shows cached and nr_pages (key b, too narrow for its name)"
ok 'grep -Eq "^ *0 \|usage\*" "$m/cachelines-page_counter.txt"' "6.18 page_counter: line 0 shows usage"
done_testing
