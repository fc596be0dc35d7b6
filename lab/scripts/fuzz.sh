#!/bin/sh
# Runs each libFuzzer target for SECONDS, seeded from lab/tests/data/fuzz/<name>
# (plus the recorded samples named in its seeds file), keeping the corpus in
# build/fuzz/corpus/<name>.  Prints one summary line per target (execs, coverage)
# and fails if any target found a crash.
#   fuzz.sh SECONDS build/fuzz/fuzz-NAME...
set -u
secs=$1
shift
status=0
# Leaks inside third-party libraries on malformed input (see the file).
LSAN_OPTIONS="suppressions=$PWD/lab/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
for bin in "$@"; do
	name=${bin##*/fuzz-}
	corpus=build/fuzz/corpus/$name
	mkdir -p "$corpus" build/fuzz/crashes
	seeds=lab/tests/data/fuzz/$name
	# The corpus directories, as the positional parameters.
	set -- "$corpus"
	[ -d "$seeds" ] && set -- "$@" "$seeds"
	# A seeds.list names more seed directories (e.g. the recorded samples).
	if [ -f "$seeds/seeds.list" ]; then
		while read -r d || [ -n "$d" ]; do [ -d "$d" ] && set -- "$@" "$d"; done < "$seeds/seeds.list"
	fi
	log=build/fuzz/$name.log
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		"-artifact_prefix=build/fuzz/crashes/$name-" "$@" >"$log" 2>&1
	rc=$?
	# Logs can hold bytes of the inputs: read them as text, last figures only.
	execs=$(grep -a '^stat::number_of_executed_units:' "$log" | tail -1 | tr -dc '0-9')
	cov=$(grep -a -o 'cov: [0-9]*' "$log" | tail -1)
	if [ $rc -ne 0 ]; then
		echo "fuzz $name: FAILED (exit $rc): see $log and build/fuzz/crashes/$name-*"
		grep -a -m3 -E 'ERROR|SUMMARY' "$log"
		status=1
	else
		echo "fuzz $name: ${secs}s, ${execs:-?} execs, ${cov:-cov: ?}, corpus $(find "$corpus" -type f | wc -l) files"
	fi
done
exit $status
