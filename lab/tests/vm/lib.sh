# Shared by the lab's guest tests (lab/tests/vm-*.sh), sourced from the lab's
# root: TAP output, booting a guest, reading JSON.
lab=bin/memcg-lab
n=0
failed=0
ok() {	# cond-status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
	[ "$1" = 0 ]	# so a caller can add what it saw on failure
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { echo "$*" | sed 's/^/# /'; }
done_testing() { echo "1..$n"; [ "$failed" = 0 ]; }

# jget FILE KEY.PATH: a scalar of a JSON file ("true"/"false", numbers,
# strings; empty when absent).
jget() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", $ARGV[0]) or exit 1; my $j = eval { decode_json(<$f>) } or exit 1;
		for my $k (split /\./, $ARGV[1]) { $j = ref $j eq "HASH" ? $j->{$k} : undef; }
		exit 0 unless defined $j;
		print JSON::PP::is_bool($j) ? ($j ? "true" : "false") : $j, "\n";' "$1" "$2"
}

# jcanon FILE KEY [DROP...]: one JSON object of a file, canonical (sorted
# keys), without the named members: two answers compare with cmp.
jcanon() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", shift) or exit 1; my $j = eval { decode_json(<$f>) } or exit 1;
		my $o = $j->{shift()}; delete $o->{$_} for @ARGV;
		print JSON::PP->new->canonical->pretty->encode($o);' "$@"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memcg-lab-vmtest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Nothing a test runs leaves results in the lab's own results/.
export MEMCG_LAB_RESULTS="$tmp/results"

# The results directory of the one run under $1 (MEMCG_LAB_RESULTS of a vm call).
one_dir() { ls -d "$1"/*/ 2>/dev/null | head -n1 | sed 's:/$::'; }
