package scoring

import (
	"fmt"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// BenchmarkDiscover: 25 prompts × 8 engines × 3 samples, each answer
// naming ten brands of which the judge lists all (three tracked).
func BenchmarkDiscover(b *testing.B) {
	brands := analysis.Brands(analysis.SelfBrand("Acme", "acme.com"), []string{"Globex Corp", "Initech (initech.io)", "Umbrella", "Hooli"})
	var answers []analysis.Answer
	engines := []string{"e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"}
	for _, e := range engines {
		for p := range 25 {
			for s := range 3 {
				text := fmt.Sprintf("For question %d: Zoho CRM, Acme, Pipedrive, Brand%d, Globex Corp, Close, Freshsales, Initech, Copper and Nimble.", p, p%7)
				var named []analysis.NamedBrand
				for _, n := range []string{"Zoho CRM", "Acme", "Pipedrive", fmt.Sprintf("Brand%d", p%7), "Globex Corp", "Close", "Freshsales", "Initech", "Copper", "Nimble"} {
					named = append(named, analysis.NamedBrand{Name: n})
				}
				answers = append(answers, analysis.Answer{Engine: e, Prompt: fmt.Sprint(p), Text: text, Sample: s, Discovered: named, DiscoveryJudged: true})
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		f := discover(brands, engines, answers)
		if len(f.brands) < 8 {
			b.Fatalf("%d discovered", len(f.brands))
		}
	}
}
