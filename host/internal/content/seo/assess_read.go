package seo

import "strings"

// Thresholds of the readability assessments (documented in README's table).
const (
	fleschGood, fleschOK         = 60.0, 50.0
	longSentenceWords            = 20
	longShareGood, longShareOK   = 25.0, 30.0 // % of sentences over longSentenceWords
	paragraphGood, paragraphOK   = 150, 200   // words in the longest paragraph
	sectionGood, sectionOK       = 300, 350   // words between subheadings
	passiveGood, passiveOK       = 10.0, 15.0 // % of sentences
	transitionGood, transitionOK = 30.0, 20.0 // % of sentences
	transitionMinWords           = 200
	consecutiveRun               = 3 // sentences in a row with the same first word
	englishMarkerShare           = 0.12
)

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return round1(float64(n) * 100 / float64(of))
}

func (a *analysis) isEnglish() bool {
	n, m := 0, 0
	for _, ws := range a.blockWds {
		for _, w := range ws {
			n++
			if englishMarkers[w] {
				m++
			}
		}
	}
	return n > 0 && float64(m)/float64(n) >= englishMarkerShare
}

func (a *analysis) readabilityAssessments() ([]Assessment, Readability) {
	const c = CategoryReadability
	var out []Assessment
	rd := Readability{Language: "unknown"}
	english := a.isEnglish()
	if english {
		rd.Language = "en"
	}
	nSent := len(a.sents)
	words, syll, long := 0, 0, 0
	for _, s := range a.sents {
		words += len(s.words)
		if len(s.words) > longSentenceWords {
			long++
		}
		if english {
			for _, w := range s.words {
				syll += syllables(w)
			}
		}
	}
	if nSent > 0 {
		rd.AverageSentenceLength = round1(float64(words) / float64(nSent))
	}
	rd.LongSentencesPercent = pct(long, nSent)

	if english && nSent > 0 && words > 0 {
		f := round1(206.835 - 1.015*float64(words)/float64(nSent) - 84.6*float64(syll)/float64(words))
		rd.FleschReadingEase = &f
		switch {
		case f >= fleschGood:
			out = append(out, assess("flesch-reading-ease", c, Good, "Flesch reading ease %.1f: easy enough for most readers.", f))
		case f >= fleschOK:
			out = append(out, assess("flesch-reading-ease", c, OK, "Flesch reading ease %.1f: fairly difficult; shorter sentences and words help.", f))
		default:
			out = append(out, assess("flesch-reading-ease", c, Bad, "Flesch reading ease %.1f: difficult; use shorter sentences and simpler words.", f))
		}
	}

	if nSent > 0 {
		lp := rd.LongSentencesPercent
		switch {
		case lp <= longShareGood:
			out = append(out, assess("sentence-length", c, Good, "%.1f%% of sentences are longer than %d words; at most %.0f%% is good.", lp, longSentenceWords, longShareGood))
		case lp <= longShareOK:
			out = append(out, assess("sentence-length", c, OK, "%.1f%% of sentences are longer than %d words; aim for at most %.0f%%.", lp, longSentenceWords, longShareGood))
		default:
			out = append(out, assess("sentence-length", c, Bad, "%.1f%% of sentences are longer than %d words; shorten them to at most %.0f%%.", lp, longSentenceWords, longShareGood))
		}
	}

	longest := 0
	for _, n := range a.paraWords {
		longest = max(longest, n)
	}
	switch {
	case len(a.paraWords) == 0:
	case longest <= paragraphGood:
		out = append(out, assess("paragraph-length", c, Good, "No paragraph is longer than %d words.", paragraphGood))
	case longest <= paragraphOK:
		out = append(out, assess("paragraph-length", c, OK, "The longest paragraph has %d words; keep paragraphs to %d.", longest, paragraphGood))
	default:
		out = append(out, assess("paragraph-length", c, Bad, "The longest paragraph has %d words; split paragraphs over %d.", longest, paragraphGood))
	}

	sec := 0
	for _, n := range a.sections {
		sec = max(sec, n)
	}
	switch {
	case len(a.sections) == 1 && a.totalWds <= sectionGood:
		out = append(out, assess("subheading-distribution", c, Good, "The text is short enough to need no subheadings."))
	case len(a.sections) == 1:
		out = append(out, assess("subheading-distribution", c, Bad, "%d words and no subheadings: add one at least every %d words.", a.totalWds, sectionGood))
	case sec <= sectionGood:
		out = append(out, assess("subheading-distribution", c, Good, "No section runs longer than %d words without a subheading.", sectionGood))
	case sec <= sectionOK:
		out = append(out, assess("subheading-distribution", c, OK, "A section runs %d words without a subheading; aim for at most %d.", sec, sectionGood))
	default:
		out = append(out, assess("subheading-distribution", c, Bad, "A section runs %d words without a subheading; add one at least every %d words.", sec, sectionGood))
	}

	if english && nSent > 0 {
		passive := 0
		for _, s := range a.sents {
			if isPassive(s.words) {
				passive++
			}
		}
		pp := pct(passive, nSent)
		rd.PassivePercent = &pp
		switch {
		case pp <= passiveGood:
			out = append(out, assess("passive-voice", c, Good, "%.1f%% of sentences are passive; at most %.0f%% is good.", pp, passiveGood))
		case pp <= passiveOK:
			out = append(out, assess("passive-voice", c, OK, "%.1f%% of sentences are passive; aim for at most %.0f%%.", pp, passiveGood))
		default:
			out = append(out, assess("passive-voice", c, Bad, "%.1f%% of sentences are passive; use the active voice more (at most %.0f%%).", pp, passiveGood))
		}

		trans := 0
		for _, s := range a.sents {
			if hasTransition(s.words) {
				trans++
			}
		}
		tp := pct(trans, nSent)
		rd.TransitionPercent = &tp
		if a.totalWds >= transitionMinWords {
			switch {
			case tp >= transitionGood:
				out = append(out, assess("transition-words", c, Good, "%.1f%% of sentences use transition words; %.0f%% or more is good.", tp, transitionGood))
			case tp >= transitionOK:
				out = append(out, assess("transition-words", c, OK, "%.1f%% of sentences use transition words; aim for %.0f%%.", tp, transitionGood))
			default:
				out = append(out, assess("transition-words", c, Bad, "%.1f%% of sentences use transition words; use more to link ideas (aim for %.0f%%).", tp, transitionGood))
			}
		}
	}

	if nSent > 0 {
		runs := repeatedStarts(a.sents)
		if runs == 0 {
			out = append(out, assess("consecutive-sentences", c, Good, "Sentences start in varied ways."))
		} else {
			out = append(out, assess("consecutive-sentences", c, Bad, "%d time(s) %d or more sentences in a row start with the same word.", runs, consecutiveRun))
		}
	}
	return out, rd
}

