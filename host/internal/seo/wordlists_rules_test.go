package seo

import (
	"strings"
	"testing"
)

// Connectives the transition lists must know, one sentence each, and
// sentences that must not count.
func TestTransitionWordsOfTheLists(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang, sentence string
		want           bool
	}{
		{"de", "Nehmen Sie eine Jacke mit, denn das Wetter wechselt schnell.", true},
		{"de", "Sie lernen Ihr Fahrrad dabei besser kennen.", true},
		{"de", "Kurz darauf kam der Zug.", true},
		{"de", "Und bald wählen Sie längere Touren.", true},
		{"de", "Neue Geräte haben dagegen mehr Updates.", true},
		{"de", "Dafür reichen einfache Laptops völlig aus.", true},
		{"de", "Das Rad steht im Keller.", false},
		{"en", "Herbs want even more sun.", true},
		{"en", "What is more, the soil stays warm.", true},
		{"en", "Herbs want more sun.", false},
	} {
		ws := words(c.sentence)
		if got := languages[c.lang].hasTransition(ws); got != c.want {
			t.Errorf("%s %q: transition %v, want %v", c.lang, c.sentence, got, c.want)
		}
	}
}

// Spanish periphrasis auxiliaries are function words: the keyphrase
// "empezar a correr" is about "correr", and a title that opens "Cómo
// empezar un huerto urbano" opens with the keyphrase "huerto urbano".
func TestSpanishPeriphrasisAuxiliaries(t *testing.T) {
	t.Parallel()
	a := analyze(mustParse(t, "Correr es sano."), "", "es")
	if k := a.keyphrase("empezar a correr"); strings.Join(k.content, " ") != "correr" {
		t.Errorf("content words of \"empezar a correr\": %q, want [correr]", k.content)
	}
	if k := a.keyphrase("puede llover"); strings.Join(k.content, " ") != "llover" {
		t.Errorf("content words of \"puede llover\": %q, want [llover]", k.content)
	}
	in := Input{Content: "Un huerto urbano da tomates. " + strings.Repeat("El balcón tiene sol. ", 5), Title: "Cómo empezar un huerto urbano en el balcón",
		Keywords: []string{"huerto urbano"}, Language: "es"}
	if got := idOf(t, in, "keyphrase-in-title"); got.Rating != Good {
		t.Errorf("title opening \"Cómo empezar un huerto urbano\": %s %q, want good", got.Rating, got.Text)
	}
}

func mustParse(t *testing.T, content string) *document {
	t.Helper()
	d, err := parse(content)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
