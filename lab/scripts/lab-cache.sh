# shellcheck shell=sh
# The lab's cache directory, for the scripts that keep large downloads and
# builds (vm.sh, perf-runtime.sh, qemu-plugin-header.sh): $MEMCG_LAB_CACHE,
# else /var/cache/memcg-lab where it can be made and written (root), else
# ~/.cache/memcg-lab.  Sourced (plain sh); prints the directory, makes
# nothing else.
lab_cache_dir() {
	if [ -n "${MEMCG_LAB_CACHE:-}" ]; then
		echo "$MEMCG_LAB_CACHE"
	elif mkdir -p /var/cache/memcg-lab 2>/dev/null && [ -w /var/cache/memcg-lab ]; then
		echo /var/cache/memcg-lab
	else
		echo "${XDG_CACHE_HOME:-$HOME/.cache}/memcg-lab"
	fi
}
