# The false-sharing map of a struct, fields in offset order: a field's
# readers (the HITMs, or peer snoops, of the functions that read it: left
# axis) beside its writers (the store samples of the functions that write
# it: right axis; counts of another event, hence an axis of their own).
# Variables: title, title_txt (the ASCII title), file, ylabel, y2label,
# readers, writers (the key's words), nfields, has_stores (0: no writer
# row has a store count: no right axis, the titles say so).
# File: field reads stores (TSV, header row; stores NaN: no store count).
text = GPVAL_TERM eq "dumb"
set title (text ? title_txt : title)
set datafile separator "\t"
set datafile missing "NaN"
set style fill solid 0.8 border -1
set xrange [-0.6:nfields - 0.4]
# Room above the tallest bar of either axis (offsets apply to y alone).
stats file skip 1 using 2 name "R" nooutput
set yrange [0:(R_max > 0 ? R_max * 1.15 : 1)]
set ytics nomirror
if (has_stores) {
	stats file skip 1 using 3 name "W" nooutput
	set y2range [0:(W_max > 0 ? W_max * 1.15 : 1)]
	set y2tics
} else {
	set y2range [0:1]
}
set grid ytics
if (text) {
	# No y labels in text (the dumb terminal draws none): the key says
	# which axis is which.
	set key below width 1
	set xtics scale 0
} else {
	set ylabel ylabel
	set y2label y2label
	set key below
	set xtics rotate by -40 font ",8"
}
if (has_stores) {
	plot file skip 1 using ($0 - 0.19):2:(0.36) with boxes lc rgb "#1f77b4" title readers, \
	     file skip 1 using ($0 + 0.19):3:(0.36) axes x1y2 with boxes lc rgb "#d62728" title writers, \
	     file skip 1 using 0:(NaN):xtic(1) notitle
} else {
	plot file skip 1 using ($0 - 0.19):2:(0.36) with boxes lc rgb "#1f77b4" title readers, \
	     file skip 1 using 0:(NaN):xtic(1) notitle
}
