/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommand table (an X-macro: CMD(name, one-line summary)).
 * Each entry is implemented by cmd_<name>() in lab/cmd/<name>.c.
 * Keep it sorted by name; `memcg-lab help` prints it in this order.
 * VM_KERNEL_LINES: experiment/guest.h, which the includer includes first.
 */
CMD(ab, "what a patch does: build the base and the patched kernel, run both in guests, compare")
CMD(c2c, "perf c2c: capability, steady-state record, parse any report, name the struct field")
CMD(charge, "contended memcg charging: anon, file, kmem, sock, stock and objstock workloads in many memcgs")
CMD(cleanup, "remove lab cgroups, tracefs instances and settings left by a crashed run")
CMD(compare, "compare results directories: the 0-day table with %change, stddev and Welch t-test")
CMD(layout, "capture, check (--check) and diff (--against) the memcg structs' cacheline layouts")
CMD(lines, "a lines trace replayed against other layouts: predict their cacheline transfers, suggest one")
CMD(lock, "lock wait and hold times: tracefs tracer, perf lock alongside, perf.data reports")
CMD(plot, "PNG, SVG and ASCII plots of results directories (gnuplot templates in plots/)")
CMD(probe, "what the kernel under test has (BTF, kallsyms, runtime probes), with evidence")
CMD(report, "the report of a results directory: kernel, features, verdicts, tables, skips")
CMD(run, "run an experiment file (experiments/*.exp) into one results directory")
CMD(statread, "memory.stat read latency per level while allocators keep the leaves in reclaim")
CMD(vm, "run a lab command in a real kernel under qemu: Debian " VM_KERNEL_LINES " (each also -rt), lab")
