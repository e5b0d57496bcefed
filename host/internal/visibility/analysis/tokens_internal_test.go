package analysis

import (
	"fmt"
	"strings"
	"testing"
)

// renderTokens shows each token with ^ when it starts a sentence and
// the byte where its sentence starts.
func renderTokens(prose string) string {
	var t tokens
	t.reset(prose)
	var out []string
	for _, tok := range t.list {
		mark := ""
		if tok.initial {
			mark = "^"
		}
		out = append(out, fmt.Sprintf("%s%s@%d", mark, prose[tok.start:tok.end], tok.sentence))
	}
	return strings.Join(out, " ")
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
		k := -1
		for i, tok := range tk.list {
			if tc.in[tok.start:tok.end] == tc.word {
				k = i
				break
			}
		}
		if got := tk.sentenceOf(k); got != tc.want {
			t.Errorf("%.40q:\n got %.80q (%d bytes)\nwant %.80q (%d bytes)", tc.in, got, len(got), tc.want, len(tc.want))
		}
	}
}
