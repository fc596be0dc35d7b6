# Throughput (or any metric) against a schedule step, one line per run,
# error bars one standard deviation.
# Variables: title, title_txt (the ASCII title), xlabel, ylabel, nfiles, file1..fileN, label1..labelN.
# Each file: step_value mean stddev (TSV, header row).
text = GPVAL_TERM eq "dumb"
# The unit is said once: in the ylabel, or in title_txt where the dumb
# terminal draws no ylabel.
set title (text ? title_txt : title)
set xlabel xlabel
set ylabel ylabel
set key below
# An error bar's key sample is three rows high in text: it ran into the x
# label; small bars keep it on its row.
if (text) { set bars small; set key width 1 }
# Room above and below the data, so a flat line is not hidden by the border.
set offsets 0, 0, graph 0.1, graph 0.05
set grid
set datafile separator "\t"
set style data linespoints
plot for [i=1:nfiles] value(sprintf("file%d", i)) skip 1 using 1:2:3 with yerrorlines \
	title value(sprintf("label%d", i))
