#!/bin/bash
# TAP: `memcg-lab ab` end to end (issue 32), on the lab kernel (make
# lab-kernel; the 7.3 source comes from Debian trixie-backports): long, in
# `make linestest`, not make test.
#   - a patch that does not apply: its first failing hunk named, nothing
#     built, the results incomplete;
#   - a patch that does not build: the compiler's first error quoted,
#     nothing cached, the results incomplete;
#   - a SIGTERM in the middle of a build: the build stops (its compilers
#     too), no half-made cache entry, no guest, the results incomplete;
#   - a guest that does not boot: one line, the results incomplete;
#   - the batch pair (lab/kernel-patches/7.3-batch32/0002, --reverse: A has
#     MEMCG_CHARGE_BATCH 32), built incrementally (the second build's time
#     said), run with --lines, three windows a side: the batch claim;
#   - the split pair (lab/kernel-patches/ab/page-counter-split-revert.patch,
#     --reverse: A has the limits on usage's line), with --lines: the
#     seed's false-sharing claim judged from two sides of one kernel line.
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"
[ -f build/lines-plugin.so ] ||
	skip_all "the lines plugin is not built: $(cat build/lines-plugin.missing 2>/dev/null || echo 'run make')"
lab/scripts/lab-kernel.sh --print >/dev/null 2>&1 ||
	skip_all "the lab kernel is not built (make lab-kernel: about 20 minutes on 2 CPUs)"
cache=${MEMCG_LAB_CACHE:-/var/cache/memcg-lab}/lab-kernel
entries() { ls -d "$cache"/7.3-* 2>/dev/null | sort; }
status_of() { jget "$(one_dir "$1")/meta.json" status; }

# A patch that does not apply: the one-slot patch against a context that
# says 8 slots.
sed 's/^ #define FLUSHING_CACHED_CHARGE\t0$/ #define FLUSHING_CACHED_CHARGE\t1/' \
	lab/kernel-patches/ab/nr-memcg-stock-1.patch > "$tmp/stale.patch"
MEMCG_LAB_RESULTS=$tmp/stale $lab ab --patch "$tmp/stale.patch" -- run experiments/stock-slots.exp \
	>"$tmp/stale.out" 2>"$tmp/stale.err"
st=$?
ok '[ $st = 2 ] && grep -q "^memcg-lab: ab: .*stale.patch does not apply to .*: hunk #1 of mm/memcontrol.c FAILED at line [0-9]*" "$tmp/stale.err" &&
    [ ! -e "$(one_dir "$tmp/stale")/build-A.log" ] && [ "$(status_of "$tmp/stale")" = incomplete ]' \
	"a patch that does not apply: the hunk named, nothing built: $(grep '^memcg-lab' "$tmp/stale.err")"

# A patch that does not build: mm/memcontrol.c with an #error.
before=$(entries)
cat > "$tmp/broken.patch" <<'EOF'
Subject: [PATCH] memcg-lab test: a patch that does not build

---
--- a/mm/memcontrol.c
+++ b/mm/memcontrol.c
@@ -2093,2 +2093,3 @@
  */
+#error memcg-lab test: this patch does not build
 #define NR_MEMCG_STOCK 7
EOF
MEMCG_LAB_RESULTS=$tmp/broken $lab ab --patch "$tmp/broken.patch" -- run experiments/stock-slots.exp \
	>"$tmp/broken.out" 2>"$tmp/broken.err"
st=$?
ok '[ $st = 2 ] && grep -q "^memcg-lab: ab: B (lab + the patch) does not build: .*error: #error memcg-lab test: this patch does not build" "$tmp/broken.err" &&
    [ "$(entries)" = "$before" ] && [ "$(status_of "$tmp/broken")" = incomplete ] &&
    [ -z "$(ls -d "$cache"/*.tmp 2>/dev/null)" ]' \
	"a patch that does not build: the compiler's first error quoted, nothing cached: $(grep '^memcg-lab' "$tmp/broken.err" | cut -c1-200)"

# A SIGTERM while B builds: a patch that only adds a comment to
# mm/memcontrol.c (a rebuild of memcontrol.o, not cached yet: its text is
# this run's own).
cat > "$tmp/comment.patch" <<EOF
Subject: [PATCH] memcg-lab test: a comment ($$ $(date +%s%N))

---
--- a/mm/memcontrol.c
+++ b/mm/memcontrol.c
@@ -2093,2 +2093,3 @@
  */
+/* memcg-lab test $$ $(date +%s%N) */
 #define NR_MEMCG_STOCK 7
EOF
before=$(entries)
MEMCG_LAB_RESULTS=$tmp/term $lab ab --patch "$tmp/comment.patch" -- run experiments/stock-slots.exp \
	>"$tmp/term.out" 2>"$tmp/term.err" &
