package analysis

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The cue pass's text: an answer split into sentences once (CueText), and
// the sentences that name each brand (BrandCue).

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
	ascii      bool // every byte of the text
	small      [6][2]int32
	// sents holds the brands' sentences (brandFolded) while it has room,
	// so a brand's list is not an allocation of its own.
	sents [4]string
	// index, hits: the needles an index found (CueIndex.Text), in the
	// order of their starts.
	index  *CueIndex
	hits   []cueHit
	hitBuf [4]cueHit
	// unread: Reset has not split the text nor found the needles yet
	// (read does); calm: the text holds no negative phrase
	// (negativeSpots), so no brand has a cue; spots are where one may
	// start, and anywhere says one may be anywhere; phrased are the
	// sentences holding a spot (made by NegativeAt when first needed).
	unread, calm, anywhere bool
	spots                  []int32
	phrased                [][2]int32
	phrasedMade            bool
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
	c.ascii = ascii
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
		for i < len(text) && stopClass[text[i]] == 0 {
			i++ // the bytes that are neither a stop nor outside ASCII, in a loop of their own
		}
		if i == len(text) {
			break
		}
		switch stopClass[text[i]] {
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
		if c := text[start]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			start++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	for start < end {
		if c := text[end-1]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			end--
			continue
		}
		r, size := utf8.DecodeLastRuneInString(text[start:end])
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
			i = asciiRun(text, i+1)
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 || !lowerKeepsLength(r, size) {
			return false
		}
		i += size
	}
	return true
}

// lowerKeepsLength says unicode.ToLower(r), r size bytes long, is size
// bytes long too. The punctuation answers are written with (dashes,
// quotes, the ellipsis: U+2000 to U+206F) has no case, so it is not
// looked up.
func lowerKeepsLength(r rune, size int) bool {
	return r >= 0x2000 && r <= 0x206f || utf8.RuneLen(unicode.ToLower(r)) == size
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
	if isASCII(text) {
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
	if c.unread {
		c.read()
	}
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
	k := countTrue(hit)
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
			if s == "" || !isASCII(s) {
				return false
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
	k := countTrue(hit)
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

// countTrue is how many of hit are true: the sentences naming a brand.
func countTrue(hit []bool) int {
	k := 0
	for _, ok := range hit {
		if ok {
			k++
		}
	}
	return k
}
