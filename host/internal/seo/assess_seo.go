package seo

// Thresholds and scores of the SEO assessments (documented in docs/GUIDE.md's
// table). Scores follow Yoast's: above 7 is good, 5–7 ok, 4 or less bad;
// keyphrase stuffing and a very short text score below zero so they pull
// the category down, not just fail to add to it.
const (
	titleMaxPx, titleShortPx                    = 600, 400 // title width in pixels
	textGoodWords, textOKWords, textBadWords    = 300, 250, 200
	textFarBelowWords                           = 100
	densityMin, densityMax, densityOverMax      = 0.5, 3.0, 4.0 // % × length factor
	densityMaxWordForms                         = 3.5           // when word forms are matched
	densityShortTextWords                       = 100
	subheadLow, subheadHigh                     = 0.30, 0.75 // share of h2/h3 reflecting the keyphrase
	subheadNeededWords                          = 300
	keyphraseGoodWords, keyphraseOKWords        = 4, 8
	scoreGood, scoreOK, scoreBad                = 9, 6, 3
	scoreDensityLow, scoreOverMax, scoreWayOver = 4, -10, -50
	scoreTextFarBelow, scoreTextVeryFarBelow    = -10, -20
)

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (a *analysis) seoAssessments(k keyphrase) []Assessment {
	const c = CategorySEO
	var out []Assessment
	add := func(id string, score int, format string, args ...any) {
		out = append(out, assess(id, c, score, format, args...))
	}
	has := len(k.all) > 0

	switch n := len(k.content); {
	case !has:
		add("keyphrase-length", scoreBad, "No focus keyphrase: give keywords or let them be extracted.")
	case n <= keyphraseGoodWords:
		add("keyphrase-length", scoreGood, "The keyphrase has %d content %s; 1–%d is good.", n, plural(n, "word", "words"), keyphraseGoodWords)
	case n <= keyphraseOKWords:
		add("keyphrase-length", scoreOK, "The keyphrase has %d content words; more than %d is hard to rank for.", n, keyphraseGoodWords)
	default:
		add("keyphrase-length", scoreBad, "The keyphrase has %d content words; keep it to %d or fewer.", n, keyphraseGoodWords)
	}
	if k.onlyFunction {
		add("keyphrase-function-words", 0, "The keyphrase %q has only function words; use words that say what the text is about.", k.text)
	}

	// Title: the exact keyphrase at its start is best.
	title := words(a.title)
	switch {
	case a.title == "":
		add("keyphrase-in-title", 2, "There is no title: add one that contains the keyphrase.")
	case !has:
		add("keyphrase-in-title", 2, "No keyphrase to look for in the title.")
	case a.startsWith(title, k):
		add("keyphrase-in-title", scoreGood, "The title starts with the exact keyphrase.")
	case a.exactIn(title, k):
		add("keyphrase-in-title", scoreOK, "The title contains the exact keyphrase, but not at its start.")
	case a.share(k, title) == 100:
		add("keyphrase-in-title", scoreOK, "The title contains the keyphrase's words, but not as the exact keyphrase.")
	default:
		add("keyphrase-in-title", 2, "The title does not contain the keyphrase %q.", k.text)
	}

	switch px := a.titleWidth; {
	case a.title == "":
		add("title-length", 1, "There is no title.")
	case px > titleMaxPx:
		add("title-length", scoreBad, "The title is %d px wide; search results cut it after %d px.", px, titleMaxPx)
	case px <= titleShortPx:
		add("title-length", scoreGood, "The title is %d px wide: short, and shown whole in search results.", px)
	default:
		add("title-length", scoreGood, "The title is %d px wide; it fits the %d px search results show.", px, titleMaxPx)
	}

	if has && a.totalWds > 0 {
		a.introAssessment(k, add)
		a.densityAssessment(k, add)
		a.subheadingKeyphrase(k, add)
		competing := 0
		for _, l := range a.doc.links {
			if lw := words(l.text); len(lw) > 0 && a.share(k, lw) == 100 {
				competing++
			}
		}
		if competing > 0 {
			add("competing-links", 2, "%d %s the keyphrase as anchor text: that tells search engines another page is about it.", competing, plural(competing, "link uses", "links use"))
		} else {
			add("competing-links", 8, "No link uses the keyphrase as its anchor text.")
		}
	}

	switch w := a.totalWds; {
	case w >= textGoodWords:
		add("text-length", scoreGood, "The text has %d words; %d or more is good.", w, textGoodWords)
	case w >= textOKWords:
		add("text-length", scoreOK, "The text has %d words, slightly below the recommended %d.", w, textGoodWords)
	case w >= textBadWords:
		add("text-length", scoreBad, "The text has %d words, below the recommended %d.", w, textGoodWords)
	case w >= textFarBelowWords:
		add("text-length", scoreTextFarBelow, "The text has %d words, far below the recommended %d.", w, textGoodWords)
	default:
		add("text-length", scoreTextVeryFarBelow, "The text has %d %s, far below the recommended %d.", w, plural(w, "word", "words"), textGoodWords)
	}

	switch {
	case a.outbound == 0:
		add("outbound-links", scoreBad, "No outbound links: cite a source or two.")
	case a.outboundNofollow == a.outbound:
		add("outbound-links", 7, "Every outbound link is nofollow; link to a source you trust without it.")
	case a.outboundNofollow > 0:
		add("outbound-links", 8, "The text links to %d outside %s, some nofollow.", a.outbound, plural(a.outbound, "page", "pages"))
	default:
		add("outbound-links", scoreGood, "The text links to %d outside %s.", a.outbound, plural(a.outbound, "page", "pages"))
	}
	switch {
	case a.internal == 0:
		add("internal-links", scoreBad, "No internal links (relative URLs): link to related pages of your site.")
	case a.internalNofollow == a.internal:
		add("internal-links", 7, "Every internal link is nofollow.")
	case a.internalNofollow > 0:
		add("internal-links", 8, "The text has %d internal links, some nofollow.", a.internal)
	default:
		add("internal-links", scoreGood, "The text has %d internal %s.", a.internal, plural(a.internal, "link", "links"))
	}

	a.imageAssessments(k, has, add)

	if a.h1s > 1 {
		add("single-h1", 1, "The text has %d H1 headings; keep one, the title.", a.h1s)
	} else {
		add("single-h1", 8, "The text has at most one H1 heading.")
	}
	return out
}

