package content

import "testing"

func TestInsertImages(t *testing.T) {
	t.Parallel()
	img := func(pos, alt string) PlacedImage { return PlacedImage{URL: "u/" + alt, Alt: alt, Position: pos} }
	cases := []struct {
		name, content string
		imgs          []PlacedImage
		want          string
	}{
		{"hero without a title heading goes first", "Intro.\n\n## A\n\ntext", []PlacedImage{img("hero", "h")},
			"![h](u/h)\n\nIntro.\n\n## A\n\ntext"},
		{"setext headings count; fenced code does not", "Title\n=====\n\n```\n# not a heading\n```\n\nSection\n-------\ntext",
			[]PlacedImage{img("hero", "h"), img("after-heading:2", "s")},
			"Title\n=====\n\n![h](u/h)\n\n```\n# not a heading\n```\n\nSection\n-------\n\n![s](u/s)\n\ntext"},
		{"two images at one place keep their order", "# T\n\nx", []PlacedImage{img("hero", "a"), img("hero", "b")},
			"# T\n\n![a](u/a)\n\n![b](u/b)\n\nx"},
		{"alt text cannot break the markup", "x", []PlacedImage{{URL: "u/x", Alt: "a [b]\nc", Position: "hero"}}, "![a (b) c](u/x)\n\nx"},
		{"html after the heading's closing tag, escaped", `<body><p>x</p><H2>A</H2><p>y</p></body>`, []PlacedImage{img("after-heading:1", `"q"`), img("hero", "h")},
			`<body><figure><img src="u/h" alt="h"></figure><p>x</p><H2>A</H2><figure><img src="u/&#34;q&#34;" alt="&#34;q&#34;"></figure><p>y</p></body>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := insertImages(c.content, c.imgs); got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestMeaningfulRejectsTemplateEchoes(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"...": false, " … ": false, "": false, "ab": false, "A rake": true} {
		if got := meaningful(s); got != want {
			t.Errorf("meaningful(%q) = %v, want %v", s, got, want)
		}
	}
}
