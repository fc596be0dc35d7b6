#!/bin/bash
# A perf for testing the c2c collector on a machine without a memory PMU:
# installed as `perf` first in PATH, it turns the lab's
#   perf c2c record [c2c options] -- REC_OPTS
# into the real
#   $REAL_PERF record -e cpu-clock REC_OPTS
# by exec, so the process that gets the lab's signals, writes the data and
# exits is real perf.  `perf c2c record -e list` names cpu-clock as the one
# event it records.  Everything else goes to real perf unchanged.
# PERF_C2C_WRAPPER_EVENT replaces cpu-clock (a test of perf failing);
# PERF_C2C_WRAPPER_MMAP sets perf record -m (a tiny buffer loses records).
real=${REAL_PERF:-/usr/bin/perf}
event=${PERF_C2C_WRAPPER_EVENT:-cpu-clock}
if [ "${1-} ${2-}" = "c2c record" ]; then
	shift 2
	if [ "${1-}" = -e ] && [ "${2-}" = list ]; then
		# perf's own layout ("%-13s%-*s%s", util/mem-events.c)
		printf '%-13s%-30s%s\n' ldlat-loads "$event" ': available'
		exit 0
	fi
	while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
	[ $# -gt 0 ] && shift
	if [ -n "${PERF_C2C_WRAPPER_MMAP:-}" ]; then
		exec "$real" record -e "$event" -m "$PERF_C2C_WRAPPER_MMAP" "$@"
	fi
	exec "$real" record -e "$event" "$@"
fi
exec "$real" "$@"
