# The cacheline map of a struct coloured by a guest run's measured
# cacheline transfers (the lines plugin's fields.tsv): one row per line
# that holds a field the plugin followed (the left tics give the line's
# number in the struct), each field's byte range a box: orange when its
# HITMs were mostly false sharing (the other side wrote other bytes of
# the line), red mostly true sharing, light blue loaded or stored with
# no HITM, grey untouched.  The list under the map names the fields with
# HITMs, their counts and the other side's field.
# Variables: title, file, nlines, linesize, rows (the left tics),
# prefixes (y2tics), keys (the list's "set label" commands), lm rm tm bm
# (screen fractions); for the dumb terminal prefixes_txt, keys_txt,
# lm_txt rm_txt bm_txt (characters).
# File: line start end tag name label label_txt (TSV, header row); tag 3
# false sharing, 4 true sharing, 5 no HITM, 0 untouched.
text = GPVAL_TERM eq "dumb"
set title title
set xrange [0:linesize]
set yrange [nlines - 0.5:-0.5]
set y2range [nlines - 0.5:-0.5]
set datafile separator "\t"
if (text) {
	set lmargin lm_txt; set rmargin rm_txt; set bmargin bm_txt; set tmargin 3
	# Two rows per cacheline (memcg-lab sizes the text): no tic marks,
	# which would fall on a line's row.
	eval "set ytics (" . rows . ") nomirror scale 0"
	set xtics 8 scale 0; unset ylabel
	set xlabel "byte of the line;  |name! false sharing,  |name# true sharing" offset 0, 0.5
	if (strlen(prefixes_txt) > 0) { eval "set y2tics (" . prefixes_txt . ") nomirror scale 0" }
	eval keys_txt
	set key off
	plot file skip 1 using 2:1:(stringcolumn(7)) with labels left notitle
} else {
	set lmargin at screen lm; set rmargin at screen rm; set tmargin at screen tm; set bmargin at screen bm
	# A side with patches makes a long title: a smaller font keeps it whole.
	if (strlen(title) > 95) { set title title font ",8" }
	set xlabel "byte within the cacheline"
	set ylabel "cacheline of the struct"
	eval "set ytics (" . rows . ") nomirror"
	set xtics 8
	if (strlen(prefixes) > 0) { eval "set y2tics (" . prefixes . ") nomirror scale 0" }
	eval keys
	set grid xtics
	set style fill solid 0.6 border lc rgb "black"
	set key outside top horizontal samplen 2
	plot file skip 1 using ($4 == 3 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
		with boxxyerror lc rgb "#ff7f0e" title "false sharing", \
	     file skip 1 using ($4 == 4 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
		with boxxyerror lc rgb "#d62728" title "true sharing", \
	     file skip 1 using ($4 == 5 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
		with boxxyerror lc rgb "#aec7e8" title "no HITM", \
	     file skip 1 using ($4 == 0 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
		with boxxyerror lc rgb "#dddddd" title "untouched", \
	     file skip 1 using (($2 + $3) / 2.0):1:(stringcolumn(6)) with labels font ",7" notitle
}
