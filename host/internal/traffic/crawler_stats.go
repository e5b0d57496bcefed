package traffic

import (
	"sort"

	"github.com/heraldhq/herald/host/internal/store"
)

// addLogCrawlers adds the crawler hits read from server logs to a report:
// verified hits count in CrawlerHits (the card, the series, the bot's
// hits) like the script's; claimed hits are shown apart and counted
// nowhere else, since anyone can send a crawler's user agent.
func addLogCrawlers(r *Report, from int64, rows []store.CrawlerDailyRow) {
	if len(rows) == 0 {
		return
	}
	byBot := map[string]int{}
	for i, c := range r.Crawlers {
		byBot[c.Bot] = i
	}
	for _, row := range rows {
		i, ok := byBot[row.Bot]
		if !ok {
			op := ""
			if c := CrawlerByToken(row.Bot); c != nil {
				op = c.Operator
			}
			r.Crawlers = append(r.Crawlers, CrawlerStats{Bot: row.Bot, Operator: op})
			i = len(r.Crawlers) - 1
			byBot[row.Bot] = i
		}
		c := &r.Crawlers[i]
		c.Hits += row.Verified
		c.Verified += row.Verified
		c.Claimed += row.Claimed
		r.Totals.CrawlerHits += row.Verified
		r.Totals.CrawlerHitsClaimed += row.Claimed
		if d := row.Day - from; d >= 0 && int(d) < len(r.Series) {
			r.Series[d].CrawlerHits += row.Verified
		}
	}
	sort.Slice(r.Crawlers, func(i, j int) bool {
		a, b := r.Crawlers[i], r.Crawlers[j]
		if a.Hits != b.Hits {
			return a.Hits > b.Hits
		}
		return a.Bot < b.Bot
	})
}
