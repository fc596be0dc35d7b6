#!/bin/bash
# memcg-lab probe from the command line: help, the four kinds of input
# (raw BTF, ELF with .BTF, DWARF-only ELF, running kernel), JSON keys, and
# one-line errors with exit status 2 on bad input.
set -u
. "$(dirname "$0")/lib/tap.sh"

ok '$LAB help | grep -q "^  probe"' "help lists probe"
ok '$LAB probe --help | grep -q -- "--vmlinux FILE"' "probe --help prints the options"
$LAB probe --bogus >/dev/null 2>&1; st=$?
ok '[ $st = 2 ]' "unknown option exits 2"

out=$($LAB probe --btf build/btf/vmlinux-6.18.44.btf --json)
ok 'echo "$out" | grep -q "\"kernel\":\"6.18.44\""' "JSON kernel key"
ok 'echo "$out" | grep -q "\"cacheline_split\":true"' "JSON features.cacheline_split"
ok 'echo "$out" | grep -q "\"stock_slots\":7"' "JSON features.stock_slots"
ok 'echo "$out" | grep -q "\"user_flush_mutex\":false"' "JSON features.user_flush_mutex"
ok '! echo "$out" | grep -q "\"machine\""' "no machine facts for an offline BTF"

# ELF vmlinux with a .BTF section: the 6.1 BTF grafted onto a small ELF.
cc -g -o "$T/elf" lab/tests/data/probe/fake-vmlinux.c
objcopy --remove-section .debug_info "$T/elf" "$T/elf-nodwarf" 2>/dev/null
objcopy --add-section .BTF=build/btf/vmlinux-6.1.192.btf "$T/elf-nodwarf" "$T/elf-btf"
out=$($LAB probe --vmlinux "$T/elf-btf")
ok 'echo "$out" | grep -q "ELF vmlinux with .BTF"' "ELF with .BTF is recognised"
ok 'echo "$out" | grep -q "^kernel  *9.9.9-lab "' "release from the vmlinux banner"
ok 'echo "$out" | grep -Eq "^  cacheline_split +yes"' "ELF .BTF: split detected (6.1 types)"
ok 'echo "$out" | grep -Eq "^  stock_slots +1 "' "ELF .BTF: one stock slot (6.1 types)"
ok 'echo "$out" | grep -q "^symbols  *$T/elf-btf"' "symbols come from the vmlinux symbol table"

# DWARF-only vmlinux: converted by pahole into BTF.
if command -v pahole >/dev/null; then
	mkdir -p "$T/tmp"
	out=$(TMPDIR="$T/tmp" $LAB probe --vmlinux "$T/elf" 2>&1)
	ok 'echo "$out" | grep -q "DWARF-only vmlinux converted with pahole"' "DWARF vmlinux is converted"
	ok 'echo "$out" | grep -Eq "^  cacheline_split +yes"' "DWARF: split page_counter detected"
	ok 'echo "$out" | grep -Eq "^  stock_slots +7 "' "DWARF: seven stock slots"
	ok '[ -z "$(ls -A "$T/tmp")" ]' "pahole's temporary BTF is removed"
else
	skip "DWARF vmlinux" "pahole (dwarves) not installed"
fi

# Bad input: one line naming the file, exit 2.
err=$($LAB probe --btf /etc/hostname 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && [ $(echo "$err" | wc -l) = 1 ] && echo "$err" | grep -q "/etc/hostname: neither BTF nor ELF"' \
	"a file that is neither BTF nor ELF: one line, exit 2"
err=$($LAB probe --btf "$T/missing.btf" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "missing.btf: cannot open"' "a missing BTF file: exit 2, names the file"
strip -o "$T/stripped" "$T/elf-nodwarf"
err=$($LAB probe --vmlinux "$T/stripped" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "neither .BTF nor DWARF"' "a vmlinux with neither BTF nor DWARF: exit 2"
head -c 100 build/btf/vmlinux-6.18.44.btf > "$T/trunc.btf"
err=$($LAB probe --btf "$T/trunc.btf" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "trunc.btf: BTF magic but"' "a truncated BTF: exit 2"

if [ -r /sys/kernel/btf/vmlinux ]; then
	out=$($LAB probe)
	ok '[ $? = 0 ] && echo "$out" | grep -q "^machine"' "running kernel: machine facts"
	ok 'echo "$out" | grep -q "running kernel BTF"' "running kernel: types from /sys/kernel/btf/vmlinux"
else
	skip "running kernel probe" "no /sys/kernel/btf/vmlinux on this kernel"
fi
# Runtime probes: root and a memory controller.
if [ "$(id -u)" = 0 ] && grep -qE ' cgroup2? .*(memory|cgroup2)' /proc/self/mounts; then
	out=$($LAB probe --runtime --rounds 3 --json); st=$?
	ok '[ $st = 0 ] && echo "$out" | grep -q "\"charge_batch\":[0-9]"' "JSON runtime.charge_batch is an int"
	ok 'echo "$out" | grep -q "\"stock_slots\":[0-9]"' "JSON runtime.stock_slots is an int"
	ok 'echo "$out" | grep -q "\"agrees_with_btf\":true"' "runtime stock slots agree with BTF on this kernel"
	ok 'echo "$out" | grep -q "\"obj_stock_slots_agree_with_btf\":true"' "runtime obj stock slots agree with BTF on this kernel"
	if command -v setpriv >/dev/null; then
		err=$(setpriv --reuid=65534 --regid=65534 --clear-groups $LAB probe --runtime 2>&1 >/dev/null); st=$?
		ok '[ $st = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ]' "not root: --runtime fails with one line, exit 2 ($err)"
	fi
	err=$($LAB probe --runtime --btf build/btf/vmlinux-6.1.192.btf 2>&1 >/dev/null); st=$?
	ok '[ $st = 2 ] && echo "$err" | grep -q "running kernel"' "--runtime with --btf is refused"
else
	skip "runtime probes" "needs root and a mounted memory controller"
fi
done_testing
