package analysis

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentiment labels and their score bands (docs/METRICS.md).
const (
	SentimentNegative = "negative" // 0–39
	SentimentNeutral  = "neutral"  // 40–69
	SentimentPositive = "positive" // 70–100
)

// Sentiment is the judged sentiment of one answer toward one brand, stored
// with the answer so the report reproduces.
type Sentiment struct {
	Label string `json:"label"`
	Score int    `json:"score"`
	// Cue is the negative phrase that made the sentiment negative whatever
	// the judge said ("avoid X", "X has had outages"), when there was one.
	Cue string `json:"cue,omitempty"`
}

// Band clamps a judged score into its label's Band; an unknown label is
// taken from the score.
func Band(label string, score int) Sentiment {
	score = max(0, min(100, score))
	switch label {
	case SentimentNegative:
		return Sentiment{Label: label, Score: min(score, 39)}
	case SentimentNeutral:
		return Sentiment{Label: label, Score: max(40, min(score, 69))}
	case SentimentPositive:
		return Sentiment{Label: label, Score: max(70, score)}
	}
	switch {
	case score < 40:
		return Sentiment{Label: SentimentNegative, Score: score}
	case score < 70:
		return Sentiment{Label: SentimentNeutral, Score: score}
	}
	return Sentiment{Label: SentimentPositive, Score: score}
}

// negativeBefore and negativeAfter are phrases that, right before or right
// after a brand's name in the same sentence, make the mention negative
// whatever the judge says: "avoid X", "X has had outages".
var (
	negativeBefore = []string{"avoid", "avoid using", "stay away from", "steer clear of", "do not use", "don't use",
		"do not recommend", "don't recommend", "would not recommend", "wouldn't recommend", "beware of", "problems with", "issues with", "complaints about"}
	negativeAfter = []string{"has had outages", "had outages", "has outages", "outage", "outages", "is unreliable", "has been unreliable",
		"was breached", "had a breach", "has had a breach", "had a data breach", "is down", "went down", "is a scam", "is overpriced",
		"has poor support", "has been criticized", "has been criticised", "is not recommended", "should be avoided"}
)

// sentences splits text into sentences at . ! ? and newlines.
func sentences(text string) []string {
	var out []string
	for _, sp := range sentenceSpans(text, nil) {
		out = append(out, text[sp[0]:sp[1]])
	}
	return out
}

// sentenceSpans appends to spans the bounds of each sentence of text, as
// sentences splits it, trimmed of spaces.
func sentenceSpans(text string, spans [][2]int32) [][2]int32 {
	emit := func(start, end int) {
		for start < end {
			r, size := rune(text[start]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[start:end])
			}
			if !unicode.IsSpace(r) {
				break
			}
			start += size
		}
		for start < end {
			r, size := rune(text[end-1]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeLastRuneInString(text[start:end])
			}
			if !unicode.IsSpace(r) {
				break
			}
			end -= size
		}
		if start < end {
			spans = append(spans, [2]int32{int32(start), int32(end)})
		}
	}
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\n' || ((c == '.' || c == '!' || c == '?') && (i+1 == len(text) || unicode.IsSpace(rune(text[i+1])))) {
			emit(start, i+1)
			start = i + 1
		}
	}
	emit(start, len(text))
	return spans
}

// CueText is an answer's text split into sentences once, so the cue pass
// over every brand the answer names does not split the text again. When
// lower case keeps every character's byte length (sameLength), a brand
// whose aliases and domains are ASCII is found by comparing ASCII letters
// case-insensitively in the text as written, which is what searching the
// lowered text finds (no character outside ASCII lowers to one inside it
// without changing length); other brands search the lowered text, made
// once when first needed. When lower case changes a length, each sentence
// is lowered on its own (slowLowered). One is made per answer that names
// a brand, so it is kept small.
type CueText struct {
	text  string
	spans [][2]int32 // the sentences' bounds
	// lc holds the lowered text or sentences once made (nil: not yet).
	lc         *cueLower
	used       int32
	sameLength bool
	small      [6][2]int32
	// sents holds the brands' sentences (brandFolded) while it has room,
	// so a brand's list is not an allocation of its own.
	sents [4]string
	// index, hits: the needles an index found (CueIndex.Text), in the
	// order of their starts.
	index  *CueIndex
	hits   []cueHit
	hitBuf [4]cueHit
}

