package seo

// Title width. Search results show a title in Arial at 20 px and cut it
// at about 600 px, which is how Yoast judges the SEO title: wide enough is
// what counts, not the number of characters ("WWW" is wider than "iii").

// titleFontPx is the font size search results set titles in.
const titleFontPx = 20

// arialWidths are the advance widths of printable ASCII (space to ~) in
// Arial, in 1/1000 em. Arial shares its metrics with Helvetica; the values
// are those of Adobe's published Helvetica AFM (Core 14 font metrics).
var arialWidths = [95]uint16{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0-9
	278, 278, 584, 584, 584, 556, 1015, // : to @
	667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // A-M
	722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N-Z
	278, 278, 278, 469, 556, 333, // [ to `
	556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // a-m
	556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // n-z
	334, 260, 334, 584, // { to ~
}

// otherWidth is used for characters outside ASCII: accented letters are
// as wide as their base letter's average, about that of "n".
const otherWidth = 556

// titleWidth is s's width in pixels as search results render it.
func titleWidth(s string) int {
	total := 0
	for _, r := range s {
		switch {
		case r >= ' ' && r <= '~':
			total += int(arialWidths[r-' '])
		case r == '\t' || r == '\n':
			total += int(arialWidths[0])
		default:
			total += otherWidth
		}
	}
	return (total*titleFontPx + 500) / 1000
}
