# Cumulative distribution of latencies (lab histograms), log x axis.
# Variables: title, xlabel, xtics (one tic a decade, each in its own unit:
# '"1 µs" 1000, "10 µs" 10000'), nfiles, file1..fileN, label1..labelN.
# Each file: value_ns cumulative_fraction (TSV, header row).
set title title
set xlabel xlabel
set ylabel "fraction of events <= x"
set logscale x
if (strlen(xtics) > 0) { eval "set xtics (" . xtics . ")" }
set yrange [0:1.02]
set key below
set grid
set datafile separator "\t"
plot for [i=1:nfiles] value(sprintf("file%d", i)) skip 1 using 1:2 with steps \
	title value(sprintf("label%d", i))
