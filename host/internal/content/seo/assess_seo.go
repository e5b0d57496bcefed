package seo

// Thresholds of the SEO assessments (documented in README's table).
const (
	titleGoodMin, titleGoodMax           = 40, 60 // characters
	titleOKMin, titleOKMax               = 30, 70
	textGoodWords, textOKWords           = 300, 200
	densityGoodMin, densityGoodMax       = 0.5, 3.0 // per 100 words
	densityOKMin, densityOKMax           = 0.3, 4.0
	subheadGoodMin, subheadGoodMax       = 30.0, 75.0 // % of h2/h3 reflecting the keyphrase
	keyphraseGoodWords, keyphraseOKWords = 4, 8
)

func (a *analysis) seoAssessments(keyphrase string) []Assessment {
	const c = CategorySEO
	var out []Assessment
	kp := words(keyphrase)
	cw := contentWords(kp)

	switch n := len(kp); {
	case n == 0:
		out = append(out, assess("keyphrase-length", c, Bad, "No focus keyphrase: give keywords or let them be extracted."))
	case len(cw) <= keyphraseGoodWords:
		out = append(out, assess("keyphrase-length", c, Good, "The keyphrase has %d content words; 1–%d is good.", len(cw), keyphraseGoodWords))
	case len(cw) <= keyphraseOKWords:
		out = append(out, assess("keyphrase-length", c, OK, "The keyphrase has %d content words; more than %d is hard to rank for.", len(cw), keyphraseGoodWords))
	default:
		out = append(out, assess("keyphrase-length", c, Bad, "The keyphrase has %d content words; keep it to %d or fewer.", len(cw), keyphraseGoodWords))
	}

	// Title: the keyphrase at its start is best.
	title := words(a.title)
	switch {
	case a.title == "":
		out = append(out, assess("keyphrase-in-title", c, Bad, "There is no title: add one that contains the keyphrase."))
	case len(kp) == 0:
		out = append(out, assess("keyphrase-in-title", c, Bad, "No keyphrase to look for in the title."))
	case phraseCount(title, kp) > 0 && startsWithPhrase(title, kp):
		out = append(out, assess("keyphrase-in-title", c, Good, "The title starts with the exact keyphrase."))
	case phraseCount(title, kp) > 0 || containsAll(title, cw):
		out = append(out, assess("keyphrase-in-title", c, OK, "The title contains the keyphrase, but not at its start."))
	default:
		out = append(out, assess("keyphrase-in-title", c, Bad, "The title does not contain the keyphrase %q.", keyphrase))
	}

	n := len([]rune(a.title))
	switch {
	case n == 0:
		out = append(out, assess("title-length", c, Bad, "There is no title."))
	case n >= titleGoodMin && n <= titleGoodMax:
		out = append(out, assess("title-length", c, Good, "The title is %d characters; %d–%d is good.", n, titleGoodMin, titleGoodMax))
	case n >= titleOKMin && n <= titleOKMax:
		out = append(out, assess("title-length", c, OK, "The title is %d characters; aim for %d–%d.", n, titleGoodMin, titleGoodMax))
	default:
		out = append(out, assess("title-length", c, Bad, "The title is %d characters; aim for %d–%d so search results show it whole.", n, titleGoodMin, titleGoodMax))
	}

	// Introduction: the first paragraph.
	if len(kp) > 0 {
		inOne, inPara := false, false
		var para []string
		for _, s := range a.intro {
			inOne = inOne || containsAll(s, cw)
			para = append(para, s...)
		}
		inPara = containsAll(para, cw)
		switch {
		case inOne:
			out = append(out, assess("keyphrase-in-introduction", c, Good, "The first paragraph uses the keyphrase in one sentence."))
		case inPara:
			out = append(out, assess("keyphrase-in-introduction", c, OK, "The first paragraph has the keyphrase's words, but not in one sentence."))
		default:
			out = append(out, assess("keyphrase-in-introduction", c, Bad, "The first paragraph does not use the keyphrase."))
		}

		count := a.countPhrase(kp)
		d := a.density(count)
		switch {
		case d >= densityGoodMin && d <= densityGoodMax:
			out = append(out, assess("keyphrase-density", c, Good, "Keyphrase density %.2f%% (%d times in %d words); %.1f–%.0f%% is good.", d, count, a.totalWds, densityGoodMin, densityGoodMax))
		case d >= densityOKMin && d < densityGoodMin:
			out = append(out, assess("keyphrase-density", c, OK, "Keyphrase density %.2f%% (%d times in %d words) is a little low; aim for %.1f–%.0f%%.", d, count, a.totalWds, densityGoodMin, densityGoodMax))
		case d > densityGoodMax && d <= densityOKMax:
			out = append(out, assess("keyphrase-density", c, OK, "Keyphrase density %.2f%% (%d times in %d words) is a little high; aim for %.1f–%.0f%%.", d, count, a.totalWds, densityGoodMin, densityGoodMax))
		case d > densityOKMax:
			out = append(out, assess("keyphrase-density", c, Bad, "Keyphrase density %.2f%% (%d times in %d words) reads as keyword stuffing; aim for %.1f–%.0f%%.", d, count, a.totalWds, densityGoodMin, densityGoodMax))
		default:
			out = append(out, assess("keyphrase-density", c, Bad, "Keyphrase density %.2f%% (%d times in %d words) is too low; aim for %.1f–%.0f%%.", d, count, a.totalWds, densityGoodMin, densityGoodMax))
		}

		if len(a.subheads) > 0 {
			hit := 0
			for _, h := range a.subheads {
				if containsAll(h, cw) {
					hit++
				}
			}
			pct := float64(hit) * 100 / float64(len(a.subheads))
			switch {
			case pct >= subheadGoodMin && pct <= subheadGoodMax:
				out = append(out, assess("keyphrase-in-subheadings", c, Good, "%d of %d subheadings reflect the keyphrase.", hit, len(a.subheads)))
			case hit == 0:
				out = append(out, assess("keyphrase-in-subheadings", c, Bad, "No H2 or H3 subheading reflects the keyphrase."))
			case pct > subheadGoodMax:
				out = append(out, assess("keyphrase-in-subheadings", c, OK, "%d of %d subheadings repeat the keyphrase; more than %.0f%% reads as over-optimised.", hit, len(a.subheads), subheadGoodMax))
			default:
				out = append(out, assess("keyphrase-in-subheadings", c, OK, "%d of %d subheadings reflect the keyphrase; aim for %.0f–%.0f%%.", hit, len(a.subheads), subheadGoodMin, subheadGoodMax))
			}
		}
	}

	switch w := a.totalWds; {
	case w >= textGoodWords:
		out = append(out, assess("text-length", c, Good, "The text has %d words; %d or more is good.", w, textGoodWords))
	case w >= textOKWords:
		out = append(out, assess("text-length", c, OK, "The text has %d words; add more to reach %d.", w, textGoodWords))
	default:
		out = append(out, assess("text-length", c, Bad, "The text has %d words, far below the recommended %d.", w, textGoodWords))
	}

	if a.outbound > 0 {
		out = append(out, assess("outbound-links", c, Good, "The text links to %d outside page(s).", a.outbound))
	} else {
		out = append(out, assess("outbound-links", c, Bad, "No outbound links: cite a source or two."))
	}
	if a.internal > 0 {
		out = append(out, assess("internal-links", c, Good, "The text has %d internal link(s).", a.internal))
	} else {
		out = append(out, assess("internal-links", c, Bad, "No internal links (relative URLs): link to related pages of your site."))
	}

	imgs := a.doc.images
	missing, withKP := 0, 0
	for _, im := range imgs {
		if !im.hasAlt {
			missing++
		} else if len(kp) > 0 && containsAll(words(im.alt), cw) {
			withKP++
		}
	}
	switch {
	case len(imgs) == 0:
		out = append(out, assess("image-alt", c, Bad, "No images: add at least one with alt text."))
	case missing > 0:
		out = append(out, assess("image-alt", c, Bad, "%d of %d images have no alt text.", missing, len(imgs)))
	case len(kp) > 0 && withKP == 0:
		out = append(out, assess("image-alt", c, OK, "Every image has alt text, but none reflects the keyphrase."))
	default:
		out = append(out, assess("image-alt", c, Good, "Every image has alt text."))
	}
	return out
}

func startsWithPhrase(ws, kp []string) bool {
	// Leading stop words ("The", "A") do not count against the start.
	i := 0
	for i < len(ws) && stopwords[ws[i]] && !(len(kp) > 0 && sameWord(ws[i], kp[0])) {
		i++
	}
	return phraseCount(ws[i:min(len(ws), i+len(kp))], kp) > 0
}
