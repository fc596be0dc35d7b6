# Prints what is not where it should be in a map's ASCII rendering (no
# output: all is): row r of the map (plots/cachelines.gp, linesmap.gp) is
# the (2r+1)-th text row under its top border (memcg-lab draws two rows
# per cacheline), and holds every box label its TSV (line start end tag
# name label label_txt) says is drawn there; with nl > 0 (a cacheline map
# of nl lines) each row is numbered with its line on the left.
#   awk -F'\t' -v nl=N -f ascii-map-rows.awk map.tsv map.txt
NR == FNR {
	if (FNR > 1) {
		lab[$1, ++cnt[$1]] = $7
		if ($1 + 1 > rows)
			rows = $1 + 1
	}
	next
}
!top && /^ *\+-+\+/ { top = FNR; next }
top && FNR > top { row[FNR - top] = $0 }
END {
	if (!top) {
		print "no map border"
		exit
	}
	if (nl > rows)
		rows = nl
	for (l = 0; l < rows; l++) {
		r = row[1 + 2 * l]
		if (nl > 0 && r !~ ("^ *" l " [|]"))
			print "line " l ": no row numbered " l " (\"" r "\")"
		for (i = 1; i <= cnt[l]; i++)
			if (lab[l, i] != "|" && !index(r, lab[l, i]))
				print "line " l ": \"" lab[l, i] "\" not on its row (\"" r "\")"
	}
}
