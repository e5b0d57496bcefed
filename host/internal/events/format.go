package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/sdk"
)

// sender builds and POSTs one delivery.
type sender struct {
	client  *http.Client
	baseURL string
	now     func() time.Time
}

// message is what one attempt sends.
type message struct {
	// ID is the webhook-id (the delivery's id, the same on every attempt).
	ID, Type, Data, Link string
	At                   time.Time
	Format               string
	URL                  string
	// Secrets sign the standard format: the current one, then the
	// previous one while a rotation overlaps.
	Secrets []string
}

// attempt is the receiver's answer.
type attempt struct {
	Code       int // 0: not reached
	Err        string
	RetryAfter time.Duration
}

func (a attempt) ok() bool { return a.Code/100 == 2 }

func (s *sender) link(path string) string {
	if path == "" || s.baseURL == "" || !strings.HasPrefix(path, "/") {
		return path
	}
	return s.baseURL + path
}

// standardBody is the Standard Webhooks payload: type, timestamp, data,
// plus the dashboard link of the resource.
type standardBody struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
	Link      string          `json:"link"`
}

// Slack's incoming-webhook message: text (the notification's fallback)
// and blocks (https://api.slack.com/reference/block-kit/blocks).
type slackBody struct {
	Text   string       `json:"text"`
	Blocks []slackBlock `json:"blocks"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (s *sender) body(m message) ([]byte, error) {
	link := s.link(m.Link)
	if m.Format == FormatSlack {
		summary := Summary(m.Type, m.Data)
		text := summary
		if link != "" {
			text += " <" + link + "|Open in Herald>"
		}
		return json.Marshal(slackBody{Text: summary, Blocks: []slackBlock{
			{Type: "section", Text: &slackText{Type: "mrkdwn", Text: slackEscape(text)}},
			{Type: "context", Elements: []slackText{{Type: "mrkdwn", Text: slackEscape(m.Type + " · " + m.At.UTC().Format(time.RFC1123))}}},
		}})
	}
	data := json.RawMessage(m.Data)
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	return json.Marshal(standardBody{Type: m.Type, Timestamp: m.At.UTC(), Data: data, Link: link})
}

// slackEscape escapes what Slack's mrkdwn treats as control characters
// (&, < and >), keeping the one <url|text> link this package writes.
func slackEscape(s string) string {
	link := ""
	if i := strings.LastIndex(s, " <http"); i >= 0 && strings.HasSuffix(s, "|Open in Herald>") {
		s, link = s[:i], s[i:]
	}
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
	return s + link
}

// send POSTs m once.
func (s *sender) send(ctx context.Context, m message) attempt {
	body, err := s.body(m)
	if err != nil {
		return attempt{Err: "encode the payload: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(body))
	if err != nil {
		return attempt{Err: "the subscription's url is not valid"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Herald-Events/1")
	if m.Format == FormatStandard {
		ts := s.now().Unix()
		var sigs []string
		for _, secret := range m.Secrets {
			sig, err := sdk.SignWebhook(secret, m.ID, ts, body)
			if err != nil {
				return attempt{Err: "sign: " + err.Error()}
			}
			sigs = append(sigs, sig)
		}
		req.Header.Set("webhook-id", m.ID)
		req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
		req.Header.Set("webhook-signature", strings.Join(sigs, " "))
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return attempt{Err: sdk.RequestError("event subscription", err).Error()}
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	a := attempt{Code: resp.StatusCode}
	if !a.ok() {
		a.Err = fmt.Sprintf("the receiver answered %d", resp.StatusCode)
		if t := strings.TrimSpace(string(msg)); t != "" {
			a.Err += ": " + t
		}
		a.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), s.now())
	}
	return a
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v = strings.TrimSpace(v); v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Summary is an event's one-line human message (Slack's text, the
// dashboard's and the agent's list).
func Summary(typ, data string) string {
	var d map[string]any
	_ = json.Unmarshal([]byte(data), &d)
	str := func(k string) string { v, _ := d[k].(string); return v }
	num := func(k string) string {
		if v, ok := d[k].(float64); ok {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return "?"
	}
	switch typ {
	case catalog.ReportCompleted:
		return fmt.Sprintf("Visibility report for %s completed: AI visibility %s.", str("websiteUrl"), num("aiVisibility"))
	case catalog.ReportFailed:
		return fmt.Sprintf("Visibility report for %s failed: %s", str("websiteUrl"), str("error"))
	case catalog.TrackerRunCompleted:
		return fmt.Sprintf("Tracker %s ran: AI visibility %s (change %s).", str("trackerId"), num("aiVisibility"), num("change"))
	case catalog.TrackerChanged:
		return fmt.Sprintf("Tracker %s changed significantly: AI visibility %s (change %s).", str("trackerId"), num("aiVisibility"), num("change"))
	case catalog.SchedulePublished:
		return fmt.Sprintf("Post %s published to %s.", str("scheduleId"), str("destination"))
	case catalog.ScheduleFailed:
		retry := "it will not be retried"
		if d["willRetry"] == true {
			retry = "Herald will retry"
		}
		return fmt.Sprintf("Post %s to %s failed (%s): %s", str("scheduleId"), str("destination"), retry, str("error"))
	case catalog.ConnectionFailed:
		return fmt.Sprintf("The connection to %s failed: %s", str("destination"), str("message"))
	case catalog.ConnectionExpiring:
		return fmt.Sprintf("The connection to %s expires soon.", str("destination"))
	case catalog.CreditsLow:
		return fmt.Sprintf("AI credits are running low: %s of %s used in %s.", num("used"), num("limit"), str("month"))
	case catalog.CreditsExhausted:
		return fmt.Sprintf("AI credits are used up: %s of %s in %s.", num("used"), num("limit"), str("month"))
	case catalog.CrawlerFirstSeen:
		return fmt.Sprintf("%s visited your site for the first time.", str("crawler"))
	case catalog.Test:
		return "Test event from Herald: this subscription works."
	}
	return typ
}