// cueLower is a CueText in lower case: low, the whole text (sameLength),
// or slowLowered, each sentence.
type cueLower struct {
	low         string
	slowLowered []string
}

// NewCueText splits text for the cue pass.
func NewCueText(text string) *CueText {
	c := &CueText{}
	c.split(text, nil)
	return c
}

// split makes c, zero but for the buffers given (spans with no length),
// the cue text of text.
func (c *CueText) split(text string, spans [][2]int32) {
	c.text = text
	if cap(spans) <= len(c.small) {
		spans = c.small[:0]
	}
	var ascii bool
	c.spans, ascii = cueSpans(text, spans)
	if ascii || keepsOffsets(text) {
		c.sameLength = true
		return
	}
	c.lc = &cueLower{slowLowered: make([]string, len(c.spans))}
	for i, sp := range c.spans {
		c.lc.slowLowered[i] = strings.ToLower(text[sp[0]:sp[1]])
	}
}

// stopClass tells cueSpans which bytes matter: 1 a newline, 2 a full
// stop, ! or ?, 3 a byte outside ASCII.
var stopClass = func() (t [256]uint8) {
	t['\n'] = 1
	t['.'], t['!'], t['?'] = 2, 2, 2
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = 3
	}
	return t
}()

// cueSpans is sentenceSpans, and says whether text is ASCII, in one pass.
func cueSpans(text string, spans [][2]int32) ([][2]int32, bool) {
	ascii := true
	start := 0
	for i := 0; i < len(text); i++ {
		switch stopClass[text[i]] {
		case 0:
			continue
		case 3:
			ascii = false
			continue
		case 2:
			if i+1 != len(text) && !unicode.IsSpace(rune(text[i+1])) {
				continue
			}
		}
		spans = appendSpan(text, spans, start, i+1)
		start = i + 1
	}
	return appendSpan(text, spans, start, len(text)), ascii
}

// appendSpan is sentenceSpans's emit: start..end trimmed of spaces,
// appended when not empty.
func appendSpan(text string, spans [][2]int32, start, end int) [][2]int32 {
	for start < end {
		r, size := rune(text[start]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[start:end])
		}
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	for start < end {
		r, size := rune(text[end-1]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeLastRuneInString(text[start:end])
		}
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	if start < end {
		spans = append(spans, [2]int32{int32(start), int32(end)})
	}
	return spans
}

// keepsOffsets is lowerKeepingOffsets's ok without building the lowered
// text.
func keepsOffsets(text string) bool {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 || utf8.RuneLen(unicode.ToLower(r)) != size {
			return false
		}
		i += size
	}
	return true
}

// lower makes low (sameLength only).
func (c *CueText) lower() {
	if c.lc == nil {
		low, _ := lowerKeepingOffsets(c.text)
		c.lc = &cueLower{low: low}
	}
}

// sentence is sentence i as written and in lower case (after lower, or
// with slowLowered).
func (c *CueText) sentence(i int) (string, string) {
	sp := c.spans[i]
	if c.lc.slowLowered != nil {
		return c.text[sp[0]:sp[1]], c.lc.slowLowered[i]
	}
	return c.text[sp[0]:sp[1]], c.lc.low[sp[0]:sp[1]]
}

// lowerKeepingOffsets is strings.ToLower(text) when every character keeps
// its byte length in lower case (ok), so that offsets into text hold in
// it; ok is false when one does not (or the text is not valid UTF-8).
func lowerKeepingOffsets(text string) (string, bool) {
	ascii := true
	for i := 0; i < len(text) && ascii; i++ {
		ascii = text[i] < utf8.RuneSelf
	}
	if ascii {
		return strings.ToLower(text), true
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		l := unicode.ToLower(r)
		if r == utf8.RuneError && size == 1 || utf8.RuneLen(l) != size {
			return "", false
		}
		b.WriteRune(l)
		i += size
	}
	return b.String(), true
}

// BrandCue is one brand in one answer for the cue pass: the sentences
// that name it, as written (Sentences) and in lower case (lowered, with
// the needles in lower case), or, when fold, compared with the brand's
// ASCII aliases and domains (aliases, domains) case-insensitively.
type BrandCue struct {
	Sentences []string
	lowered   []string
	needles   []string
	fold      bool
	aliases   []string
	domains   []string
	name      string
	// hits, when set, is the text whose index found the brand (brand):
	// Negative reads the names from its hits.
	hits  *CueText
	brand int32
}

