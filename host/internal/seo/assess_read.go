package seo

import "strings"

// Thresholds of the readability assessments (documented in docs/GUIDE.md's table).
const (
	fleschGood, fleschOK         = 60.0, 50.0
	longSentenceWords            = 20
	longShareGood, longShareOK   = 25.0, 30.0 // % of sentences over longSentenceWords
	paragraphGood, paragraphOK   = 150, 200   // words in the longest paragraph
	sectionGood, sectionOK       = 300, 350   // words between subheadings
	passiveGood, passiveOK       = 10.0, 15.0 // % of sentences
	transitionGood, transitionOK = 30.0, 20.0 // % of sentences
	transitionMinWords           = 200
	maxSameStarts                = 2  // sentences in a row with the same start; more is bad
	minTextChars                 = 50 // less is no text to assess
)

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return round1(float64(n) * 100 / float64(of))
}

func (a *analysis) readabilityAssessments() (checks []Assessment, insights []Assessment, rd Readability) {
	const c = CategoryReadability
	add := func(id string, score int, format string, args ...any) {
		checks = append(checks, assess(id, c, score, format, args...))
	}
	l := a.lang
	rd.Language = a.languageCode()
	nSent := len(a.sents)
	longAt := longSentenceWords
	if l != nil && l.longSentence > 0 {
		longAt = l.longSentence
	}
	words, syll, long := 0, 0, 0
	for _, s := range a.sents {
		words += len(s.words)
		if len(s.words) > longAt {
			long++
		}
		if l != nil {
			for _, w := range s.words {
				syll += l.syllables(w)
			}
		}
	}
	if nSent > 0 {
		rd.AverageSentenceLength = round1(float64(words) / float64(nSent))
	}
	rd.LongSentencesPercent = pct(long, nSent)

	if l != nil && nSent > 0 && words > 0 {
		f := round1(min(100, max(0, l.flesch(float64(words)/float64(nSent), float64(syll)/float64(words)))))
		rd.FleschReadingEase = &f
		rd.FleschFormula = l.fleschName
		insights = append(insights, fleschAssessment(l.fleschName, f))
	}

	a.subheadingDistribution(add)

	longest := 0
	for _, n := range a.paraWords {
		longest = max(longest, n)
	}
	switch {
	case longest <= paragraphGood:
		add("paragraph-length", scoreGood, "No paragraph is longer than %d words.", paragraphGood)
	case longest <= paragraphOK:
		add("paragraph-length", scoreOK, "The longest paragraph has %d words; keep paragraphs to %d.", longest, paragraphGood)
	default:
		add("paragraph-length", scoreBad, "The longest paragraph has %d words; split paragraphs over %d.", longest, paragraphGood)
	}

	switch lp := rd.LongSentencesPercent; {
	case lp <= longShareGood:
		add("sentence-length", scoreGood, "%.1f%% of sentences are longer than %d words; at most %.0f%% is good.", lp, longAt, longShareGood)
	case lp <= longShareOK:
		add("sentence-length", scoreOK, "%.1f%% of sentences are longer than %d words; aim for at most %.0f%%.", lp, longAt, longShareGood)
	default:
		add("sentence-length", scoreBad, "%.1f%% of sentences are longer than %d words; shorten them to at most %.0f%%.", lp, longAt, longShareGood)
	}

	if l != nil && len(l.transitions) > 0 {
		trans := 0
		for _, s := range a.sents {
			if l.hasTransition(s.words) {
				trans++
			}
		}
		tp := pct(trans, nSent)
		rd.TransitionPercent = &tp
		switch {
		case a.totalWds < transitionMinWords:
			add("transition-words", scoreGood, "The text is too short (%d words) to need transition words.", a.totalWds)
		case tp >= transitionGood:
			add("transition-words", scoreGood, "%.1f%% of sentences use transition words; %.0f%% or more is good.", tp, transitionGood)
		case tp >= transitionOK:
			add("transition-words", scoreOK, "%.1f%% of sentences use transition words; aim for %.0f%%.", tp, transitionGood)
		default:
			add("transition-words", scoreBad, "%.1f%% of sentences use transition words; use more to link ideas (aim for %.0f%%).", tp, transitionGood)
		}
	}

	if l != nil && l.passive != nil {
		passive := 0
		for _, s := range a.sents {
			if l.passive(s.words) {
				passive++
			}
		}
		pp := pct(passive, nSent)
		rd.PassivePercent = &pp
		switch {
		case pp <= passiveGood:
			add("passive-voice", scoreGood, "%.1f%% of sentences are passive; at most %.0f%% is good.", pp, passiveGood)
		case pp <= passiveOK:
			add("passive-voice", scoreOK, "%.1f%% of sentences are passive; aim for at most %.0f%%.", pp, passiveGood)
		default:
			add("passive-voice", scoreBad, "%.1f%% of sentences are passive; use the active voice more (at most %.0f%%).", pp, passiveGood)
		}
	}

	if a.textChars < minTextChars {
		add("text-presence", scoreBad, "There is hardly any text (%d characters): write at least a few sentences.", a.textChars)
	}

	if runs := a.repeatedStarts(); runs == 0 {
		add("consecutive-sentences", scoreGood, "Sentences start in varied ways.")
	} else {
		add("consecutive-sentences", scoreBad, "%d %s more than %d sentences in a row start with the same word.", runs, plural(runs, "time", "times"), maxSameStarts)
	}
	return checks, insights, rd
}

