#!/bin/sh
# The lab's scripts quote every expansion and pass shellcheck clean (at
# its default severity, following what they source): a path or a name
# that reaches them runs nothing.  One test per script.
set -u
. "$(dirname "$0")/lib/tap.sh"
command -v shellcheck >/dev/null 2>&1 ||
	skip_all "shellcheck is not installed (apt-get install shellcheck; make deps)"
diag "$(shellcheck --version | sed -n 's/^version: /shellcheck /p')"
for f in lab/scripts/*.sh .ci/run; do
	out=$(shellcheck -x -f gcc "$f" 2>&1)
	ok '[ -z "$out" ]' "$f: shellcheck clean" || diag "$out"
done
done_testing
