# A struct's fields with HITMs in a guest run under the lines plugin, a
# bar per run (A, B, ...) side by side: false sharing (the other side
# wrote other bytes of the line) below, true sharing above, per 1000
# operations of the windows where every run counted them, else the
# windows' counts.
# Variables: title, ylabel, file, nruns, nfields, label1..labelN.
# File: field, then false_X true_X per run (TSV, header row).
text = GPVAL_TERM eq "dumb"
set title title
set ylabel ylabel
set datafile separator "\t"
set style fill solid 0.85 border -1
set key below
set grid ytics
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set xrange [-0.6:nfields - 0.4]
if (text) { set xtics rotate by -90 } else { set xtics rotate by -30 font ",8" }
# In text a key's sample ran into the next entry's name: room between.
if (text) { set key width 1 }
bw = 0.8 / nruns
off(d) = -0.4 + bw * (d + 0.5)
fc(d) = d == 0 ? "#fdd0a2" : d == 1 ? "#ff7f0e" : "#a63603"
tc(d) = d == 0 ? "#fcbba1" : d == 1 ? "#d62728" : "#67000d"
plot for [d=0:nruns-1] file skip 1 using ($0 + off(d)):(column(2 + 2*d) + column(3 + 2*d)):(bw) \
	with boxes lc rgb tc(d) title "true sharing, " . value(sprintf("label%d", d + 1)), \
     for [d=0:nruns-1] file skip 1 using ($0 + off(d)):(column(2 + 2*d)):(bw) \
	with boxes lc rgb fc(d) title "false sharing, " . value(sprintf("label%d", d + 1)), \
     file skip 1 using 0:(NaN):xtic(1) notitle