// Brand returns the sentences of the text that name b (an alias on word
// boundaries, case-folded).
func (c *CueText) Brand(b Brand) BrandCue {
	if c.sameLength && asciiNeedles(b) {
		return c.brandFolded(b)
	}
	if c.sameLength {
		c.lower()
	}
	var ndBuf [16]string
	nd := appendNeedles(ndBuf[:0], b)
	var hits [64]bool
	hit := hits[:0]
	if len(c.spans) > len(hits) {
		hit = make([]bool, 0, len(c.spans))
	}
	hit = hit[:len(c.spans)]
	if c.sameLength && !slices.Contains(nd, "") {
		c.named(nd, hit)
	} else {
		for i := range c.spans {
			_, l := c.sentence(i)
			_, hit[i] = aliasIn(l, nd)
		}
	}
	k := 0
	for _, ok := range hit {
		if ok {
			k++
		}
	}
	bc := BrandCue{name: b.Name}
	if k == 0 {
		return bc // no sentence: Negative needs no needles
	}
	all := make([]string, 2*k+len(nd)) // the sentences, lowered, the needles
	bc.Sentences, bc.lowered, bc.needles = all[:0:k], all[k:k:2*k], all[2*k:]
	copy(bc.needles, nd)
	for i, ok := range hit {
		if ok {
			sent, l := c.sentence(i)
			bc.Sentences = append(bc.Sentences, sent)
			bc.lowered = append(bc.lowered, l)
		}
	}
	return bc
}

// asciiNeedles: every alias and domain of b is ASCII and not empty.
func asciiNeedles(b Brand) bool {
	for _, list := range [2][]string{b.Aliases, b.Domains} {
		for _, s := range list {
			if s == "" {
				return false
			}
			for i := 0; i < len(s); i++ {
				if s[i] >= utf8.RuneSelf {
					return false
				}
			}
		}
	}
	return true
}

// brandFolded is Brand for a brand with ASCII needles over a text whose
// lower case keeps its offsets.
func (c *CueText) brandFolded(b Brand) BrandCue {
	var hits [64]bool
	hit := hits[:0]
	if len(c.spans) > len(hits) {
		hit = make([]bool, 0, len(c.spans))
	}
	hit = hit[:len(c.spans)]
	seen := 0
	for _, list := range [2][]string{b.Aliases, b.Domains} {
		for _, nd := range list {
			if c.seenNeedle(b, seen, nd) {
				seen++
				continue
			}
			seen++
			c.namedFold(nd, hit)
		}
	}
	k := 0
	for _, ok := range hit {
		if ok {
			k++
		}
	}
	bc := BrandCue{name: b.Name}
	if k == 0 {
		return bc
	}
	bc.fold, bc.aliases, bc.domains = true, b.Aliases, b.Domains
	if u := int(c.used); k <= len(c.sents)-u {
		bc.Sentences = c.sents[u : u : u+k] // capped: an append copies
		c.used += int32(k)
	} else {
		bc.Sentences = make([]string, 0, k)
	}
	for i, ok := range hit {
		if ok {
			sp := c.spans[i]
			bc.Sentences = append(bc.Sentences, c.text[sp[0]:sp[1]])
		}
	}
	return bc
}

// seenNeedle says one of the first n needles of b (aliases, then domains)
// is nd in another case: searching it again would mark nothing new.
func (c *CueText) seenNeedle(b Brand, n int, nd string) bool {
	for _, list := range [2][]string{b.Aliases, b.Domains} {
		for _, x := range list {
			if n == 0 {
				return false
			}
			n--
			if foldEqualASCII(x, nd) {
				return true
			}
		}
	}
	return false
}

// named marks the sentences holding one of needles on word boundaries,
// searching the whole lowered text once per needle. A sentence's edges are
// word boundaries in the text too (spaces or the stop that ends it lie
// outside), so an occurrence inside a sentence is bounded in the text
// exactly when it is in the sentence.
func (c *CueText) named(needles []string, hit []bool) {
	for _, nd := range needles {
		k := 0
		low := c.lc.low
		for off := 0; off < len(low); {
			i := strings.Index(low[off:], nd)
			if i < 0 {
				break
			}
			start, end := off+i, off+i+len(nd)
			off = start + 1
			for k < len(c.spans) && int(c.spans[k][1]) < end {
				k++
			}
			if k == len(c.spans) {
				break
			}
			if int(c.spans[k][0]) <= start && wordBounded(low, start, end) {
				hit[k] = true
			}
		}
	}
}

