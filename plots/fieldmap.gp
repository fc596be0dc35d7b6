# The false-sharing map of a struct: HITMs (or peer snoops) per field,
# split into reading and writing functions, fields in offset order.
# Variables: title, file, ylabel.
# File: field read write (TSV, header row).
set title title
set ylabel ylabel
set datafile separator "\t"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -40 font ",8"
set key top right
set grid ytics
plot file skip 1 using 2:xtic(1) lc rgb "#1f77b4" title "read", \
     file skip 1 using 3 lc rgb "#d62728" title "write"
