#!/bin/bash
# The plots a reviewer opens first: an experiment's [plot] headline plots
# stay in plots/, the rest go to plots/all/, plots/index.txt lists every
# plot with a line on what it shows, and plots/index.html shows the
# verdicts and the headline plots -- checked in a real headless Chromium:
# every image loads (its natural size is the plot's), the verdicts are in
# the page.  Also report --mail: the verdicts, the seed's table and the
# headline ASCII plots, 72 columns.  A run from before (no headlines, no
# claims) plots as it did and reports without verdicts.
set -u
. "$(dirname "$0")/lib/tap.sh"

command -v gnuplot >/dev/null || skip_all "gnuplot not installed (make deps)"

R=$T/r
mkdir -p "$R/data"
cat > "$R/meta.json" <<'EOF'
{"name":"t","status":"complete","lab_revision":"abc","probe":{"kernel":"6.18.44","features":{"stock_slots":7},
 "machine":{"topology":{"cpus":2}}}}
EOF
cat > "$R/experiment.exp" <<'EOF'
[experiment]
name = t
[driver]
command = charge
mode = stock
[plot]
headline = series-stock.holders, bars-overhead,
	cdf-lock, falsesharing-mem_cgroup, series-stock.rate
[claim slots]
published = NR_MEMCG_STOCK: up to 7 memcgs per CPU
quantity = cliff:stock
value = 7 memcgs
machine = m
condition = c
source = <20250416180229.2902751-1-shakeel.butt@linux.dev>
[claim overhead]
published = accounted over unaccounted
quantity = metric:-:overhead
value = 2.42 ratio
machine = m
condition = c
source = <20210409231842.8840-1-longman@redhat.com>
[claim ab]
published = an A/B
quantity = metric:-:overhead
base = 3.87 ratio
patched = 2.42 ratio
machine = m
condition = c
source = <20210409231842.8840-1-longman@redhat.com>
EOF
{
	printf 'step\trepeat\tmetric\tvalue\tunit\tbetter\n'
	for r in 0 1; do for k in 1 2 3 4 5 6 7 8 9; do
		printf 'K=%s\t%s\tstock.holders\t%s\tmemcgs\thigher\n' $k $r $((k < 7 ? k : 7))
		printf 'K=%s\t%s\tstock.charges_per_s\t%s\tops/s\thigher\n' $k $r $((1000 - k))
		printf 'K=%s\t%s\tstock.rate\t%s\tops/s\thigher\n' $k $r $((2000 - k))
	done; done
	printf -- '-\t0\toverhead\t2.3\tratio\t-\n-\t1\toverhead\t2.4\tratio\t-\n-\t2\toverhead\t2.5\tratio\t-\n'
} > "$R/data/metrics.tsv"
printf '# title: rstat lock hold (method: tracepoints)\nlow_ns\thigh_ns\tcount\n992\t1007\t5\n2048\t2111\t10\n' \
	> "$R/data/hist-lock.hold.tsv"

out=$($LAB plot --size 640x400 "$R" 2>&1); st=$?
ok '[ $st = 0 ]' "plot exits 0" || diag "$out"
P=$R/plots
for p in series-stock.holders bars-overhead cdf-lock series-stock.rate; do
	ok '[ -s "$P/$p.png" ] && [ -s "$P/$p.svg" ] && [ -s "$P/$p.txt" ] && [ -s "$P/$p.gp" ]' "headline $p is in plots/"
done
ok '[ -s "$P/all/series-stock.charges_per_s.png" ] && [ ! -e "$P/series-stock.charges_per_s.png" ]' \
	"a plot not named a headline is in plots/all/, not plots/"
ok 'grep -q "all/series-stock.charges_per_s.0.tsv" "$P/all/series-stock.charges_per_s.gp"' \
	"its gnuplot script reads its data in plots/all/"
ok '(cd "$P/all" && rm -f series-stock.charges_per_s.txt && gnuplot series-stock.charges_per_s.gp && [ -s series-stock.charges_per_s.txt ])' \
	"and redraws it from there"

