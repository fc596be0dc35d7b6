# Shared by the lab's guest tests (lab/tests/vm-*.sh, which source it as
# "$(dirname "$0")/vm/lib.sh"): the lab's TAP library (it moves to the lab's
# root and makes the temp dir), booting a guest, reading JSON.
. "$(dirname "$0")/lib/tap.sh"
lab=bin/memcg-lab

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

# The guest tests call tap.sh's temp dir $tmp (results of what they run go
# to $tmp/results, as tap.sh sets).
tmp=$T

# The results directory of the one run under $1 (MEMCG_LAB_RESULTS of a vm call).
one_dir() { ls -d "$1"/*/ 2>/dev/null | head -n1 | sed 's:/$::'; }
