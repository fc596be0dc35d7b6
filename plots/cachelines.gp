# The cacheline map of a struct layout: one row per cacheline, each field a
# box over its bytes, hot-written fields red, read-mostly ones blue.
# Variables: title, file, nlines, linesize.
# File: line start end tag label (TSV, header row); tag 1 hot-written, 2 read-mostly.
set title title
set xlabel "byte within the cacheline"
set ylabel "cacheline"
set xrange [0:linesize]
set yrange [nlines - 0.5:-0.5]
set ytics 1
set xtics 8
set grid xtics
set datafile separator "\t"
set style fill solid 0.5 border lc rgb "black"
set key outside top horizontal
plot file skip 1 using ($4 == 1 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
	with boxxyerror lc rgb "#d62728" title "hot-written", \
     file skip 1 using ($4 == 2 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
	with boxxyerror lc rgb "#1f77b4" title "read-mostly", \
     file skip 1 using ($4 == 0 ? ($2 + $3) / 2.0 : NaN):1:2:3:($1 - 0.38):($1 + 0.38) \
	with boxxyerror lc rgb "#bbbbbb" title "other", \
     file skip 1 using (($2 + $3) / 2.0):1:(($3 - $2) >= 6 ? stringcolumn(5) : "") \
	with labels font ",7" notitle