# index.txt: every plot once, with what it shows; the headlines first, in their order.
pngs=$(cd "$P" && find . -name '*.png' | sed 's|^\./||' | sort)
listed=$(grep -v '^#' "$P/index.txt" | cut -f1 | sort)
ok '[ -n "$pngs" ] && [ "$pngs" = "$listed" ]' "index.txt lists every PNG once ($(echo "$pngs" | wc -l) PNGs)"
ok '! grep -v "^#" "$P/index.txt" | awk -F"\t" "NF != 2 || length(\$2) < 20 { bad = 1 } END { exit !bad }"' \
	"each with a line on what it shows"
ok '[ "$(grep -v "^#" "$P/index.txt" | head -3 | cut -f1 | tr "\n" " ")" = "series-stock.holders.png bars-overhead.png cdf-lock.png " ]' \
	"the headline plots come first, in the order the experiment names them"
ok 'grep -q "^series-stock.holders.png	stock.holders vs K \[memcgs\]: the mean over the repeats" "$P/index.txt"' \
	"a series says its metric, step and unit, and what it draws"
ok 'grep -q "^# falsesharing-mem_cgroup: a headline plot this run did not draw" "$P/index.txt"' \
	"a headline the run did not draw is said so"

# index.html: the verdicts and the headline plots, in a real browser.
ok 'grep -q "<h2>Verdicts</h2>" "$P/index.html" && grep -q "<td>slots</td>" "$P/index.html" &&
	grep -q "not measurable here" "$P/index.html" && grep -q "<img src=\"series-stock.holders.png\"" "$P/index.html"' \
	"index.html has the verdicts table and the headline images"
ok '[ "$(grep -c "<img " "$P/index.html")" = 4 ] && grep -q "<a href=\"all/series-stock.charges_per_s.png\">" "$P/index.html"' \
	"four headline images, the other plots linked"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] && [ "$(id -u)" = 0 ]; then
	why=$(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium 2>&1 | tail -1)
	CHROMIUM=$(command -v chromium || true)
