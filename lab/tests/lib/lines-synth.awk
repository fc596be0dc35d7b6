# A synthetic lines trace (for lines-trace-make): accesses modelled on
# Linux 5.10's charge path, NOT recorded in a guest.  vcpus vCPUs take
# turns of `burst` operations each (single-threaded TCG switches vCPUs
# coarsely), ops operations each; an operation charges (or, every other
# time, uncharges) the memcg at cg and its parent at parent, as 5.10's
# page_counter_try_charge / page_counter_cancel / propagate_protected_usage
# touch struct page_counter (mm/page_counter.c): usage read-modify-written,
# max, parent, min, min_usage, low, low_usage loaded, watermark loaded (and
# stored every 16th charge), then try_charge's memory.high check, and the
# high check on the way back to user (memory.high, memory.parent); and each
# vCPU's own memcg_stock_pcp (stock[v]) and a neighbour of it on its line.
# Offsets: struct mem_cgroup's memory at 208 and struct page_counter's
# members in 5.10.262's BTF (lab/tests/data/btf).
#   awk -v vcpus=4 -v ops=200 -v burst=3 -v cg=0x... -v parent=0x...
#       -v stocks=0x...,0x...,... -f lines-synth.awk
# Addresses are BASE+OFF (lines-trace-make adds them: awk has no 64-bit integers).
function acc(rw, v, base, off, size) {
	printf "%s %d 0 %s%s%x %d ffffffff812800%02x\n", rw, v, base, off < 0 ? "-" : "+", off < 0 ? -off : off, size, pc++ % 64
}
function counter(v, base, charge, n,   pc0) {
	# page_counter_try_charge / page_counter_cancel on base's memory
	m = 208
	acc("L", v, base, m + 0, 8); acc("S", v, base, m + 0, 8)
	if (charge) acc("L", v, base, m + 32, 8)
	acc("L", v, base, m + 40, 8)
	acc("L", v, base, m + 8, 8); acc("L", v, base, m + 56, 8)
	acc("L", v, base, m + 16, 8); acc("L", v, base, m + 80, 8)
	if (charge) {
		acc("L", v, base, m + 96, 8)
		if (n % 16 == 0) acc("S", v, base, m + 96, 8)
	}
	acc("L", v, base, m + 40, 8)
}
function op(v, n,   charge) {
	charge = n % 2 == 0
	s = stock[v + 1]
	acc("L", v, s, 0, 8); acc("L", v, s, 8, 4); acc("S", v, s, 8, 4)
	acc("L", v, s, -16, 8)		# a per-cpu neighbour on the stock's first line
	# mem_cgroup_handle_over_high on the way back to user: memory.high
	# and the walk up by memory.parent, before the next charge
	acc("L", v, cg, 208 + 24, 8); acc("L", v, cg, 208 + 40, 8)
	counter(v, cg, charge, n)
	counter(v, parent, charge, n)
	if (charge) {
		# try_charge: page_counter_read(&memcg->memory) > memory.high, each level
		acc("L", v, cg, 208, 8); acc("L", v, cg, 208 + 24, 8); acc("L", v, cg, 208 + 40, 8)
		acc("L", v, parent, 208, 8); acc("L", v, parent, 208 + 24, 8)
	}
}
BEGIN {
	split(stocks, st, ",")
	for (i = 1; i <= vcpus; i++) stock[i] = st[i]
	print "# synthetic: modelled on 5.10's charge path, not recorded"
	for (done = 0; done < ops; done += burst)
		for (v = 0; v < vcpus; v++)
			for (k = 0; k < burst && done + k < ops; k++)
				op(v, done + k)
}