pid=$!
for _ in $(seq 600); do
	grep -q "build B" "$tmp/term.err" && pgrep -f "make -C .*lab-kernel/7.3/src" >/dev/null && break
	sleep 0.5
done
sleep 3
kill -TERM $pid
wait $pid
st=$?
sleep 1
ok '[ $st != 0 ] && ! pgrep -f "make -C .*lab-kernel/7.3/src" >/dev/null && ! pgrep -f "cc1 .*lab-kernel/7.3" >/dev/null &&
    ! pgrep -f qemu-system-x86_64.*ab- >/dev/null && [ "$(entries)" = "$before" ] &&
    [ -z "$(ls -d "$cache"/*.tmp 2>/dev/null)" ] && [ "$(status_of "$tmp/term")" = incomplete ]' \
	"SIGTERM during a build: the build and its compilers stopped, nothing cached, no guest, results incomplete (exit $st): $(tail -n1 "$tmp/term.err")"

# A guest that does not boot (24 MB of memory, 30 s): the stage says so in
# one line, no qemu is left, the results are incomplete.  Both kernels are
# the batch pair's, cached by then or built here.
MEMCG_LAB_RESULTS=$tmp/noboot $lab ab --patch lab/kernel-patches/7.3-batch32/0002-memcg-charge-batch-32.patch \
	--reverse --mem 24 --timeout 30 -- run experiments/lines-charge.exp >"$tmp/noboot.out" 2>"$tmp/noboot.err"
st=$?
ok '[ $st = 2 ] && [ "$(grep -c "^memcg-lab: " "$tmp/noboot.err")" = 1 ] &&
    grep -q "^memcg-lab: ab: the guest of A could not run the command: .*did not finish within 30 s" "$tmp/noboot.err" &&
    ! pgrep -f "qemu-system-x86_64.*7.3-" >/dev/null && [ "$(status_of "$tmp/noboot")" = incomplete ]' \
	"a guest that does not boot: one line, no qemu left, results incomplete: $(grep '^memcg-lab' "$tmp/noboot.err" | cut -c1-160)"

# The batch pair: A with MEMCG_CHARGE_BATCH 32, B the lab kernel (64).
MEMCG_LAB_RESULTS=$tmp/batch $lab ab --patch lab/kernel-patches/7.3-batch32/0002-memcg-charge-batch-32.patch \
	--reverse --lines --cpus 4 -- run experiments/lines-charge.exp -s experiment.repeats=3 \
	>"$tmp/batch.out" 2>"$tmp/batch.err"
st=$?
d=$(one_dir "$tmp/batch")
ok '[ $st = 0 ] && [ "$(jget "$d/meta.json" status)" = complete ] && grep -q "^ab: \[6/6\] judge" "$tmp/batch.err" &&
    [ -s "$d/compare.txt" ] && [ -s "$d/mail.txt" ]' "the batch pair through ab: complete, compare and mail written" ||
	diag < "$tmp/batch.err"
diag "$(grep '^ab: \[[23]/6\] build .*(' "$tmp/batch.err")"
# (A window opened late or skipped leaves its repeat's operations
# uncounted, and the per-operation claim unmeasured: its log lines said.)
ok 'grep -A2 "^  claim  *verdict" "$d/compare.txt" | grep -Eq "^  batch +reproduced"' \
	"the batch claim on one kernel line: $(grep -E '^  batch +' "$d/compare.txt" | head -1)" ||
	diag "$(grep -h "lines -\.r\|lines window\|lines: window" "$d"/[AB]/results/*/log "$d"/[AB]/log 2>/dev/null)"

# The split pair: A with the limits back on usage's line.
MEMCG_LAB_RESULTS=$tmp/split $lab ab --patch lab/kernel-patches/ab/page-counter-split-revert.patch \
	--reverse --lines --cpus 4 -- run experiments/lines-charge.exp >"$tmp/split.out" 2>"$tmp/split.err"
st=$?
d=$(one_dir "$tmp/split")
ok '[ $st = 0 ] && [ "$(jget "$d/meta.json" status)" = complete ]' "the split pair through ab: complete" ||
	diag < "$tmp/split.err"
diag "$(grep '^ab: \[[23]/6\] build .*(' "$tmp/split.err")"
ok 'grep -Eq "^  split +reproduced" "$d/compare.txt"' \
	"the split claim from two sides of one kernel line: $(grep -E '^  split +' "$d/compare.txt" | head -1)"
diag "$(sed -n '/^Cacheline transfers/,/^Verdicts/p' "$d/compare.txt")"
done_testing
