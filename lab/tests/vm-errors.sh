#!/bin/sh
# TAP: how `memcg-lab vm` ends when things go wrong, and that what it
# reports is the guest's own word: the exit status (marker and
# isa-debug-exit), files coming back intact, one retry on a missing end
# marker, and one clear line (exit 2) for no qemu, no apt access, an unknown
# package, a guest that panics and a guest that hangs (with its last lines).
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"
k=6.12

# Errors found before any boot.
$lab vm --cpus 0 --shell true >"$tmp/o" 2>&1
[ $? = 2 ] && [ "$(wc -l < "$tmp/o")" -le 2 ] && grep -q -- "--cpus '0'" "$tmp/o"
check $? "--cpus 0: exit 2 naming the option"
$lab vm --kernel banana --shell true >"$tmp/o" 2>&1
[ $? = 2 ] && [ "$(wc -l < "$tmp/o")" = 1 ] && grep -q "unknown kernel 'banana'" "$tmp/o"
check $? "an unknown kernel spec: exit 2 ($(grep -m1 unknown "$tmp/o" | cut -c1-70)...)"
# progress notes (index fetches, downloads) aside, an error is one line.
errlines() { grep -v -e 'fetching the package index' -e ': downloading ' "$1" | wc -l; }
$lab vm --fetch --kernel 6.15 >"$tmp/o" 2>&1
[ $? = 2 ] && [ "$(errlines "$tmp/o")" = 1 ] && grep -q "no suite carries kernel line 6.15 (flavour amd64)" "$tmp/o" &&
	grep -q "bullseye, bookworm, trixie, trixie-backports, sid, experimental" "$tmp/o"
check $? "an alias no suite carries (6.15): exit 2, one line naming the suites searched"
diag "$(tail -n1 "$tmp/o")"
# From 6.19 an image package holds no image itself; this one holds none
# anywhere (the code-signing templates of bookworm's kernel).
$lab vm --fetch --kernel linux-image-amd64-signed-template --suite bookworm >"$tmp/o" 2>&1
[ $? = 2 ] && [ "$(errlines "$tmp/o")" = 1 ] &&
	grep -q "linux-image-amd64-signed-template [^ ]* holds no kernel image (no /boot/vmlinuz-\* nor /usr/lib/modules/\*/vmlinuz): it holds [0-9]* files, e.g. /usr/share/code-signing/" "$tmp/o" &&
	! ls -d "${MEMCG_LAB_CACHE:-/var/cache/memcg-lab}"/kernels/linux-image-amd64-signed-template_* >/dev/null 2>&1
check $? "a package that holds no image: exit 2, one line naming it and what it holds, nothing cached"
diag "$(tail -n1 "$tmp/o")"
# A suite apt refuses: apt's own message, and no configuration left.
MEMCG_LAB_CACHE=$tmp/cache-ns $lab vm --fetch --kernel linux-image-amd64 --suite nosuch >"$tmp/o" 2>&1
[ $? = 2 ] && [ "$(errlines "$tmp/o")" = 1 ] &&
	grep -q "apt-get update refused Debian suite nosuch: E: The repository 'http://deb.debian.org/debian nosuch Release' does not have a Release file" "$tmp/o" &&
	[ ! -e "$tmp/cache-ns/apt/nosuch" ]
check $? "a suite apt refuses: exit 2, one line with apt's message, no configuration left behind"
diag "$(tail -n1 "$tmp/o")"
$lab vm --fetch --kernel linux-image-0.0.0-0-nosuch-amd64 >"$tmp/o" 2>&1
[ $? = 2 ] && grep -q "no Debian package named 'linux-image-0.0.0-0-nosuch-amd64'" "$tmp/o"
check $? "a kernel package apt does not know: exit 2 naming it"
# No apt access: an empty cache and a proxy that refuses every connection.
MEMCG_LAB_CACHE=$tmp/cache http_proxy=http://127.0.0.1:9 $lab vm --fetch --kernel 6.1 >"$tmp/o" 2>&1
[ $? = 2 ] && grep -q "no apt access" "$tmp/o" && [ -z "$(ls "$tmp/cache/kernels" 2>/dev/null | grep -v '^resolved$')" ]
check $? "no apt access: exit 2 with apt's reason, nothing half-fetched left in the cache"
diag "$(cat "$tmp/o")"
# No qemu: every command on PATH but qemu's.
mkdir -p "$tmp/bin"
for f in /usr/local/bin/* /usr/bin/* /bin/* /usr/sbin/* /sbin/*; do
	case $f in */qemu-system-*) continue ;; esac
	[ -e "$tmp/bin/${f##*/}" ] || ln -s "$f" "$tmp/bin/${f##*/}"
done
PATH=$tmp/bin MEMCG_LAB_RESULTS=$tmp/noq $lab vm --kernel $k --shell true >"$tmp/o" 2>&1
[ $? = 2 ] && [ "$(wc -l < "$tmp/o")" = 1 ] && grep -q "qemu-system-x86_64 not found" "$tmp/o" && [ ! -e "$tmp/noq" ]
check $? "no qemu: one line saying what to install (exit 2), no results directory"

