package traffic_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// With log_ip_storage "hashed" a crawler hit's IP is stored as the
// documented hash (SHA-256 of the site id, "|" and the IP; hex of its first
// 16 bytes): never the address, the same for the same IP on the site, and
// verification still used the full address.
func TestHashedIPsAreStoredAsTheDocumentedHash(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "hashed")
		var siteID string
		storetest.QueryRow(context.Background(), st, `SELECT id FROM traffic_sites WHERE site_key = $1`, b.siteKey()).Scan(&siteID)
		lines := clf("20.171.207.130", "/a", gptbotUA) + "\n" + clf("20.171.207.130", "/b", gptbotUA) + "\n" + clf("198.51.100.7", "/c", gptbotUA)
		b.post(t, "", "text/plain", b.secret, []byte(lines), false).Want(t, http.StatusOK)
		hits, err := st.CrawlerHits(context.Background(), siteID, 0, 1<<40, 10)
		if err != nil || len(hits) != 3 {
			t.Fatalf("hits %v %v", hits, err)
		}
		hash := func(ip string) string {
			sum := sha256.Sum256([]byte(siteID + "|" + ip))
			return hex.EncodeToString(sum[:16])
		}
		byPath := map[string]store.CrawlerHitRow{}
		for _, h := range hits {
			byPath[h.Path] = h
		}
		if a := byPath["/a"]; a.IP != hash("20.171.207.130") || !a.Verified || byPath["/b"].IP != a.IP {
			t.Errorf("/a stored %q (verified %v), /b %q; want %q twice, verified", a.IP, a.Verified, byPath["/b"].IP, hash("20.171.207.130"))
		}
		if c := byPath["/c"]; c.IP != hash("198.51.100.7") || c.Verified || c.IP == byPath["/a"].IP {
			t.Errorf("/c stored %q (verified %v), want %q, claimed", c.IP, c.Verified, hash("198.51.100.7"))
		}
	})
}
