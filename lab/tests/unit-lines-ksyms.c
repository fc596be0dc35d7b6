// SPDX-License-Identifier: GPL-2.0
/*
 * The guest kernel's code symbols delta-encoded for the payload
 * (c2c/lines_ksyms.h): a recorded 7.3 guest's kallsyms (its modules too)
 * through the encoder and back is its code symbols exactly, as
 * /proc/kallsyms printed them
 * (addresses going back included: modules after the kernel); the refusals
 * name the file and line.
 */
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_ksyms.h"
#include "tests/tap.h"
#include "util/fileio.h"

TEST(delta_roundtrip)
{
	const char *path = TEST_DATA "/kallsyms/debian-7.3-modules.kallsyms";
	char *orig = read_text(path, NULL), *enc = NULL, *dec, *want, err[256], line[512];
	size_t elen = 0, dlen = 0, wlen = 0, n = 0, kept = 0, back = 0;
	FILE *in = fopen(path, "r"), *out = open_memstream(&enc, &elen), *w = open_memstream(&want, &wlen);
	uint64_t prev = 0;

	if (!orig || !in || !out || !w) {
		ok(0, "%s: cannot read", path);
		return;
	}
	fputs(LINES_KSYMS_DELTA_HEADER, out);
	while (fgets(line, sizeof(line), in)) {
		uint64_t before = prev;

		n++;
		if (lines_ksyms_encode_line(line, &prev, out)) {
			kept++;
			back += prev < before;
			fputs(line, w);
		}
	}
	fclose(in);
	fclose(out);
	fclose(w);
	ok(kept > 50 && kept < n, "%zu of %zu lines are code symbols (t, T, w, W; not the padding, __pfx_)", kept, n);
	ok(back > 0, "addresses go back %zu times (modules after the kernel): negative deltas", back);
	ok(elen < wlen * 3 / 4, "the encoding is smaller: %zu bytes against %zu", elen, wlen);
	dec = lines_ksyms_decode("enc", enc, &dlen, err, sizeof(err));
	ok(dec && dlen == wlen && !memcmp(dec, want, wlen), "decoded: the code symbols exactly (%zu bytes)", dlen);
	free(dec);
	ok(!lines_ksyms_encode_line("ffffffff81000000 t __pfx_foo\n", &prev, stdout), "a function's padding is left out");
	ok(!lines_ksyms_encode_line("ffffffff81000000 D some_data\n", &prev, stdout) &&
	   !lines_ksyms_encode_line("zz T x\n", &prev, stdout) && !lines_ksyms_encode_line("\n", &prev, stdout),
	   "data symbols and junk are not encoded");
	dec = lines_ksyms_decode("k.delta", "ffff T x\n", &dlen, err, sizeof(err));
	ok(!dec && strstr(err, "k.delta:1: not a memcg-lab kallsyms-delta 1 file"), "no header: %s", err);
	dec = lines_ksyms_decode("k.delta", LINES_KSYMS_DELTA_HEADER "10 T a\nxyz T b\n", &dlen, err, sizeof(err));
	ok(!dec && strstr(err, "k.delta:3: not 'DELTA TYPE NAME'"), "a bad line, named: %s", err);
	dec = lines_ksyms_decode("k.delta", LINES_KSYMS_DELTA_HEADER "ffffffff81000010 T a\n-10 T _text\n", &dlen, err,
				 sizeof(err));
	ok(dec && !strcmp(dec, "ffffffff81000010 T a\nffffffff81000000 T _text\n"), "a negative delta: the address before");
	free(dec);
	free(orig);
	free(enc);
	free(want);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
