# The cacheline map of a struct layout: one row per cacheline, each byte
# range a box (union members share one), hot-written fields red,
# read-mostly ones blue.  A line whose fields share a prefix (a
# page_counter: "memory") names it on the right; a name too long for its
# box is a key into the list under the map.  memcg-lab sets the margins,
# so it knows how wide a byte is and fits each label to its box.
# Variables: title, file, nlines, linesize, prefixes (y2tics), keys (the
# list's "set label" commands), lm rm tm bm (screen fractions); for the
# dumb terminal prefixes_txt, keys_txt, lm_txt rm_txt bm_txt (characters).
# File: line start end tag name label label_txt (TSV, header row); tag 1
# hot-written, 2 read-mostly.
text = GPVAL_TERM eq "dumb"
set title title
set xrange [0:linesize]
set yrange [nlines - 0.5:-0.5]
set y2range [nlines - 0.5:-0.5]
set datafile separator "\t"
if (text) {
	set lmargin lm_txt; set rmargin rm_txt; set bmargin bm_txt; set tmargin 3
	# Two rows per cacheline (memcg-lab sizes the text): each line's
	# number at its row; no tic marks, which would fall on a line's row.
	set ytics 1 nomirror scale 0; set xtics 8 scale 0; unset ylabel
	set xlabel "byte of the line;  |name* hot-written,  |name~ read-mostly" offset 0, 0.5
	if (strlen(prefixes_txt) > 0) { eval "set y2tics (" . prefixes_txt . ") nomirror scale 0" }
	eval keys_txt
	set key off
	plot file skip 1 using 2:1:(stringcolumn(7)) with labels left notitle
} else {
	set lmargin at screen lm; set rmargin at screen rm; set tmargin at screen tm; set bmargin at screen bm
	set xlabel "byte within the cacheline"
	set ylabel "cacheline"
	set ytics 1 nomirror
	set xtics 8
	if (strlen(prefixes) > 0) { eval "set y2tics (" . prefixes . ") nomirror scale 0" }
	eval keys
	set grid xtics
	set style fill solid 0.5 border lc rgb "black"
	set key outside top horizontal samplen 2
	plot file skip 1 using ($4 == 1 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
		with boxxyerror lc rgb "#d62728" title "hot-written", \
	     file skip 1 using ($4 == 2 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
		with boxxyerror lc rgb "#1f77b4" title "read-mostly", \
	     file skip 1 using ($4 == 0 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
		with boxxyerror lc rgb "#bbbbbb" title "other", \
	     file skip 1 using (($2 + $3) / 2.0):1:(stringcolumn(6)) with labels font ",7" notitle
}
