package plans_test

import (
	"reflect"
	"sync"
	"testing"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/plans"
)

func TestNewDefaultsAndSetReplaces(t *testing.T) {
	tab := plans.New(nil)
	def := config.DefaultPlans()
	if got, ok := tab.Get("pro"); !ok || !reflect.DeepEqual(got, def["pro"]) {
		t.Fatalf("New(nil) pro = %+v, %v; want the default %+v", got, ok, def["pro"])
	}
	in := map[string]config.Plan{"pro": {PromptsPerReport: 3}}
	tab.Set(in)
	in["pro"] = config.Plan{PromptsPerReport: 99} // the table holds a copy
	if got, ok := tab.Get("pro"); !ok || got.PromptsPerReport != 3 {
		t.Fatalf("after Set pro = %+v, %v; want PromptsPerReport 3", got, ok)
	}
	if _, ok := tab.Get("business"); ok {
		t.Fatal("Set replaces the whole table: business should be unknown")
	}
	tab.Set(map[string]config.Plan{})
	if got, ok := tab.Get("business"); !ok || !reflect.DeepEqual(got, def["business"]) {
		t.Fatalf("Set(empty) business = %+v, %v; want the default", got, ok)
	}
}

func TestConcurrentGetSet(t *testing.T) {
	tab := plans.New(nil)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range 200 {
				tab.Set(map[string]config.Plan{"free": {PromptsPerReport: i*1000 + j}})
			}
		}()
		go func() {
			defer wg.Done()
			for range 200 {
				tab.Get("free")
			}
		}()
	}
	wg.Wait()
}

// A stored version carries every plan setting: a host reading it applies
// the trackers and tracker cadences the config set, not zero.
func TestSnapshotRoundTripKeepsEveryPlanSetting(t *testing.T) {
	cfg := config.Default()
	for name, p := range config.DefaultPlans() {
		cfg.Plans[name] = p
	}
	biz := cfg.Plans["business"]
	biz.Trackers, biz.TrackerCadences = 77, []string{"weekly"}
	cfg.Plans["business"] = biz
	body, _ := plans.Encode(plans.FromConfig(cfg, "test"))
	got, err := plans.Decode(1, body, "test")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range cfg.Plans {
		if !reflect.DeepEqual(got.Plans[name], want) {
			t.Errorf("plan %s after a round trip = %+v, want %+v", name, got.Plans[name], want)
		}
	}
}
