#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The stat-read workload's own costs: reader self-cost per memory.stat read
# (target <= 5% of the read) and histogram record cost per value, each next
# to what a user would otherwise use (cat in a loop; keep-all-and-sort).
set -eu
cd "$(dirname "$0")/../.."
echo "== statread: reader self-cost and histogram record cost"
build/bench/statread-selfcost "$@"