// namedFold is named for one ASCII needle over the text as written,
// compared case-insensitively.
func (c *CueText) namedFold(nd string, hit []bool) {
	k := 0
	var f folder
	f.reset(c.text, nd)
	for {
		start := f.next()
		if start < 0 {
			return
		}
		end := start + len(nd)
		for k < len(c.spans) && int(c.spans[k][1]) < end {
			k++
		}
		if k == len(c.spans) {
			return
		}
		if int(c.spans[k][0]) <= start && wordBoundedFold(c.text, start, end) {
			hit[k] = true
		}
	}
}

// folder finds an ASCII needle in a text, ASCII letters compared without
// case, left to right, one start after the other (each start after the
// last one found).
type folder struct {
	text, nd string
	lo, up   byte // the needle's first byte in either case
	off      int  // where the next search starts
	nlo, nup int  // the next lo and up at or after off; -1 none, -2 not looked up
}

func (f *folder) reset(text, nd string) {
	f.text, f.nd, f.off = text, nd, 0
	f.lo, f.up = lowerASCII(nd[0]), nd[0]
	if f.lo >= 'a' && f.lo <= 'z' {
		f.up = f.lo - ('a' - 'A')
	}
	f.nlo, f.nup = -2, -2
	if f.lo == f.up {
		f.nup = -1
	}
}

// nextByte is the index of b at or after off in text, given the last
// answer n for an earlier off.
func nextByte(text string, b byte, off, n int) int {
	if n == -1 || n >= off {
		return n
	}
	if off >= len(text) {
		return -1
	}
	i := strings.IndexByte(text[off:], b)
	if i < 0 {
		return -1
	}
	return off + i
}

// next is the start of the next occurrence, -1 when none is left.
func (f *folder) next() int {
	for {
		if f.off+len(f.nd) > len(f.text) {
			return -1
		}
		f.nlo = nextByte(f.text, f.lo, f.off, f.nlo)
		if f.lo != f.up {
			f.nup = nextByte(f.text, f.up, f.off, f.nup)
		}
		i := f.nlo
		if f.nup >= 0 && (i < 0 || f.nup < i) {
			i = f.nup
		}
		if i < 0 || i+len(f.nd) > len(f.text) {
			return -1
		}
		f.off = i + 1
		if foldEqualASCII(f.text[i:i+len(f.nd)], f.nd) {
			return i
		}
	}
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// foldEqualASCII says a and b are the same bytes with ASCII letters
// compared without case (a byte outside ASCII equals only itself; unlike
// strings.EqualFold, ſ is not s and K is not k).
func foldEqualASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] && lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

// wordBoundedFold is wordBounded over the lowered text, read in the text
// as written (whose lower case keeps its offsets): no letter or digit,
// in lower case, right before start or right after end.
func wordBoundedFold(text string, start, end int) bool {
	word := func(r rune) bool {
		if r < utf8.RuneSelf {
			return asciiWord[r]
		}
		r = unicode.ToLower(r)
		return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
	}
	if start > 0 {
		before := rune(text[start-1])
		if before >= utf8.RuneSelf {
			before, _ = utf8.DecodeLastRuneInString(text[:start])
		}
		if word(before) {
			return false
		}
	}
	if end < len(text) {
		after := rune(text[end])
		if after >= utf8.RuneSelf {
			after, _ = utf8.DecodeRuneInString(text[end:])
		}
		if word(after) {
			return false
		}
	}
	return true
}

// Negative is NegativeCue over the brand's sentences.
func (bc BrandCue) Negative() string {
	if bc.hits != nil {
		return bc.hits.negativeHits(int(bc.brand), bc.name)
	}
	if bc.fold {
		return negativeCueFold(bc.Sentences, bc.aliases, bc.domains, bc.name)
	}
	return negativeCue(bc.lowered, bc.needles, bc.name)
}

// BrandSentences are the sentences of text that name b (an alias on word
// boundaries, case-folded).
func BrandSentences(text string, b Brand) []string { return NewCueText(text).Brand(b).Sentences }

// needles are b's aliases and then its domains, in lower case: what
// aliasIn looks for, in that order.
func needles(b Brand) []string { return appendNeedles(nil, b) }