if ! $lab vm --fetch --kernel $k >/dev/null 2>"$tmp/fetch.err"; then
	skip "guest behaviour on kernel $k" "cannot get kernel $k: $(tail -n1 "$tmp/fetch.err")"
	done_testing
	exit
fi

# The guest's exit status and files.
MEMCG_LAB_RESULTS=$tmp/st $lab vm --kernel $k --shell 'seq 1 20000 > /out/results/seq.txt; sha256sum /out/results/seq.txt; exit 3' >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$tmp/st")
[ $rc = 3 ] && [ "$(jget "$d/meta.json" vm.guest_exit)" = 3 ] && [ "$(jget "$d/meta.json" status)" = complete ]
check $? "the guest command's exit status 3 is ours (meta.json: complete, guest_exit 3)"
[ "$(jget "$d/meta.json" vm.qemu_exit)" = 7 ]
check $? "it came through isa-debug-exit too (qemu exit 7 = 2*3+1), not only the console marker"
seq 1 20000 | cmp -s - "$d/results/seq.txt" && grep -q "$(sha256sum < "$d/results/seq.txt" | cut -d' ' -f1)" "$d/output.txt"
check $? "a file the guest wrote comes back byte for byte, and its output too"

# A guest that sends back what must not land on the host (its payload's
# checksum is right: the guest made it): each member refused in one line,
# exit 2, nothing extracted, the run failed.  Names with '..' and absolute
# names cannot come from a guest's tar of /out: unit-untar sends those.
MEMCG_LAB_RESULTS=$tmp/ho $lab vm --kernel $k --shell 'mkfifo /out/fifo; mknod /out/null c 1 3;
	ln -s /etc /out/results/etc; ln -s ../../.. /out/results/up; echo sent' >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$tmp/ho")
[ $rc = 2 ] && [ "$(grep -c 'payload.tgz: member' "$tmp/o")" = 4 ] &&
	grep -q "member './fifo': a FIFO" "$tmp/o" && grep -q "member './null': a character device" "$tmp/o" &&
	grep -q "member '[./]*results/etc': a symbolic link to an absolute path ('/etc')" "$tmp/o" &&
	grep -q "member '[./]*results/up': a symbolic link out of the directory ('../../..')" "$tmp/o" &&
	[ ! -e "$d/output.txt" ] && [ ! -e "$d/results" ] && [ -f "$d/payload.tgz" ] &&
	[ "$(jget "$d/meta.json" vm.guest_status)" = payload-refused ] && [ "$(jget "$d/meta.json" status)" = failed ]
check $? "a guest's FIFO, device node and links out: one line each, exit 2, nothing extracted, the run failed"
diag "$(grep 'payload.tgz: member' "$tmp/o" | sed 's/.*payload.tgz: //')"

# One retry when the end marker is missing (here: the first boot powers off;
# the sleep keeps it from going on should the power-off return).
MEMCG_LAB_RESULTS=$tmp/re $lab vm --kernel $k --shell 'grep -q memcg_lab.attempt=1 /proc/cmdline && { poweroff -f; sleep 600; }; echo second boot' >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$tmp/re")
[ $rc = 0 ] && [ "$(jget "$d/meta.json" vm.attempts)" = 2 ] && grep -q "second boot" "$d/output.txt" &&
	grep -q "booting once more" "$tmp/o"
if ! check $? "a boot without the end marker is retried once, and says so"; then
	# On stderr: prove shows it without -v.
	{
		diag "exit $rc, attempts $(jget "$d/meta.json" vm.attempts); what vm said:"
		diag "$(cat "$tmp/o")"
		for f in "$d"/vm.env "$d"/console.attempt1.log "$d"/console.log "$d"/qemu.log "$d"/output.txt; do
			[ -f "$f" ] && diag "${f##*/}:" && diag "$(tail -n 15 "$f")"
		done
	} >&2
fi

# A panic: no retry, exit 2, the panic's lines shown.
MEMCG_LAB_RESULTS=$tmp/pa $lab vm --kernel $k --shell 'echo c > /proc/sysrq-trigger' >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$tmp/pa")
[ $rc = 2 ] && grep -q "guest kernel panicked" "$tmp/o" && grep -q "Kernel panic" "$tmp/o" &&
	[ "$(jget "$d/meta.json" vm.attempts)" = 1 ] && [ "$(jget "$d/meta.json" status)" = failed ]
check $? "a guest that panics: exit 2, its last lines, no retry, the run marked failed"
diag "$(head -n 3 "$tmp/o")"

# A panic before /init under MTTCG (its stale int3, lab/scripts/vm.sh):
# nothing of the user's ran, so the guest boots once more, says so, and a
# second panic is reported as the first above.  (rdinit= of a missing
# program panics the kernel before any init.)
MEMCG_LAB_RESULTS=$tmp/pm $lab vm --kernel $k --accel mttcg --append rdinit=/memcg-lab-no-such-init \
	--shell true >"$tmp/o" 2>&1
