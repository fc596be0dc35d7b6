# Wait and hold times of stats_user_flush_mutex from a tracefs trace of the
# lab kernel (mutex-trace.sh): per task, kprobe entry of
# mem_cgroup_user_flush_stats, then maybe lock:contention_begin/_end on the
# mutex, then the kretprobe.  wait = contention_end - first contention_begin;
# hold <= return - (contention_end, or entry when uncontended): the flush
# under the mutex plus the function's own few instructions, an upper bound.
# Prints "wait US" and "hold US" lines (microseconds).
{
	pid = $1
	sub(/.*-/, "", pid)
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1) * 1e6; ev = $(i + 1); break }
}
ev == "lab_uf_enter:" { enter[pid] = ts; wbeg[pid] = ""; wend[pid] = "" }
ev == "contention_begin:" && (pid in enter) && wbeg[pid] == "" { wbeg[pid] = ts }
ev == "contention_end:" && (pid in enter) { wend[pid] = ts }
ev == "lab_uf_exit:" && (pid in enter) {
	if (wbeg[pid] != "" && wend[pid] != "") {
		printf "wait %.1f\n", wend[pid] - wbeg[pid]
		printf "hold %.1f\n", ts - wend[pid]
	} else {
		printf "hold %.1f\n", ts - enter[pid]
	}
	delete enter[pid]
}
