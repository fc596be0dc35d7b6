#!/bin/sh
# TAP: the lab inside real kernels under qemu, on cgroup v2 with the memory
# controller: Debian's 5.10 (before the page_counter split), 6.1 and 6.12
# (split, one stock slot), 6.16 and 7.3 (seven stock slots), and the lab
# kernel with the user-flush mutex when `make lab-kernel` has built it.  One boot per kernel runs every check
# (lab/tests/vm/guest-checks.sh); the answers come back in the results
# directory and are checked here:
#   - probe in the guest agrees with probe of the same kernel's vmlinux read
#     offline on the host, and with the stored BTF of that Debian release;
#   - the expected features (split, stock slots, the mutex) and tracepoints;
#   - probe --runtime: the charge batch and the stock slots, measured;
#   - the guest's own results directory came back intact;
#   - its /var/tmp is on a disk filesystem (ext2 on a RAM disk);
#   - the cgroup library's tests pass on cgroup v2.
# A kernel that cannot be fetched (no apt access) is skipped with apt's reason.
. "$(dirname "$0")/vm/lib.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86; make deps)"

# Test programs of the lab that exercise cgroup v2 paths (the cgroup library,
# cleanup after killed runs, the runtime probes), run in every guest.
vm_tests=""
adds="--add lab/tests/data/cgroup"
for t in build/tests/*cgroup* build/tests/int-runtime-probe; do
	[ -x "$t" ] || continue
	vm_tests="$vm_tests /lab/$t"
	adds="$adds --add $t"
done

# check KERNEL SPLIT BATCH CONTENTION_TP MUTEX STOCK_SLOTS
check_kernel() {
	k=$1 split=$2 batch=$3 tp=$4 mutex=$5 slots=$6
	if ! kd=$($lab vm --fetch --kernel "$k" 2>"$tmp/fetch.err"); then
		skip "kernel $k: guest checks" "cannot get kernel $k: $(tail -n1 "$tmp/fetch.err")"
		return
	fi
	res=$tmp/res-$k
	# shellcheck disable=SC2086
	MEMCG_LAB_RESULTS=$res $lab vm --kernel "$k" --cpus 2 --timeout 300 \
		--add lab/tests/vm $adds --env "VM_TESTS=$vm_tests" \
		--shell 'sh lab/tests/vm/guest-checks.sh' >"$tmp/$k.out" 2>&1
	rc=$?
	d=$(one_dir "$res")
	c=$d/results/checks
	check $rc "kernel $k: the guest booted, ran the checks and reported exit 0 ($(jget "$d/meta.json" vm.qemu_seconds) s in qemu, $(jget "$d/meta.json" vm.accel))"
	if [ $rc != 0 ]; then
		diag "$(tail -n 25 "$tmp/$k.out")"
		return
	fi
	rel=$(jget "$d/meta.json" vm.guest_kernel)
	vt=$(jget "$d/meta.json" vm.guest_var_tmp)
	[ "$vt" = "ext2 on /dev/ram0, 512 MiB" ]
	check $? "kernel $k: the guest's /var/tmp is on a disk filesystem, a RAM disk of half its memory ($vt)"
	grep -qw memory "$c/controllers"
	check $? "kernel $k ($rel): cgroup v2 offers the memory controller"
	check "$(cat "$c/probe.rc")" "kernel $k: probe --runtime --json --results exits 0 in the guest"

	# The BTF answer: the guest's (running kernel) against the host's
	# offline reading of the very same vmlinux, and the stored BTF.
	jcanon "$c/probe.out" features evidence > "$tmp/guest.features"
	$lab probe --vmlinux "$kd/vmlinux" --json > "$tmp/host.json" 2>"$tmp/host.err"
	jcanon "$tmp/host.json" features evidence > "$tmp/host.features"
	cmp -s "$tmp/guest.features" "$tmp/host.features"
	check $? "kernel $k: probe's features agree between the guest and the host's offline read of its vmlinux"
	[ $? = 0 ] || diag "$(diff "$tmp/guest.features" "$tmp/host.features")"
	upver=$(jget "$d/meta.json" vm.kernel_package | awk '/^linux-image/ { sub(/-.*/, "", $2); print $2 }')
	if [ "$k" = lab ]; then
		skip "kernel $k: probe agrees with the stored BTF" "the lab kernel is no Debian build: its vmlinux is the reference"
	elif [ -f "build/btf/vmlinux-$upver.btf" ]; then
		$lab probe --btf "build/btf/vmlinux-$upver.btf" --json > "$tmp/stored.json" 2>/dev/null
		jcanon "$tmp/stored.json" features evidence memcg_v1_counters > "$tmp/stored.features"
		jcanon "$c/probe.out" features evidence memcg_v1_counters > "$tmp/guest2.features"
		cmp -s "$tmp/guest2.features" "$tmp/stored.features"
		check $? "kernel $k: and with the stored BTF of $upver (lab/tests/data/btf)"
	else
		skip "kernel $k: probe agrees with the stored BTF" "no stored BTF for release '$upver'"
	fi
	[ "$(jget "$c/probe.out" features.cacheline_split)" = "$split" ]
	check $? "kernel $k: cacheline_split is $split"
	[ "$(jget "$c/probe.out" features.stock_slots)" = "$slots" ]
	check $? "kernel $k: stock_slots is $slots ($([ "$slots" = 1 ] && echo single-memcg || echo multi-memcg) per-CPU stock)"
	[ "$(jget "$c/probe.out" features.user_flush_mutex)" = "$mutex" ]
	check $? "kernel $k: user_flush_mutex is $mutex ($(jget "$c/probe.out" features.evidence.user_flush_mutex))"
	[ "$(jget "$c/probe.out" tracepoints.lock:contention_begin.tracefs)" = "$tp" ]
	check $? "kernel $k: lock:contention_begin in tracefs is $tp"

	r=$(ls -d "$d"/results/*-probe 2>/dev/null | head -n1)
	[ -n "$r" ] && [ "$(jget "$r/meta.json" status)" = complete ] &&
		[ "$(jget "$r/meta.json" uname)" = "$rel" ]
	check $? "kernel $k: the guest's results directory came back (meta.json complete, uname $rel)"

	rp=$c/probe.out
	if [ -f "$c/probe2.out" ]; then
		rp=$c/probe2.out
		diag "kernel $k: the first runtime probe disagreed with BTF; measured again. The first: $(rp_rounds "$c/probe.out")" \
			"$(grep disagree "$c/probe.err")"
	fi
	[ "$(jget "$rp" runtime.charge_batch)" = "$batch" ]
	check $? "kernel $k: the first charge moves usage by $batch pages (runtime probe)"
	[ "$(jget "$rp" runtime.stock_slots)" = "$slots" ]
	check $? "kernel $k: $slots memcg(s) keep their precharge per CPU (runtime probe: $(jget "$rp" runtime.stock_slots))"
	[ "$(jget "$rp" runtime.agrees_with_btf)" = true ]
	check $? "kernel $k: the runtime probe agrees with BTF" ||
		diag "kernel $k: $(rp_rounds "$rp")" "$(jget "$rp" runtime.method)" "$(cat "$c"/probe*.err)"
	if [ "$mutex" = true ]; then
		check_mutex_trace "$k" "$c"
	fi
	check_statread "$k" "$d"
	check_charge "$k" "$d" "$slots"
	for t in "$c"/test-*.rc; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .rc)
		check "$(cat "$t")" "kernel $k: ${name#test-} passes on cgroup v2"
		[ "$(cat "$t")" = 0 ] || diag "$(grep -v '^ok' "${t%.rc}.out" | tail -n 40; tail -n 10 "${t%.rc}.err")"
	done
}

# The runtime probe's rounds of a probe --json answer, in one line.
rp_rounds() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", $ARGV[0]) or exit 1; my $j = eval { decode_json(<$f>) } or exit 1;
		my $r = $j->{runtime} or exit 1;
		print join("; ", map { "$_ " . join(" ", @{$r->{$_}{samples} || []}) }
			   grep { ref $r->{$_} eq "HASH" && $r->{$_}{samples} } sort keys %$r), "\n";' "$1"
}

# pct P FILE: the P-th percentile of a file of numbers, one per line.
pct() { sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END { if (NR) { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] } }'; }

# The stat-read driver ran on cgroup v2 and its results came back.
check_statread() {
	k=$1 d=$2
	r=$(ls -d "$d"/results/*-statread 2>/dev/null | head -n1)
	check "$(cat "$d/results/checks/statread.rc" 2>/dev/null || echo missing)" "kernel $k: statread with 16 readers exits 0 in the guest"
	reads=$(awk -F'\t' '$1 == "all" { print $5 }' "$r/data/statread-summary.tsv" 2>/dev/null)
	[ "${reads:-0}" -gt 0 ] && [ -s "$r/data/hist-stat-read.leaf.tsv" ] &&
		grep -q '^-	0	statread.leaf.p99	' "$r/data/metrics.tsv"
	check $? "kernel $k: its results came back: ${reads:-no} reads, leaf histogram, metrics.tsv for compare"
}

# Every charge mode ran on cgroup v2 and its results came back; the socket
# path charged memory (v2: through the per-CPU stock); the stock mode saw
# min(K, slots) memcgs keep their precharge (one slot before 6.16, 7 in the
# 7.3 lab kernel).
check_charge() {
	k=$1 d=$2 slots=$3
	for m in anon file kmem sock stock; do
		r=$(ls -d "$d"/results/*-charge-$m 2>/dev/null | head -n1)
		rc=$(cat "$d/results/checks/charge-$m.rc" 2>/dev/null || echo missing)
		[ "$rc" = 0 ] && [ -s "$r/data/metrics.tsv" ] && [ "$(jget "$r/meta.json" status)" = complete ]
		check $? "kernel $k: charge --mode $m runs on cgroup v2 and its results come back"
		[ "$rc" = 0 ] || diag "$(tail -n 5 "$d/results/checks/charge-$m.err" 2>/dev/null)"
	done
	sock=$(sed -n 's/.*memory.stat sock at the window.s end: \(.*\) in all.*/\1/p' "$d/results/checks/charge-sock.out")
	grep -q 'socket memory: charged to memory (cgroup v2' "$d/results/checks/charge-sock.out" &&
		[ -n "$sock" ] && [ "$sock" != "0 B" ]
	check $? "kernel $k: loopback TCP charges socket memory to the memcg on v2 (memory.stat sock: ${sock:-none})"
	r=$(ls -d "$d"/results/*-charge-stock 2>/dev/null | head -n1)
	holders=$(awk -F'\t' '$3 == "stock.holders" { printf "%s=%s ", $1, $4 }' "$r/data/metrics.tsv" 2>/dev/null)
	want=""
	for i in 1 2 3; do want="${want}K=$i=$((i < slots ? i : slots)) "; done
	[ "$holders" = "$want" ]
	check $? "kernel $k: min(K, $slots) memcgs per CPU keep their precharge for K = 1..3 ($holders)"
}

# The user-flush mutex at work: concurrent memory.stat readers all go
# through mem_cgroup_user_flush_stats and queue on stats_user_flush_mutex.
check_mutex_trace() {
	k=$1 c=$2
	check "$(cat "$c/mutex.rc")" "kernel $k: 16 memory.stat readers traced on stats_user_flush_mutex (kprobes, lock:contention_*)"
	calls=$(awk '$1 == "flush_calls" { print $2 }' "$c/mutex.out")
	rets=$(awk '$1 == "flush_returns" { print $2 }' "$c/mutex.out")
	cb=$(awk '$1 == "contention_begin" { print $2 }' "$c/mutex.out")
	[ "${calls:-0}" -gt 0 ] && [ "$(( calls - rets ))" -le 16 ] && [ "$(( rets - calls ))" -le 16 ]
	check $? "kernel $k: every memory.stat read flushes through mem_cgroup_user_flush_stats ($calls calls, $rets returns)"
	[ "${cb:-0}" -gt 0 ]
	check $? "kernel $k: the readers contend on the mutex ($cb contention_begin events on its address)"
	awk -f lab/tests/vm/mutex-times.awk "$c/mutex-trace.txt" > "$tmp/times"
	awk '$1 == "wait" { print $2 }' "$tmp/times" > "$tmp/wait"
	awk '$1 == "hold" { print $2 }' "$tmp/times" > "$tmp/hold"
	diag "stats_user_flush_mutex under qemu TCG (times mean little): $(wc -l < "$tmp/hold") acquisitions, $(wc -l < "$tmp/wait") contended;" \
		"wait p50 $(pct 50 "$tmp/wait") us p99 $(pct 99 "$tmp/wait") us; hold p50 $(pct 50 "$tmp/hold") us p99 $(pct 99 "$tmp/hold") us (kprobe/kretprobe bound)"
	r=$(ls -d "$d"/results/*-lock-mutex 2>/dev/null | head -n1)
	if [ -z "$r" ]; then
		skip "kernel $k: the lab's lock collector on stats_user_flush_mutex" "this lab has no 'memcg-lab lock' yet"
		return
	fi
	check_lock_collector "$k" "$c" "$r" "$calls"
}

# callers_past_extent TSV KALLSYMS.gz: the callers (column 5) of a
# lock-locks.tsv that are no kernel function's: "sym+0xoff" where sym is no
# text symbol or off is past it (the next text symbol's address), and BPF
# trampolines, which stand for a function (nothing printed when all are).
callers_past_extent() {
	gzip -dc "$2" 2>/dev/null | perl -e '
		my (%at, @a);
		while (<STDIN>) { my ($x, $t, $n) = split; $x = hex($x); push @{$at{$n}}, $x; push @a, $x; }
		@a = sort { $a <=> $b } @a;
		open(my $f, "<", $ARGV[0]) or exit; <$f>;
		my @bad;
		while (<$f>) {
			my $c = (split /\t/)[4];
			next if $c eq "-" || $c =~ /^0x[0-9a-f]+$/;
			my ($s, $o) = $c =~ /^(.+?)(?:\+0x([0-9a-f]+))?$/;
			$o = hex($o // 0);
			if ($s =~ /^bpf_trampoline_/ || !defined $at{$s}) { push @bad, "$c: no kernel function"; next; }
			# Static functions share names: within the extent of one of them.
			my $in = 0;
			for my $x (@{$at{$s}}) {
				my ($next) = grep { $_ > $x } @a;
				$in ||= !defined $next || $o < $next - $x;
			}
			push @bad, "$c: past its extent" unless $in;
		}
		print join("; ", @bad);' "$1"
}

# The lab's own lock collector (memcg-lab lock record around the same
# statread): hold and wait histograms of stats_user_flush_mutex, and as many
# holds as the independent tracefs account saw flushes.
check_lock_collector() {
	k=$1 c=$2 r=$3 calls=$4
	check "$(cat "$c/traced.rc")" "kernel $k: lock record around statread exits 0"
	row() { awk -F'\t' -v m="$1" '$1 == "stats_user_flush_mutex" && $3 == m { print $4, $5, $9, $10 }' "$r/data/lock-hold.tsv"; }
	hold=$(row hold)
	wait=$(row wait)
	set -- $hold
	[ "${2:-0}" -gt 0 ] && [ -s "$r/data/hist-lock-hold.stats_user_flush_mutex.tsv" ] &&
		case $1 in bpf-kprobe|bpf-fentry) true ;; *) false ;; esac
	check $? "kernel $k: hold-time histogram of stats_user_flush_mutex by ${1:-no method} (${2:-0} holds, p50 ${3:-?} ns, p99 ${4:-?} ns)"
	holds=${2:-0}
	# The caller column of lock record's table and of the inner statread's
	# (whose symbols were read after lock record's fexit programs attached):
	# the function that takes the mutex, and no caller's offset past its
	# symbol's extent in the guest's kallsyms.
	for tsv in "$r/data/lock-locks.tsv" "$(ls -d "$(dirname "$r")"/*-statread 2>/dev/null | head -n1)/data/lock-locks.tsv"; do
		who=$(awk -F'\t' '$1 == "stats_user_flush_mutex" { print $5 }' "$tsv" 2>/dev/null)
		bad=$(callers_past_extent "$tsv" "$c/kallsyms-text.gz")
		echo "$who" | grep -qE '^mem_cgroup_user_flush_stats(\+0x[0-9a-f]+)?$' && [ -z "$bad" ]
		check $? "kernel $k: $(basename "$(dirname "$(dirname "$tsv")")" | sed 's/^[0-9-]*-//')'s caller of stats_user_flush_mutex is ${who:-none}, no caller past its symbol's extent${bad:+ ($bad)}"
	done
	set -- $wait
	[ "${2:-0}" -gt 0 ] && [ -s "$r/data/hist-lock-wait.stats_user_flush_mutex.tsv" ]
	check $? "kernel $k: wait-time histogram of stats_user_flush_mutex (${2:-0} waits, p50 ${3:-?} ns, p99 ${4:-?} ns)"
	top=$(awk -F'\t' 'NR > 1 && $6 > max { max = $6; name = $1 } END { print name }' "$r/data/lock-locks.tsv")
	[ "$top" = stats_user_flush_mutex ]
	check $? "kernel $k: the most contended lock under 16 readers is stats_user_flush_mutex (lock:contention_*: $top)"
	# Every flush holds the mutex once.  (A kretprobe on mutex_lock has
	# room for only 2 sleeping callers per CPU and lost up to half the
	# holds under 32 readers; the collector prefers fexit where the kernel
	# has fentry, as the lab kernel does.)
	[ "$holds" -ge $((calls - 16)) ] && [ "$holds" -le "$calls" ]
	check $? "kernel $k: one hold per flush: the collector's $holds against tracefs' $calls"
}

# VM_KERNELS picks some of them (e.g. VM_KERNELS=lab make vmtest).
for k in ${VM_KERNELS:-6.1 6.12 5.10 6.16 7.3 lab}; do
	t0=$(date +%s)
	case $k in
	#                    split batch contention-tp mutex stock-slots
	6.1) check_kernel 6.1 true 64 true false 1 ;;
	6.12) check_kernel 6.12 true 64 true false 1 ;;
	5.10) check_kernel 5.10 false 32 false false 1 ;;
	6.16) check_kernel 6.16 true 64 true false 7 ;;
	7.3) check_kernel 7.3 true 64 true false 7 ;;
	lab)
		if lab/scripts/lab-kernel.sh --print >/dev/null 2>&1; then
			check_kernel lab true 64 true true 7
		else
			skip "lab kernel: user_flush_mutex, mutex traced" "no lab kernel built (make lab-kernel)"
		fi ;;
	*) check 1 "VM_KERNELS: '$k' is one of 6.1 6.12 5.10 6.16 7.3 lab" ;;
	esac
	diag "kernel $k: $(( $(date +%s) - t0 )) s (fetch, boot, checks)"
done
done_testing
