package analysis

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// wordInfo is one word of the prose as the rules read it around the
// word: its bytes, where its sentence starts, whether it is initial.
type wordInfo struct {
	start, end, sentence int
	initial              bool
}

// allWords reads every word of prose with tokens' lazy reads, as the
// matcher would if every word started an alias.
func allWords(prose string) []wordInfo {
	var t tokens
	t.reset(prose)
	var out []wordInfo
	for i := 0; i < len(prose); {
		if !t.wordRuneAt(i) {
			_, size := utf8.DecodeRuneInString(prose[i:])
			i += size
			continue
		}
		end := t.wordEnd(i)
		out = append(out, wordInfo{i, end, t.sentenceStart(i, i), t.initial(i)})
		i = end
	}
	return out
}

// renderTokens shows each token with ^ when it starts a sentence and
// the byte where its sentence starts.
func renderTokens(prose string) string {
	var out []string
	for _, w := range allWords(prose) {
		mark := ""
		if w.initial {
			mark = "^"
		}
		out = append(out, fmt.Sprintf("%s%s@%d", mark, prose[w.start:w.end], w.sentence))
	}
	return strings.Join(out, " ")
}

// The words read around each word, over fuzzed prose, are the reference
// tokeniser's tokens: the same words, sentence starts and first words.
func TestWordsReadAroundAWordAreTheReferenceTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 15))
	for range 20000 {
		prose := joinPieces(r, fuzzPieces, 40)
		var ref refTokens
		ref.reset(prose)
		got := allWords(prose)
		if len(got) != len(ref.list) {
			t.Fatalf("%q: %d words, the reference %d", prose, len(got), len(ref.list))
		}
		for k, w := range got {
			rt := ref.list[k]
			if w.start != int(rt.start) || w.end != int(rt.end) || w.sentence != int(rt.sentence) || w.initial != rt.initial {
				t.Fatalf("%q: word %d %q: %+v, the reference %+v", prose, k, prose[w.start:w.end], w, rt)
			}
			// The judge's sentence, as the reference cuts it.
			var tk tokens
			tk.reset(prose)
			if got, want := tk.sentenceOf(w.start, w.end), ref.sentenceOf(k); got != want {
				t.Fatalf("%q: sentence of word %d: %q, the reference %q", prose, k, got, want)
			}
		}
	}
}