func (a *analysis) introAssessment(k keyphrase, add func(string, int, string, ...any)) {
	var para []string
	for _, s := range a.intro {
		if a.share(k, s) == 100 {
			add("keyphrase-in-introduction", scoreGood, "The first paragraph uses the keyphrase in one sentence.")
			return
		}
		para = append(para, s...)
	}
	if len(para) > 0 && a.share(k, para) == 100 {
		add("keyphrase-in-introduction", scoreOK, "The first paragraph has the keyphrase's words, but not in one sentence.")
		return
	}
	add("keyphrase-in-introduction", scoreBad, "The first paragraph does not use the keyphrase.")
}

func (a *analysis) densityAssessment(k keyphrase, add func(string, int, string, ...any)) {
	const id = "keyphrase-density"
	n := a.count(k)
	words := a.densityWds
	found := "The keyphrase is found %d %s in %d words"
	times := plural(n, "time", "times")
	if words < densityShortTextWords {
		// Short texts: a count, not a density.
		maxN := 1
		if words > 50 {
			maxN = 2
		}
		switch {
		case n == 0:
			add(id, scoreDensityLow, found+"; use it at least once.", n, times, words)
		case n <= maxN:
			add(id, scoreGood, found+": good for a text this short.", n, times, words)
		case n == maxN+1:
			add(id, scoreOverMax, found+"; more than %d reads as over-optimised.", n, times, words, maxN)
		default:
			add(id, scoreWayOver, found+", far more than %d: keyword stuffing.", n, times, words, maxN)
		}
		return
	}
	maxD := densityMax
	if a.lang != nil && a.lang.stem != nil && !k.exact && !a.typedForms {
		maxD = densityMaxWordForms
	}
	d := float64(n) * 100 / float64(words)
	f := lengthFactor(len(k.content))
	wd := d * f
	minCount := recommendedCount(len(k.content), densityMin, words, false)
	switch {
	case n == 0:
		add(id, scoreDensityLow, found+"; use it at least %d times.", n, times, words, minCount)
	case wd < densityMin || n == 1:
		add(id, scoreDensityLow, found+" (density %.1f%%), fewer than the recommended %d.", n, times, words, d, minCount)
	case wd <= maxD || (n == 2 && minCount <= 2):
		add(id, scoreGood, found+" (density %.1f%%): good.", n, times, words, d)
	case wd <= densityOverMax:
		add(id, scoreOverMax, found+" (density %.1f%%), more than the recommended %d: over-optimised.", n, times, words, d, recommendedCount(len(k.content), maxD, words, true))
	default:
		add(id, scoreWayOver, found+" (density %.1f%%), far more than the recommended %d: keyword stuffing.", n, times, words, d, recommendedCount(len(k.content), maxD, words, true))
	}
}