// appendNeedles appends b's needles to out.
func appendNeedles(out []string, b Brand) []string {
	for _, a := range b.Aliases {
		out = append(out, strings.ToLower(a))
	}
	for _, d := range b.Domains {
		out = append(out, strings.ToLower(d))
	}
	return out
}

// aliasIn returns where the first of needles found on word boundaries
// starts and ends in lowered.
func aliasIn(lowered string, needles []string) ([2]int, bool) {
	for _, a := range needles {
		for off := 0; off < len(lowered); {
			i := strings.Index(lowered[off:], a)
			if i < 0 {
				break
			}
			start, end := off+i, off+i+len(a)
			if wordBounded(lowered, start, end) {
				return [2]int{start, end}, true
			}
			off = start + 1
		}
	}
	return [2]int{}, false
}

// wordBounded: no letter or digit right before start or right after end.
func wordBounded(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	word := func(r rune) bool { return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) }
	return !(start > 0 && word(before)) && !(end < len(text) && word(after))
}

// beforeWindow is how many bytes before a name negativeCue reads: more
// than the longest phrase of negativeBefore plus one skipped word.
const beforeWindow = 160

// negativeBeforeWords are the words of each phrase of negativeBefore.
var negativeBeforeWords = func() [][]string {
	out := make([][]string, len(negativeBefore))
	for i, p := range negativeBefore {
		out[i] = strings.Fields(p)
	}
	return out
}()

// words are the last words of a text, as strings.Fields splits it:
// n of them in all, the last len(last) kept (last[k%len(last)] is word
// k), enough for the longest phrase of negativeBefore and a skipped word.
type words struct {
	n    int
	last [4]string
}

// negativeLast are the last words of negativeBefore's phrases, and
// negativeAfterFirst the first bytes of negativeAfter's: a name whose
// neighbours are neither needs no phrase compared.
var negativeLast, negativeAfterFirst = func() (map[string]bool, [256]bool) {
	last := map[string]bool{}
	for _, pw := range negativeBeforeWords {
		last[pw[len(pw)-1]] = true
	}
	var first [256]bool
	for _, p := range negativeAfter {
		first[p[0]] = true
	}
	return last, first
}()

// endsPhrase says the last or the one before it (a skipped word) can end
// a phrase of negativeBefore.
func (w words) endsPhrase() bool {
	for skip := 0; skip <= 1 && skip < w.n; skip++ {
		if negativeLast[w.last[(w.n-1-skip)%len(w.last)]] {
			return true
		}
	}
	return false
}

func init() {
	for _, pw := range negativeBeforeWords {
		if len(pw)+1 > len(words{}.last) {
			panic("analysis: a negative phrase is longer than the words kept before a name")
		}
	}
}

// lastWords reads s's words without allocating; dropFirst leaves out the
// first word.
func lastWords(s string, dropFirst bool) words {
	var w words
	add := func(word string) {
		if dropFirst {
			dropFirst = false
			return
		}
		w.last[w.n%len(w.last)] = word
		w.n++
	}
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				add(s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		add(s[start:])
	}
	return w
}

// endsWith says words n-len(pw) up to n are pw (n ≤ w.n, and at most
// len(w.last)-1 words before the last).
func (w words) endsWith(n int, pw []string) bool {
	for k, p := range pw {
		if w.last[(n-len(pw)+k)%len(w.last)] != p {
			return false
		}
	}
	return true
}

// NegativeCue finds a negative phrase adjacent to a name of b in one of
// its sentences: a phrase of negativeBefore ending right before the name
// (up to one word between, "avoid using X"), or one of negativeAfter
// starting right after it.
func NegativeCue(sents []string, b Brand) string {
	lowered := make([]string, len(sents))
	for i, s := range sents {
		lowered[i] = strings.ToLower(s)
	}
	return negativeCue(lowered, needles(b), b.Name)
}

// negativeCue is NegativeCue over sentences already in lower case.
func negativeCue(lowered, needles []string, name string) string {
	for _, l := range lowered {
		for off := 0; off < len(l); {
			pos, ok := aliasIn(l[off:], needles)
			if !ok {
				break
			}
			start, end := off+pos[0], off+pos[1]
			// Only the last few words before the name matter: a bounded
			// window keeps this linear in the sentence's length (an
			// answer of 150,000 one-letter names must not go quadratic).
			from := max(0, start-beforeWindow)
			if before := lastWordsBack(l[from:start], from > 0); before.endsPhrase() { // the window may cut its first word
				for i, pw := range negativeBeforeWords {
					for skip := 0; skip <= 1; skip++ {
						if n := before.n - skip; n >= len(pw) && before.endsWith(n, pw) {
							return negativeBefore[i] + " " + name
						}
					}
				}
			}
			after := strings.TrimSpace(strings.TrimLeft(l[end:], "'’s,:"))
			if after != "" && negativeAfterFirst[after[0]] {
				for _, p := range negativeAfter {
					if strings.HasPrefix(after, p) {
						return name + " " + p
					}
				}
			}
			off = end
		}
	}
	return ""
}