fi
# The page as Chromium has it once loaded, with each image's natural size
# and the pixels it drew (not white, not transparent), drawn into a canvas
# by a script added to a copy (the page itself has none): a PNG that does
# not load draws none, though its size may come from its header.
browse() {	# dir: prints "src=WxH" per <img>, and the page's text
	local d=$1 ud
	cp "$d/index.html" "$d/index.probe.html"
	cat >> "$d/index.probe.html" <<'EOF'
<script>
window.addEventListener('load', function () {
  var r = [];
  document.querySelectorAll('img').forEach(function (i) {
    var c = document.createElement('canvas'), n = 0;
    c.width = i.naturalWidth; c.height = i.naturalHeight;
    try {
      var x = c.getContext('2d');
      x.drawImage(i, 0, 0);
      var d = x.getImageData(0, 0, c.width || 1, c.height || 1).data;
      for (var k = 0; k < d.length; k += 4)
        if (d[k + 3] > 0 && (d[k] < 240 || d[k + 1] < 240 || d[k + 2] < 240)) n++;
    } catch (e) { n = -1; }
    r.push('IMG ' + i.getAttribute('src') + '=' + i.naturalWidth + 'x' + i.naturalHeight + ' inked=' + n);
  });
  var p = document.createElement('pre'); p.textContent = r.join('\n'); document.body.appendChild(p);
});
</script>
EOF
	ud=$(mktemp -d "$T/chromium.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --user-data-dir="$ud" \
		--allow-file-access-from-files \
		--virtual-time-budget=5000 --dump-dom "file://$d/index.probe.html" 2>/dev/null | sed -e 's/^.*<pre>//' -e 's/<\/pre>.*//'
	rm -rf "$ud" "$d/index.probe.html"
}
if [ -z "$CHROMIUM" ]; then
	skip "index.html in headless Chromium" "chromium cannot be installed here (${why:-not root}; apt-get install chromium)"
else
	dom=$(browse "$P")
	imgs=$(echo "$dom" | grep '^IMG ' | sort)
	# Each headline image at its size, with a plot's worth of ink (> 1000 pixels).
	good=$(echo "$imgs" | awk '$2 ~ /=640x400$/ && $3 ~ /^inked=/ { split($3, a, "="); if (a[2] > 1000) print $2 }' |
	       sed 's/=.*//' | tr '\n' ' ')
	ok '[ "$good" = "bars-overhead.png cdf-lock.png series-stock.holders.png series-stock.rate.png " ]' \
		"Chromium loads and draws every headline image at its size (640x400)" || diag "$imgs"
	ok 'echo "$dom" | grep -q "<td>reproduced</td>" && echo "$dom" | grep -q "1.84\|2.4 ratio"' \
		"and shows the verdicts" || diag "$(echo "$dom" | grep -c .) lines of DOM"
	# The check itself fails on an image that does not load.
	mkdir -p "$T/broken" && cp -r "$P/." "$T/broken/"
	head -c 100 "$P/cdf-lock.png" > "$T/broken/cdf-lock.png"
	imgs=$(browse "$T/broken" | grep '^IMG ')
	ok 'echo "$imgs" | grep -q "^IMG cdf-lock.png=640x400 inked=0$" && echo "$imgs" | grep -q "^IMG bars-overhead.png=640x400 inked=[1-9]"' \
		"a truncated PNG draws nothing (the check can fail)" || diag "$imgs"
fi

# report --mail: plain text an LKML reply can quote.
mail=$($LAB report --mail "$R" 2>&1); st=$?
wide=$(echo "$mail" | while IFS= read -r l; do [ "$(printf '%s' "$l" | LC_ALL=C.UTF-8 wc -L)" -le 72 ] || echo "$l"; done | head -3)
ok '[ $st = 0 ] && [ -z "$wide" ]' "report --mail exits 0 and fits 72 columns" || diag "$wide"
ok 'echo "$mail" | grep -q "^Verdicts" && echo "$mail" | grep -q "slots  *reproduced  *7 memcgs" &&
	echo "$mail" | grep -q "one kernel (6.18.44) where the claim is an A/B"' "it has the verdicts and the reasons"
ok 'echo "$mail" | grep -q "base and patched as published" && echo "$mail" | grep -Eq "^ +\| +3.87 \| +2.42 "' "and the seed's A/B table"
ok 'echo "$mail" | grep -q "^series-stock.holders: stock.holders vs K" && echo "$mail" | grep -q "stock.holders vs K \[memcgs\]" &&
	echo "$mail" | grep -q "^series-stock.rate: stock.rate vs K \[ops/s\]" && ! echo "$mail" | grep -q "stock.charges_per_s vs K"' \
	"and the headline ASCII plots only (a unit with a / too)"
ok '! echo "$mail" | grep -q " $"' "and no trailing blanks"
ok '! echo "$mail" | grep -q "$(printf "\t")"' "and no tabs"
err=$($LAB report --mail "$R" "$T/none" 2>&1 >/dev/null); st=$?
ok '[ $st = 2 ] && echo "$err" | grep -q "none/meta.json: cannot read"' "report --mail A B with no B: one line, exit 2"

# A run from before: no headlines, no claims.
O=$T/old
mkdir -p "$O/data"
cp "$R/meta.json" "$R/data/metrics.tsv" "$O/" 2>/dev/null
mv "$O/metrics.tsv" "$O/data/"
printf '[experiment]\nname = t\n[driver]\ncommand = charge\nmode = stock\n' > "$O/experiment.exp"
$LAB plot --size 640x400 "$O" >/dev/null 2>&1
ok '[ -s "$O/plots/series-stock.charges_per_s.png" ] && [ ! -d "$O/plots/all" ] && grep -q "every plot (the experiment names no headline plots)" "$O/plots/index.txt"' \
	"no headlines named: every plot stays in plots/, index.txt says why"
rep=$($LAB report "$O")
ok 'echo "$rep" | grep -A4 "^Verdicts" | tr -s " \n" " " | grep -q "no verdicts: the experiment file of this run has no \[claim\] (a run from before the claims, lab abc)"' \
	"its report has no verdicts and a line saying why"
done_testing