rc=$?
d=$(one_dir "$tmp/pm")
[ $rc = 2 ] && grep -q "panicked at boot, before /init, under MTTCG.*booting once more" "$tmp/o" &&
	grep -q "guest kernel panicked" "$tmp/o" && [ "$(jget "$d/meta.json" vm.attempts)" = 2 ] &&
	[ -s "$d/console.attempt1.log" ] && [ "$(jget "$d/meta.json" status)" = failed ]
check $? "a panic before /init under MTTCG: booted once more (attempts $(jget "$d/meta.json" vm.attempts)), then exit 2 with its lines" ||
	diag "$(tail -n 8 "$tmp/o")"

# SIGKILL of the lab mid-guest: its script stops (parent-death signal),
# stops qemu and removes its temporary directory; nothing runs on.
# (The temporary directory is the lab's: memcg-lab-<its pid>-<start>.XXXXXX.)
MEMCG_LAB_RESULTS=$tmp/kl $lab vm --kernel $k --shell 'sleep 120' >/dev/null 2>&1 &
lp=$!
vp="" qn=0
for _ in $(seq 300); do
	[ -n "$vp" ] || vp=$(pgrep -P $lp -f "vm.sh run" | head -n1)
	[ -n "$vp" ] && qn=$(pgrep -f "memcg-lab-$lp-[0-9]*\.[A-Za-z0-9]*/initrd" | wc -l)
	[ "$qn" -gt 0 ] && break
	sleep 0.1
done
kill -KILL $lp
wait $lp 2>/dev/null
for _ in $(seq 100); do
	left=$( [ -n "$vp" ] && { pgrep -f "memcg-lab-$lp-[0-9]*\.[A-Za-z0-9]*/initrd"; kill -0 "$vp" 2>/dev/null && echo "$vp"; ls -d ${TMPDIR:-/tmp}/memcg-lab-$lp-* 2>/dev/null; } )
	[ -z "$left" ] && break
	sleep 0.1
done
[ -n "$vp" ] && [ "$qn" -gt 0 ] && [ -z "$left" ]
check $? "a SIGKILLed vm leaves no qemu, script or temporary directory behind (saw qemu: $qn; left: ${left:-nothing})"

# SIGKILL of the script and the lab at once (nothing runs a trap): the
# guest's images stay in the lab's temporary directory, and `memcg-lab
# cleanup` knows it for the lab's (0700, marked) and removes it.  qemu,
# which nothing stops then, is killed here by its pid.  In a TMPDIR of the
# test's own, so that this cleanup looks at no one else's.
mkdir -p "$tmp/k2tmp"
TMPDIR=$tmp/k2tmp MEMCG_LAB_RESULTS=$tmp/k2 $lab vm --kernel $k --shell 'sleep 120' >/dev/null 2>&1 &
lp=$!
vp="" qp=""
for _ in $(seq 300); do
	[ -n "$vp" ] || vp=$(pgrep -P $lp -f "vm.sh run" | head -n1)
	[ -n "$vp" ] && qp=$(pgrep -f "memcg-lab-$lp-[0-9]*\.[A-Za-z0-9]*/initrd" | head -n1)
	[ -n "$qp" ] && break
	sleep 0.1
done
st=$(ls -d "$tmp"/k2tmp/memcg-lab-$lp-*.* 2>/dev/null | head -n1)
[ -n "$vp" ] && kill -KILL "$vp" $lp
wait $lp 2>/dev/null
[ -z "$qp" ] || kill "$qp" $(pgrep -P "$qp") 2>/dev/null
if [ "$(id -u)" = 0 ]; then
	mkdir -m 700 "$tmp/k2state"
	TMPDIR=$tmp/k2tmp MEMCG_LAB_STATE_DIR=$tmp/k2state $lab cleanup >"$tmp/o" 2>&1
	rc=$?
	[ -n "$st" ] && [ $rc = 0 ] && [ ! -e "$st" ] && grep -q "removed temporary directory $st (owner pid $lp gone)" "$tmp/o"
	check $? "a vm SIGKILLed with its script leaves its images; cleanup knows them for the lab's and removes them (${st:-no directory seen})"
else
	skip "cleanup removes a SIGKILLed vm's images" "needs root"
	[ -z "$st" ] || rm -rf "$st"
fi

# A hang: the timeout, then the last lines.
MEMCG_LAB_RESULTS=$tmp/ha $lab vm --kernel $k --timeout 20 --shell 'echo about to hang; sleep 600' >"$tmp/o" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "did not finish within 20 s" "$tmp/o" && grep -q "about to hang" "$tmp/o"
check $? "a guest that hangs: exit 2 after the timeout, with its last lines"
[ $rc = 2 ] && grep -q "did not finish" "$tmp/o" || diag "$(cat "$tmp/o"; tail -n 40 "$(one_dir "$tmp/ha")/console.log")"
done_testing