// DecodeSentiment reads a stored answer's sentiment; nil when not judged.
func DecodeSentiment(raw *string) map[string]Sentiment {
	if raw == nil {
		return nil
	}
	var m map[string]Sentiment
	if json.Unmarshal([]byte(*raw), &m) != nil {
		return nil
	}
	return m
}

// negativeLastList is negativeLast's words, for comparing without case.
var negativeLastList = func() []string {
	var out []string
	for _, pw := range negativeBeforeWords {
		if w := pw[len(pw)-1]; !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}()

// endsPhraseFold is endsPhrase with the words compared in lower case.
func (w words) endsPhraseFold() bool {
	for skip := 0; skip <= 1 && skip < w.n; skip++ {
		word := w.last[(w.n-1-skip)%len(w.last)]
		for _, l := range negativeLastList {
			if foldEqualASCII(word, l) {
				return true
			}
		}
	}
	return false
}

// endsWithFold is endsWith with the words compared in lower case.
func (w words) endsWithFold(n int, pw []string) bool {
	for k, p := range pw {
		if !foldEqualASCII(w.last[(n-len(pw)+k)%len(w.last)], p) {
			return false
		}
	}
	return true
}

// aliasInFold is aliasIn over a sentence as written for ASCII aliases and
// domains, compared case-insensitively.
func aliasInFold(s string, aliases, domains []string) ([2]int, bool) {
	var f folder
	for _, list := range [2][]string{aliases, domains} {
		for _, a := range list {
			f.reset(s, a)
			for {
				start := f.next()
				if start < 0 {
					break
				}
				if wordBoundedFold(s, start, start+len(a)) {
					return [2]int{start, start + len(a)}, true
				}
			}
		}
	}
	return [2]int{}, false
}

// hasPrefixFoldASCII is strings.HasPrefix(lower(s), p) for p in ASCII
// lower case, s in a text whose lower case keeps its offsets.
func hasPrefixFoldASCII(s, p string) bool {
	return len(s) >= len(p) && foldEqualASCII(s[:len(p)], p)
}

// negativeCueFold is negativeCue over sentences as written, for a brand
// whose aliases and domains are ASCII, in a text whose lower case keeps
// its offsets: every comparison is made in ASCII lower case, which is what
// the lowered text would give.
func negativeCueFold(sents, aliases, domains []string, name string) string {
	for _, l := range sents {
		for off := 0; off < len(l); {
			pos, ok := aliasInFold(l[off:], aliases, domains)
			if !ok {
				break
			}
			start, end := off+pos[0], off+pos[1]
			if cue := phraseFoldAt(l, start, end, name); cue != "" {
				return cue
			}
			off = end
		}
	}
	return ""
}

// phraseFoldAt is negativeCueFold's test of one name, at start..end of
// sentence l: a phrase of negativeBefore ending right before it, or one
// of negativeAfter starting right after it.
func phraseFoldAt(l string, start, end int, name string) string {
	from := max(0, start-beforeWindow)
	if before := lastWordsBack(l[from:start], from > 0); before.endsPhraseFold() {
		for i, pw := range negativeBeforeWords {
			for skip := 0; skip <= 1; skip++ {
				if n := before.n - skip; n >= len(pw) && before.endsWithFold(n, pw) {
					return negativeBefore[i] + " " + name
				}
			}
		}
	}
	after := strings.TrimSpace(strings.TrimLeft(l[end:], "'’sS,:"))
	if after != "" && negativeAfterFirst[lowerASCII(after[0])] {
		for _, p := range negativeAfter {
			if hasPrefixFoldASCII(after, p) {
				return name + " " + p
			}
		}
	}
	return ""
}

// lastWordsBack is lastWords(s, dropFirst) read from the end of s: only
// the last len(words{}.last) words are kept, so it stops after one more
// (which tells whether the first word, the one dropped, is among them).
// With that many words or more, n is len(words{}.last): every use of n
// (a phrase of at most len(last)-1 words, one skipped word) reads the
// same words and compares the same way as with the whole count.
// asciiSpace is unicode.IsSpace for the ASCII bytes.
var asciiSpace = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = unicode.IsSpace(rune(c))
	}
	return t
}()

