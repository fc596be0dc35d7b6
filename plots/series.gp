# Throughput (or any metric) against a schedule step, one line per run,
# error bars one standard deviation.
# Variables: title, xlabel, ylabel, nfiles, file1..fileN, label1..labelN.
# Each file: step_value mean stddev (TSV, header row).
set title title
set xlabel xlabel
set ylabel ylabel
set key below
# Room above and below the data, so a flat line is not hidden by the border.
set offsets 0, 0, graph 0.1, graph 0.05
set grid
set datafile separator "\t"
set style data linespoints
plot for [i=1:nfiles] value(sprintf("file%d", i)) skip 1 using 1:2:3 with yerrorlines \
	title value(sprintf("label%d", i))