// repeatedStarts counts runs of consecutiveRun or more sentences that start
// with the same word.
func repeatedStarts(ss []sentence) int {
	runs, n := 0, 1
	for i := 1; i <= len(ss); i++ {
		if i < len(ss) && ss[i].words[0] == ss[i-1].words[0] {
			n++
			continue
		}
		if n >= consecutiveRun {
			runs++
		}
		n = 1
	}
	return runs
}

// isPassive finds an auxiliary ("is", "was", "been", "got"), optionally
// followed by an adverb in -ly or "not", then a past participle: a regular
// -ed form or a known irregular one.
func isPassive(ws []string) bool {
	for i, w := range ws {
		if !beForms[w] {
			continue
		}
		j := i + 1
		for j < len(ws) && j <= i+2 && (strings.HasSuffix(ws[j], "ly") || ws[j] == "not" || ws[j] == "being" || ws[j] == "been") {
			j++
		}
		if j >= len(ws) {
			continue
		}
		p := ws[j]
		if irregularParticiples[p] || (len(p) > 4 && strings.HasSuffix(p, "ed") && !nonParticipleEd[p]) {
			return true
		}
	}
	return false
}

// nonParticipleEd are -ed words that follow "is"/"was" without making a
// passive.
var nonParticipleEd = set(`need seed feed bed red shed speed indeed hundred naked wicked sacred tired interested
excited pleased worried concerned bored supposed used`)

func hasTransition(ws []string) bool {
	for _, w := range ws {
		if transitions[w] {
			return true
		}
	}
	if len(ws) < 2 {
		return false
	}
	joined := " " + strings.Join(ws, " ") + " "
	for _, p := range transitionPhrases {
		if strings.Contains(joined, " "+p+" ") {
			return true
		}
	}
	return false
}
