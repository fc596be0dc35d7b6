# Prints every pair of box labels that overlap in a cacheline map's SVG
# (plots/cachelines.gp draws them centred, in a font of `pt` points); no
# output: none overlap.  The width of a label is measured as pngcairo draws
# it (a font of N points is N * 4/3 pixels to the em; DejaVu Sans advances,
# rounded up by character class), so the check holds for the PNG too,
# whose layout the map's fixed margins make the same as the SVG's.
#   awk -v pt=7 -f svg-label-overlaps.awk map.svg
function ems(s,    i, c, w) {
	w = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (index("ijlft.r|:;!' ", c)) w += 0.42
		else if (index("mwMW", c)) w += 1.0
		else if (c ~ /[A-Z]/) w += 0.8
		else w += 0.64
	}
	return w
}
/<g transform="translate\(/ && /text-anchor="middle"/ {
	match($0, /font-size="[0-9.]+"/)
	size = substr($0, RSTART + 11, RLENGTH - 12) + 0
	want = size == pt
	match($0, /translate\([0-9.]+,[0-9.]+\)/)
	split(substr($0, RSTART + 10, RLENGTH - 11), xy, ",")
	next
}
want && /<text>/ {
	t = $0
	sub(/.*<text>/, "", t); sub(/<\/text>.*/, "", t)
	n++; X[n] = xy[1]; Y[n] = xy[2]; W[n] = ems(t) * pt * 4 / 3; S[n] = t
	want = 0
}
END {
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if ((Y[i] - Y[j])^2 < (pt * 4 / 3)^2 &&
			    X[i] - W[i] / 2 < X[j] + W[j] / 2 && X[j] - W[j] / 2 < X[i] + W[i] / 2)
				printf "\"%s\" at %s,%s overlaps \"%s\" at %s,%s\n", S[i], X[i], Y[i], S[j], X[j], Y[j]
}
