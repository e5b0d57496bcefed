package integration_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/heraldhq/herald/integration/harness"
)

// TestEveryAcceptedBeaconSurvivesAKill sends beacons from several clients,
// kills herald with SIGKILL in the middle, starts it again on the same data
// dir, and checks that every beacon answered 202 is stored exactly once:
// 202 means committed to the beacon inbox, and a start replays what the
// killed process had not folded into the tables.
func TestEveryAcceptedBeaconSurvivesAKill(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{})
	status, site := call(t, "POST", p.URL+"/v1/ai-traffic/sites", p.Key, `{"domain":"kill.example"}`)
	if status != http.StatusCreated {
		t.Fatalf("create site: %d %v", status, site)
	}
	key := site["siteKey"].(string)

	var (
		mu       sync.Mutex
		accepted []string
		wg       sync.WaitGroup
	)
	client := &http.Client{Timeout: 5 * time.Second}
	killAt := make(chan struct{})
	var once sync.Once
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				sid := fmt.Sprintf("w%d-%d", w, i)
				body := fmt.Sprintf(`{"siteKey":%q,"path":"/p%d","referrer":"https://chatgpt.com/","sessionId":%q}`, key, i%10, sid)
				req, _ := http.NewRequest("POST", p.URL+"/v1/ai-traffic/collect", strings.NewReader(body))
				req.Header.Set("Content-Type", "text/plain")
				req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36")
				res, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				res.Body.Close()
				if res.StatusCode != http.StatusAccepted {
					t.Errorf("beacon %s: status %d", sid, res.StatusCode)
					return
				}
				mu.Lock()
				accepted = append(accepted, sid)
				if len(accepted) >= 400 {
					once.Do(func() { close(killAt) })
				}
				mu.Unlock()
			}
		}()
	}
	select {
	case <-killAt:
	case <-time.After(30 * time.Second):
		t.Fatal("400 beacons were not accepted within 30 s")
	}
	p.Kill()
	wg.Wait()

	db, err := sql.Open("sqlite", "file:"+filepath.Join(p.DataDir, "herald.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stored := func() map[string]int {
		rows, err := db.QueryContext(context.Background(), `SELECT session_id FROM traffic_events WHERE kind = 'pageview'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := map[string]int{}
		for rows.Next() {
			var sid string
			if err := rows.Scan(&sid); err != nil {
				t.Fatal(err)
			}
			n[sid]++
		}
		return n
	}
	beforeReplay := len(stored())
	p.Restart() // ready once it has replayed the inbox
	after := stored()
	missing, twice := 0, 0
	for _, sid := range accepted {
		switch {
		case after[sid] == 0:
			missing++
		case after[sid] > 1:
			twice++
		}
	}
	t.Logf("accepted %d beacons before the kill; %d in the tables at the kill, %d after the restart", len(accepted), beforeReplay, len(after))
	if missing > 0 || twice > 0 {
		t.Fatalf("of %d accepted beacons, %d are missing and %d stored twice after the kill and restart", len(accepted), missing, twice)
	}
}
