#!/bin/sh
# TAP: vm --lines refuses what cannot give exact counts, in one line, exit
# 2, and no results called complete (lab/c2c/README, "From the plugin to
# perf c2c"):
#   - a qemu built without the plugin API (a stand-in through MEMCG_LAB_QEMU
#     that answers -plugin with the words of such a qemu's vl.c);
#   - a plugin built against a header whose QEMU_PLUGIN_VERSION the binary
#     refuses (lab/tests/data/lines/plugins/version99.c, declaring 99: the
#     real qemu names both versions);
#   - a plugin that crashes qemu mid-boot (plugins/crash.c: qemu dies of
#     SIGSEGV);
#   - a window that never opened (a guest command that opens none);
#   - a table that filled (64 slots for a window around `ls`): how many
#     lines, and what was dropped.
# The plugin refusing an option (qemu's and the plugin's words) is in
# vm-lines.sh; a guest kernel whose BTF lacks a struct, in unit-lines-out.
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"
[ -f build/lines-plugin.so ] ||
	skip_all "the lines plugin is not built: $(cat build/lines-plugin.missing 2>/dev/null || echo 'run make')"
win=build/tests/tools/lines-window
[ -x "$win" ] || skip_all "$win is not built (make)"
command -v cc >/dev/null || skip_all "no C compiler for the test plugins"
k=7.3
$lab vm --fetch --kernel $k >/dev/null 2>"$tmp/fetch.err" ||
	skip_all "cannot get kernel $k: $(tail -n1 "$tmp/fetch.err")"

# not_complete DIR: the run's meta.json does not say complete (or there is none).
not_complete() {
	d=$(one_dir "$1")
	[ -z "$d" ] || [ "$(jget "$d/meta.json" status)" != complete ]
}
# one_line FILE: what vm printed is one line (the results note aside).
one_line() { [ "$(grep -vc '^memcg-lab: vm: results in ' "$1")" = 1 ]; }

# A qemu without the plugin API: qemu's own words for -plugin, its version otherwise.
cat > "$tmp/qemu-noplugin" <<'EOF'
#!/bin/sh
for a in "$@"; do
	if [ "$a" = -plugin ]; then
		echo "qemu-system-x86_64: plugin interface not enabled in this build" >&2
		exit 1
	fi
done
exec qemu-system-x86_64 "$@"
EOF
chmod +x "$tmp/qemu-noplugin"
MEMCG_LAB_QEMU=$tmp/qemu-noplugin MEMCG_LAB_RESULTS=$tmp/noplug $lab vm --kernel $k --lines --shell true >"$tmp/noplug.out" 2>&1
rc=$?
[ $rc = 2 ] && one_line "$tmp/noplug.out" &&
	grep -q "cannot load TCG plugins: plugin interface not enabled in this build" "$tmp/noplug.out" && not_complete "$tmp/noplug"
check $? "a qemu built without plugins: exit $rc, one line with qemu's words, nothing complete ($(head -c 160 "$tmp/noplug.out"))"

cc -shared -fPIC -o "$tmp/v99.so" lab/tests/data/lines/plugins/version99.c &&
	cc -shared -fPIC -o "$tmp/crash.so" lab/tests/data/lines/plugins/crash.c
check $? "the test plugins build"

MEMCG_LAB_LINES_PLUGIN=$tmp/v99.so MEMCG_LAB_RESULTS=$tmp/v99 $lab vm --kernel $k --lines --shell true >"$tmp/v99.out" 2>&1
rc=$?
[ $rc = 2 ] && one_line "$tmp/v99.out" && grep -q "requires API version 99, but this QEMU supports only up to version 1" "$tmp/v99.out" &&
	not_complete "$tmp/v99"
check $? "a plugin of API version 99: exit $rc, qemu's words naming both versions ($(grep -o 'requires API.*' "$tmp/v99.out" | cut -c1-100))"

MEMCG_LAB_LINES_PLUGIN=$tmp/crash.so MEMCG_LAB_RESULTS=$tmp/crash $lab vm --kernel $k --lines --shell true >"$tmp/crash.out" 2>&1
rc=$?
[ $rc = 2 ] && one_line "$tmp/crash.out" && grep -q "qemu died of signal 11" "$tmp/crash.out" && not_complete "$tmp/crash"
check $? "a plugin that crashes qemu: exit $rc, one line, the signal ($(grep -o 'qemu .*' "$tmp/crash.out" | head -1 | cut -c1-120))"

# A guest command that opens no window.
MEMCG_LAB_RESULTS=$tmp/never $lab vm --kernel $k --cpus 2 --lines --shell true >"$tmp/never.out" 2>&1
rc=$?
d=$(one_dir "$tmp/never")
[ $rc = 2 ] && one_line "$tmp/never.out" && grep -q "the plugin's window never opened, so nothing was counted" "$tmp/never.out" &&
	grep -q "vm --lines-window command, and for that program's own accesses --lines-opts scope=user" "$tmp/never.out" &&
	[ "$(sed -n 's/^# status\t//p' "$d/lines/lines.tsv")" = window-never-opened ] && not_complete "$tmp/never" &&
	[ ! -e "$d/lines/fields.tsv" ]
check $? "a window that never opened: exit $rc, one line naming --lines-window command and scope=user, no fields.tsv, nothing complete"
diag "$(grep -v 'results in' "$tmp/never.out")"

# 64 slots for a kernel window around ls: the table fills.
MEMCG_LAB_RESULTS=$tmp/full $lab vm --kernel $k --cpus 2 --lines-opts lines=64 --add $win \
	--shell "/lab/$win open; ls -R /lab >/dev/null; /lab/$win close" >"$tmp/full.out" 2>&1
rc=$?
d=$(one_dir "$tmp/full")
[ $rc = 2 ] && one_line "$tmp/full.out" &&
	grep -Eq "line table filled: 64 lines in 64 slots; [0-9]+ accesses to at least [0-9]+ more lines were dropped" "$tmp/full.out" &&
	not_complete "$tmp/full" && [ ! -e "$d/lines/fields.tsv" ]
check $? "a table that filled: exit $rc, one line with the lines and what was dropped, nothing complete"
diag "$(grep -v 'results in' "$tmp/full.out")"
done_testing