// Sentence starts: after a line break, or after . ! ? followed by a
// space, a quote, a bold mark, a parenthesis or the end (not after vs.,
// e.g., approx.); a first word set in code, a link, a table, italics or
// bold is not sentence-initial, a bullet's is.
func TestTokensMarkTheFirstWordOfEachSentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Acme is. Globex", "^Acme@0 is@0 ^Globex@8"},
		{"Acme is\nGlobex", "^Acme@0 is@0 ^Globex@8"},
		{"Acme.Globex", "^Acme@0 Globex@0"},
		{"Acme! Globex? Initech", "^Acme@0 ^Globex@5 ^Initech@13"},
		{`Acme."Globex"`, "^Acme@0 ^Globex@5"},
		{"Acme.*Globex*", "^Acme@0 Globex@5"},
		{"(Acme.) Globex", "^Acme@0 ^Globex@6"},
		{"Acme vs. Globex", "^Acme@0 vs@0 Globex@0"},
		{"Acme e.g. Globex", "^Acme@0 e@0 g@0 Globex@0"},
		{"Acme approx. Globex", "^Acme@0 approx@0 Globex@0"},
		{"Acme etc. Globex", "^Acme@0 etc@0 ^Globex@9"},
		{"Acme foovs. Globex", "^Acme@0 foovs@0 ^Globex@11"},
		{"Acme vs! Globex", "^Acme@0 vs@0 ^Globex@8"},
		{"`Acme` x\n[Acme](y)\n| Acme |\n_Acme_", "Acme@0 x@0 Acme@9 y@9 Acme@19 Acme@28"},
		{"**Acme** x\n* Acme x\n*Acme*", "Acme@0 x@0 ^Acme@11 x@11 Acme@20"},
		{"x | y. Acme", "^x@0 y@0 ^Acme@6"},
	} {
		if got := renderTokens(tc.in); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// The judge's sentence: from the sentence start to its end (. ! ? before
// a space, a line break or the end), at most 300 bytes either side of the
// word, never splitting a character.
func TestSentenceOfIsTheSentenceAroundTheWord(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	for _, tc := range []struct {
		in, word, want string
	}{
		{"First one. Monday is great", "Monday", "Monday is great"},
		{"Monday uses acme.io daily. Next one.", "Monday", "Monday uses acme.io daily."},
		{"Monday is great.\nNext", "Monday", "Monday is great."},
		{"Monday " + strings.Repeat("a", 299) + "b tail", "Monday", "Monday " + strings.Repeat("a", 299)},
		{long + " Monday x.", "Monday", strings.Repeat("é", 149) + " Monday x."},
		{"Monday " + long, "Monday", "Monday " + strings.Repeat("é", 150)},
		{"\x80Monday x.", "Monday", "\x80Monday x."},
	} {
		var tk tokens
		tk.reset(tc.in)
		start := -1
		for _, w := range allWords(tc.in) {
			if tc.in[w.start:w.end] == tc.word {
				start = w.start
				break
			}
		}
		if got := tk.sentenceOf(start, start+len(tc.word)); got != tc.want {
			t.Errorf("%.40q:\n got %.80q (%d bytes)\nwant %.80q (%d bytes)", tc.in, got, len(got), tc.want, len(tc.want))
		}
	}
}

// singleSpaced's eight-bytes-at-a-time test must say what the byte by
// byte one says, for bytes at either edge of the range and spaces in a
// row anywhere in a word and across two.
func TestSingleSpacedIsTheByteTest(t *testing.T) {
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x20, 0x20, 0x21, 'a', 0x7e, 0x7f, 0x80, 0x81, 0xa0, 0xdf, 0xe0, 0xff}
	r := rand.New(rand.NewPCG(46, 13))
	for range 50000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = 'a'
			if r.IntN(6) == 0 {
				b[i] = edges[r.IntN(len(edges))]
			}
		}
		want := true
		for i, c := range b {
			want = want && c >= 0x20 && c < 0x80 && !(c == ' ' && i > 0 && b[i-1] == ' ')
		}
		if got := singleSpaced(string(b)); got != want {
			t.Fatalf("singleSpaced(%q) = %v", b, got)
		}
	}
}

func TestCollapseSpacesIsFieldsJoined(t *testing.T) {
	pieces := []string{"a", "Acme", " ", "  ", "\t", "\r", "\v", "\f", "\x01", "\x7f", "é", "\x85", "\u00a0", "\u2003", "\xff", ".", "x"}
	r := rand.New(rand.NewPCG(46, 14))
	for range 30000 {
		s := joinPieces(r, pieces, 30)
		if got, want := collapseSpaces(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("collapseSpaces(%q) = %q, want %q", s, got, want)
		}
	}
}

// notWord8 and asciiWordEnd must say what wordByte says, byte by byte.
func TestNotWord8IsWordByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, fill := range []byte{'a', ' ', 0x80, 0x7f, 0} {
			w := bytes.Repeat([]byte{fill}, 8)
			for k := range 8 {
				w[k] = byte(c)
				got := notWord8(binary.LittleEndian.Uint64(w))
				for j := range 8 {
					if want := !wordByte[w[j]]; (got>>(8*j+7))&1 == 1 != want || got&^0x8080808080808080 != 0 {
						t.Fatalf("notWord8(% x) = %#x: byte %d", w, got, j)
					}
				}
				w[k] = fill
			}
		}
	}
	r := rand.New(rand.NewPCG(46, 13))
	alphabet := "aZ09 .-_@[`{/:\x80\xff\x1a\x10é"
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for k := range b {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		for i := 0; i <= len(s); i++ {
			want := i
			for want < len(s) && wordByte[s[want]] {
				want++
			}
			if got := asciiWordEnd(s, i); got != want {
				t.Fatalf("asciiWordEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}
