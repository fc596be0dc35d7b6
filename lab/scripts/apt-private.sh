# shellcheck shell=sh
# A private apt configuration: apt-get and apt-cache for Debian suites the
# host does not carry, with every path (sources, lists, status, archives)
# under one directory of the lab's cache, so /etc/apt is never touched.
# Sourced (plain sh, set -eu) by vm.sh, perf-runtime.sh and lab-kernel.sh,
# which define die and note.  Use it as
#   env APT_CONFIG=DIR/apt.conf apt-get ...

apt_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# apt_private_write TMP DIR SUITE...: writes into TMP a configuration for
# the suites whose paths name DIR (the caller renames TMP to DIR once it is
# complete, so that a run never sees half of one).  A *-security suite
# comes from the security archive.  With apt_type=deb-src set by the
# caller the lines are source lines (apt-get source), else binary ones.
apt_private_write() {
	apt_tmp=$1 apt_dir=$2
	shift 2
	[ -f $apt_keyring ] ||
		die "$apt_keyring missing (package debian-archive-keyring): cannot verify Debian $1"
	mkdir -p "$apt_tmp/lists/partial" "$apt_tmp/archives/partial" "$apt_tmp/parts" "$apt_tmp/cache"
	: > "$apt_tmp/status"
	for apt_suite in "$@"; do
		case $apt_suite in
		*-security) echo "${apt_type:-deb} [signed-by=$apt_keyring] http://deb.debian.org/debian-security $apt_suite main" ;;
		*) echo "${apt_type:-deb} [signed-by=$apt_keyring] http://deb.debian.org/debian $apt_suite main" ;;
		esac
	done > "$apt_tmp/sources.list"
	cat > "$apt_tmp/apt.conf" <<-EOF
	Dir::Etc::SourceList "$apt_dir/sources.list";
	Dir::Etc::SourceParts "$apt_dir/parts";
	Dir::Etc::Preferences "/dev/null";
	Dir::Etc::PreferencesParts "$apt_dir/parts";
	Dir::State::Lists "$apt_dir/lists";
	Dir::State::status "$apt_dir/status";
	Dir::Cache "$apt_dir/cache";
	Dir::Cache::Archives "$apt_dir/archives";
	APT::Architecture "amd64";
	APT::Architectures { "amd64"; };
	Acquire::Languages "none";
	EOF
	# apt drops to _apt to fetch; it needs to write these.
	chown -R _apt "$apt_tmp/lists" "$apt_tmp/archives" 2>/dev/null || true
}

# apt's own words for a failed apt-get: its first error, else the first
# failed fetch with the reason on the line after it, else its first warning.
apt_failure() {	# log
	msg=$(grep -m1 '^E: ' "$1" || true)
	[ -n "$msg" ] || msg=$(awk '/^Err:/ { e = $0; getline; sub(/^ +/, ""); print e ": " $0; exit }' "$1")
	[ -n "$msg" ] || msg=$(grep -m1 '^W: ' "$1" || true)
	echo "${msg:-apt-get update said nothing (see $1)}"
}

# A package index (binary Packages, or Sources of a deb-src configuration).
apt_has_index() { ls "$1/lists/"*Packages* >/dev/null 2>&1 || ls "$1/lists/"*Sources* >/dev/null 2>&1; }

# apt_private_update DIR WHAT: the package index of DIR's configuration,
# fetched on first use (under DIR/update.lock: runs that start together
# fetch it once; WHAT names the suites in the note).  Status 0 when DIR has
# an index.  Else apt's words in apt_msg and status 1 when apt-get update
# failed, 2 when it ended without an index (no access to the archive).
apt_private_update() {
	apt_has_index "$1" && return 0
	note "fetching the package index of $2 (private apt configuration in $1)"
	apt_rc=0
	flock "$1/update.lock" env APT_CONFIG="$1/apt.conf" apt-get update >"$1/update.log" 2>&1 || apt_rc=$?
	apt_has_index "$1" && return 0
	# shellcheck disable=SC2034 # for the caller's message
	apt_msg=$(apt_failure "$1/update.log")
	[ "$apt_rc" = 0 ] && return 2
	return 1
}