func lastWordsBack(s string, dropFirst bool) words {
	const keep = len(words{}.last)
	var found [keep + 1]string // the last words, the last first
	k := 0
	i := len(s)
	for k < len(found) {
		for i > 0 {
			if c := s[i-1]; c < utf8.RuneSelf {
				if !asciiSpace[c] {
					break
				}
				i--
				continue
			}
			r, size := utf8.DecodeLastRuneInString(s[:i])
			if !unicode.IsSpace(r) {
				break
			}
			i -= size
		}
		if i == 0 {
			break
		}
		end := i
		for i > 0 {
			if c := s[i-1]; c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				i--
				continue
			}
			r, size := utf8.DecodeLastRuneInString(s[:i])
			if unicode.IsSpace(r) {
				break
			}
			i -= size
		}
		found[k] = s[i:end]
		k++
	}
	if dropFirst && k > 0 && k <= keep {
		k-- // every word was read: the earliest is the first, dropped
	}
	// With keep+1 words read, dropping the first leaves keep or more.
	var w words
	w.n = min(k, keep)
	for j := range w.n {
		w.last[j] = found[w.n-1-j]
	}
	return w
}

// CueIndex finds the ASCII aliases and domains of every brand of a report
// (those of brands whose needles are all ASCII and not empty) in one pass
// over an answer, instead of one search of the answer per needle of each
// brand the answer names. Its rule is the cue pass's own (plain lower
// case on word boundaries, URLs included), not the mention pass's (prose
// without URLs, folded diacritics, names spelt in pieces), so it is not
// driven by the mention pass's occurrences: neither rule's finds hold the
// other's. Build it once per brand list; it is safe for concurrent use.
type CueIndex struct {
	brands []Brand
	// folded says brand i is read from the index (asciiNeedles).
	folded []bool
	// first lists, per first byte (either case), the needles starting
	// so; starts says the list is not empty.
	first   [256][]int32
	starts  [256]bool
	needles []cueNeedle
	// own is brand i's needles, needles[own[i][0]:own[i][1]], in the
	// order aliasInFold tries them; wordFirst says each starts with a
	// letter or digit (so no name can start where the last one ended).
	own       [][2]int32
	wordFirst []bool
}

type cueNeedle struct {
	text  string // lower case
	brand int32
}

// cueHit is a needle of brand found on word boundaries inside sentence
// span of a CueText.
type cueHit struct {
	brand, span, start, needle int32
}

// NewCueIndex prepares the needles of brands.
func NewCueIndex(brands []Brand) *CueIndex {
	x := &CueIndex{brands: brands, folded: make([]bool, len(brands)), own: make([][2]int32, len(brands)), wordFirst: make([]bool, len(brands))}
	for bi, b := range brands {
		if !asciiNeedles(b) {
			continue
		}
		x.folded[bi], x.wordFirst[bi] = true, true
		x.own[bi][0] = int32(len(x.needles))
		var mine []string
		for _, list := range [2][]string{b.Aliases, b.Domains} {
			for _, nd := range list {
				l := strings.ToLower(nd)
				if slices.Contains(mine, l) {
					continue // the same needle in another case finds nothing new
				}
				mine = append(mine, l)
				x.wordFirst[bi] = x.wordFirst[bi] && asciiWord[l[0]]
				id := int32(len(x.needles))
				x.first[l[0]] = append(x.first[l[0]], id)
				x.starts[l[0]] = true
				if u := l[0] - ('a' - 'A'); l[0] >= 'a' && l[0] <= 'z' {
					x.first[u] = append(x.first[u], id)
					x.starts[u] = true
				}
				x.needles = append(x.needles, cueNeedle{text: l, brand: int32(bi)})
			}
		}
		x.own[bi][1] = int32(len(x.needles))
	}
	return x
}

// Text splits text for the cue pass, as NewCueText, and finds every
// indexed needle in it (when its lower case keeps its offsets).
func (x *CueIndex) Text(text string) *CueText {
	c := new(CueText)
	x.Reset(c, text)
	return c
}