// recommendedCount turns a weighted density into a count for the text:
// at least 2, rounded up for a minimum and down for a maximum.
func recommendedCount(contentWords int, density float64, words int, isMax bool) int {
	c := density * float64(words) / (100 * lengthFactor(contentWords))
	if c < 2 {
		return 2
	}
	if isMax {
		return int(c)
	}
	return int(c + 0.999999)
}

func (a *analysis) subheadingKeyphrase(k keyphrase, add func(string, int, string, ...any)) {
	const id = "keyphrase-in-subheadings"
	n := len(a.subheads)
	if n == 0 {
		if a.totalWds >= subheadNeededWords {
			add(id, 2, "%d words and no H2 or H3 subheading: add subheadings, and let some reflect the keyphrase.", a.totalWds)
		} else {
			add(id, scoreGood, "The text is short enough to need no subheadings.")
		}
		return
	}
	hit := 0
	for _, h := range a.subheads {
		if len(k.content) == 1 && a.share(k, h) == 100 || len(k.content) > 1 && a.share(k, h) > 50 {
			hit++
		}
	}
	lo := int(ceil(float64(n) * subheadLow))
	hi := int(float64(n) * subheadHigh)
	switch {
	case hit == 0:
		add(id, scoreBad, "No H2 or H3 subheading reflects the keyphrase.")
	case hit < lo:
		add(id, scoreBad, "%d of %d subheadings reflect the keyphrase; aim for %d–%d.", hit, n, lo, max(hi, lo))
	case n > 1 && hit > hi:
		add(id, scoreBad, "%d of %d subheadings reflect the keyphrase; more than %d reads as over-optimised.", hit, n, hi)
	default:
		add(id, scoreGood, "%d of %d %s the keyphrase.", hit, n, plural(n, "subheading reflects", "subheadings reflect"))
	}
}

func (a *analysis) imageAssessments(k keyphrase, has bool, add func(string, int, string, ...any)) {
	imgs := a.doc.images
	if len(imgs) == 0 {
		add("images", scoreBad, "No images: add at least one.")
	} else {
		add("images", scoreGood, "The text has %d %s.", len(imgs), plural(len(imgs), "image", "images"))
	}
	if !has || len(imgs) == 0 {
		add("image-alt", scoreBad, "No image alt text reflects the keyphrase: add an image whose alt text does.")
		return
	}
	withAlt, withKP := 0, 0
	for _, im := range imgs {
		if !im.hasAlt {
			continue
		}
		withAlt++
		// An alt text reflects the keyphrase with half its content words.
		if a.share(k, words(im.alt)) >= 50 {
			withKP++
		}
	}
	n := len(imgs)
	lo, hi := int(ceil(float64(n)*subheadLow)), int(float64(n)*subheadHigh)
	switch {
	case withKP == 0 && withAlt > 0:
		add("image-alt", scoreOK, "Images have alt text, but none reflects the keyphrase.")
	case withKP == 0:
		add("image-alt", scoreOK, "No image has alt text: describe each image, and let one reflect the keyphrase.")
	case n < 5 || n == 5 && withKP >= 2 && withKP <= 4 || n > 5 && withKP >= lo && withKP <= hi:
		add("image-alt", scoreGood, "%d of %d images have alt text that reflects the keyphrase.", withKP, n)
	case withKP < lo:
		add("image-alt", scoreOK, "Only %d of %d images have alt text reflecting the keyphrase; aim for %d.", withKP, n, lo)
	default:
		add("image-alt", scoreOK, "%d of %d images repeat the keyphrase in their alt text; vary it.", withKP, n)
	}
}

func ceil(f float64) float64 {
	i := float64(int(f))
	if f > i {
		return i + 1
	}
	return i
}

// startsWith: the exact keyphrase opens the title, leading function words
// ("The", "A") aside.
func (a *analysis) startsWith(title []string, k keyphrase) bool {
	fw := a.functionWords()
	i := 0
	for i < len(title) && fw[title[i]] && !(len(k.all) > 0 && title[i] == k.all[0]) {
		i++
	}
	return seqAt(title, i, k.all)
}

func (a *analysis) exactIn(title []string, k keyphrase) bool {
	for i := range title {
		if seqAt(title, i, k.all) {
			return true
		}
	}
	return false
}

func seqAt(ws []string, i int, kp []string) bool {
	if len(kp) == 0 || i+len(kp) > len(ws) {
		return false
	}
	for j, w := range kp {
		if ws[i+j] != w {
			return false
		}
	}
	return true
}