// fullSupport: the language has every readability check (Yoast's "full
// support"), so the lenient penalty bands apply.
func (a *analysis) fullSupport() bool {
	return a.lang != nil && a.lang.passive != nil && len(a.lang.transitions) > 0
}

// fleschAssessment rates a reading-ease figure: an insight, counted in
// no score.
func fleschAssessment(name string, f float64) Assessment {
	score := scoreGood
	text := "%s %.1f: easy enough for most readers."
	switch {
	case f < fleschOK:
		score, text = scoreBad, "%s %.1f: difficult; use shorter sentences and simpler words."
	case f < fleschGood:
		score, text = scoreOK, "%s %.1f: fairly difficult; shorter sentences and words help."
	}
	return assess("flesch-reading-ease", CategoryInsight, score, text, name, f)
}

func (a *analysis) subheadingDistribution(add func(string, int, string, ...any)) {
	const id = "subheading-distribution"
	if a.totalWds <= sectionGood {
		add(id, scoreGood, "The text is short enough to need no subheadings.")
		return
	}
	if len(a.sections) == 1 {
		add(id, 2, "%d words and no subheadings: add one at least every %d words.", a.totalWds, sectionGood)
		return
	}
	longest, tooLong := 0, 0
	for _, s := range a.sections {
		longest = max(longest, s.words)
		if s.words > sectionGood {
			tooLong++
		}
	}
	// A long opening before the first subheading is judged on its own
	// when it is the only long section.
	if first := a.sections[0]; first.words > sectionGood && tooLong < 2 {
		if first.words <= sectionOK {
			add(id, scoreOK, "The text before the first subheading runs %d words; aim for at most %d.", first.words, sectionGood)
		} else {
			add(id, scoreBad, "The text before the first subheading runs %d words; add a subheading within %d words.", first.words, sectionGood)
		}
		return
	}
	switch {
	case longest <= sectionGood:
		add(id, scoreGood, "No section runs longer than %d words without a subheading.", sectionGood)
	case longest <= sectionOK:
		add(id, scoreOK, "A section runs %d words without a subheading; aim for at most %d.", longest, sectionGood)
	default:
		add(id, scoreBad, "A section runs %d words without a subheading; add one at least every %d words.", longest, sectionGood)
	}
}

// repeatedStarts counts runs of more than maxSameStarts sentences in a
// row that start the same way. An opener such as "the" or a number is
// read with the word after it.
func (a *analysis) repeatedStarts() int {
	var skip map[string]bool
	if a.lang != nil {
		skip = a.lang.firstWordSkip
	}
	start := func(s sentence) string {
		if skip[s.words[0]] && len(s.words) > 1 {
			return s.words[0] + " " + s.words[1]
		}
		return s.words[0]
	}
	runs, n := 0, 1
	for i := 1; i <= len(a.sents); i++ {
		if i < len(a.sents) && start(a.sents[i]) == start(a.sents[i-1]) {
			n++
			continue
		}
		if n > maxSameStarts {
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
excited pleased worried concerned bored supposed used mixed advanced detailed experienced skilled talented complicated
sophisticated crowded varied balanced dedicated`)

func (l *language) hasTransition(ws []string) bool {
	for i, w := range ws {
		if l.transitions[w] {
			return true
		}
		for _, p := range l.phraseIndex()[w] {
			if seqAt(ws, i, p) {
				return true
			}
		}
	}
	return false
}

// phraseIndex groups the multi-word transitions by their first word.
func (l *language) phraseIndex() map[string][][]string {
	l.phraseOnce.Do(func() {
		l.phrasesByFirst = map[string][][]string{}
		for _, p := range l.transitionPhrases {
			ws := strings.Fields(p)
			l.phrasesByFirst[ws[0]] = append(l.phrasesByFirst[ws[0]], ws)
		}
	})
	return l.phrasesByFirst
}
