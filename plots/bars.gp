# A metric measured at no numeric step (phases, a whole run's ratio), one
# bar per step and directory (A, B, ...): the mean over the repeats, the
# error bar from the smallest to the largest repeat.
# Variables: title, title_txt (the ASCII title), ylabel, nfiles, file1..fileN (all the same file),
# label1..labelN.
# File: step, then mean min max n for each directory (TSV, header row).
text = GPVAL_TERM eq "dumb"
# The unit is said once: in the ylabel, or in title_txt where the dumb
# terminal draws no ylabel.
set title (text ? title_txt : title)
set ylabel ylabel
set key below
set datafile separator "\t"
set datafile missing "NaN"
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set boxwidth 0.9
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set grid ytics
set format y "%g"
plot for [i=1:nfiles] value(sprintf("file%d", i)) skip 1 \
	using (column(4*i-2)):(column(4*i-1)):(column(4*i)):xtic(1) title value(sprintf("label%d", i))