// Reset makes c what x.Text(text) gives, reusing c's buffers, so a pass
// over many answers needs no CueText of its own per answer. The
// BrandCues c gave before are no longer valid (their sentence lists
// share c's buffer).
func (x *CueIndex) Reset(c *CueText, text string) {
	spans, hits := c.spans[:0], c.hits[:0]
	*c = CueText{index: x}
	c.split(text, spans)
	if !c.sameLength {
		return
	}
	if cap(hits) <= len(c.hitBuf) {
		hits = c.hitBuf[:0]
	}
	c.hits = hits
	k := 0
	for i, next := 0, 0; i < len(text); i = next {
		b := text[i]
		if next = i + 1; b < utf8.RuneSelf && asciiWord[b] {
			// A word: no needle starts inside it, so the pass steps
			// over the rest of it.
			for next < len(text) && text[next] < utf8.RuneSelf && asciiWord[text[next]] {
				next++
			}
			if !x.starts[b] {
				continue
			}
		} else if !x.starts[b] || i > 0 && text[i-1] < utf8.RuneSelf && asciiWord[text[i-1]] {
			continue // no needle starts so, or not at a word boundary
		}
		ids := x.first[b]
		for k < len(c.spans) && int(c.spans[k][1]) <= i {
			k++
		}
		if k == len(c.spans) {
			break
		}
		if int(c.spans[k][0]) > i {
			continue
		}
		for _, id := range ids {
			nd := x.needles[id]
			end := i + len(nd.text)
			if end <= int(c.spans[k][1]) && foldEqualASCII(text[i:end], nd.text) && wordBoundedFold(text, i, end) {
				c.hits = append(c.hits, cueHit{brand: nd.brand, span: int32(k), start: int32(i), needle: id})
			}
		}
	}
}

// BrandAt is Brand for brand i of the index the text was made with
// (CueIndex.Text), from the needles found in the one pass.
func (c *CueText) BrandAt(i int) BrandCue {
	b := c.index.brands[i]
	if !c.sameLength || !c.index.folded[i] {
		return c.Brand(b)
	}
	k, last := 0, int32(-1)
	for _, h := range c.hits {
		if int(h.brand) == i && h.span != last {
			k++
			last = h.span
		}
	}
	bc := BrandCue{name: b.Name}
	if k == 0 {
		return bc
	}
	bc.fold, bc.aliases, bc.domains = true, b.Aliases, b.Domains
	if c.index.wordFirst[i] {
		bc.hits, bc.brand = c, int32(i)
	}
	if u := int(c.used); k <= len(c.sents)-u {
		bc.Sentences = c.sents[u : u : u+k] // capped: an append copies
		c.used += int32(k)
	} else {
		bc.Sentences = make([]string, 0, k)
	}
	last = -1
	for _, h := range c.hits {
		if int(h.brand) == i && h.span != last {
			last = h.span
			sp := c.spans[h.span]
			bc.Sentences = append(bc.Sentences, c.text[sp[0]:sp[1]])
		}
	}
	return bc
}

// negativeHits is negativeCueFold over brand bi's sentences, its names
// read from the hits instead of searched again: in each sentence, from
// the start, the first of the brand's needles (in aliasInFold's order)
// found at or after off, its first occurrence there, then off moves past
// it. A hit is bounded in the text; it is in its sentence too, since a
// sentence's edges are boundaries, and, from off, the same, since a
// needle starting with a letter or digit cannot start at off (the last
// name's end is bounded).
func (c *CueText) negativeHits(bi int, name string) string {
	x, hits := c.index, c.hits
	lo, hi := x.own[bi][0], x.own[bi][1]
	for j := 0; j < len(hits); {
		if int(hits[j].brand) != bi {
			j++
			continue
		}
		k := hits[j].span
		e := j
		for e < len(hits) && hits[e].span == k {
			e++
		}
		s0, s1 := c.spans[k][0], c.spans[k][1]
		l := c.text[s0:s1]
		off := s0
		for {
			best := -1
			for n := lo; n < hi && best < 0; n++ {
				for h := j; h < e; h++ {
					if hits[h].needle == n && hits[h].start >= off {
						best = h
						break
					}
				}
			}
			if best < 0 {
				break
			}
			start := hits[best].start
			end := start + int32(len(x.needles[hits[best].needle].text))
			if cue := phraseFoldAt(l, int(start-s0), int(end-s0), name); cue != "" {
				return cue
			}
			off = end
		}
		j = e
	}
	return ""
}
