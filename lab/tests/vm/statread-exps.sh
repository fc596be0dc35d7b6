#!/bin/sh
# Runs inside a lab kernel guest (memcg-lab vm --shell): the seeds' stat-read
# experiments under the lab's lock collector, for the user-flush mutex's
# hold and wait histograms, the rstat lock's holds, the flush counts and the
# read latency per level (and, with $KLOCKSTAT, klockstat on the same run:
# klockstat-check.sh).
#   - experiments/statread-flush.exp, its reference shape (50 top-level
#     cgroups x 5 leaves, 10 allocators per leaf, at 256 CPUs) scaled to
#     this guest: 5 top-level cgroups per 2 CPUs x 5 leaves, 1 allocator per
#     leaf moving a 24M working set through a 16M leaf limit (and a top
#     limit below its leaves' demand), readers every second at the root,
#     the top level and the leaves, 20 s measured;
#   - experiments/statread-read-contention.exp as its [small] section has it
#     (leaf readers every 100 ms, 10/50/100 of them), one repeat.
# The allocators' page cache lives in the guest's /var/tmp, ext2 on a RAM
# disk (/dev/ram0, vm-init.sh): clean page cache is reclaimed without swap,
# and brd's own pages are charged to no memcg.  Results:
# /out/results/<date>-{statread-flush,...,lock-*}.
out=/out/results/checks
mkdir -p $out
grep '^var_tmp: ext2 ' /out/guest.txt > $out/ramdisk.out ||
	{ echo "no disk filesystem on /var/tmp: $(grep '^var_tmp:' /out/guest.txt)"; exit 1; }
ncpu=$(nproc)
top=$(( ncpu * 5 / 2 ))
[ $top -ge 5 ] || top=5
echo "statread-flush shape: top $top x children 5, 1 allocator per leaf, $ncpu CPUs" > $out/shape
measure() {	# tag command...
	tag=$1
	shift
	if [ -n "${KLOCKSTAT:-}" ]; then
		TAG=$tag LOCK_NAME=lock-$tag sh /lab/lab/tests/vm/klockstat-check.sh "$@"
	else
		memcg-lab lock record -n "lock-$tag" -- "$@" > $out/$tag-lab.out 2> $out/$tag-lab.err
		echo $? > $out/$tag-lab.rc
	fi
}
# The shape goes into [small] (which replaces [driver]'s values on a box
# under 16 CPUs, -s driver.* overrides included); the rest into [driver].
measure flush memcg-lab run experiments/statread-flush.exp -s experiment.repeats=1 \
	-s small.top=$top -s small.children=5 -s small.allocators=1 \
	-s small.alloc-size=24M -s small.limit=16M -s small.top-limit=64M \
	-s small.interval=1s -s driver.duration=20s -s driver.warmup=2s
[ -n "${SKIP_CONTENTION:-}" ] ||
	measure contention memcg-lab run experiments/statread-read-contention.exp -s experiment.repeats=1
exit 0
