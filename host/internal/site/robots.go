package site

import (
	"bufio"
	"bytes"
	"strings"
)

// AICrawlers are the AI crawlers whose robots.txt rules a site's clarity
// check looks at.
var AICrawlers = []string{"GPTBot", "ClaudeBot", "PerplexityBot", "Google-Extended"}

// Robots is a parsed robots.txt (RFC 9309): groups of rules per user
// agent, and the Sitemap lines.
type Robots struct {
	groups   []robotsGroup
	Sitemaps []string
}

type robotsGroup struct {
	agents []string // lowercased product tokens
	rules  []robotsRule
}

type robotsRule struct {
	allow   bool
	pattern string
}

// ParseRobots parses a robots.txt body. Unknown lines are ignored, as the
// RFC asks.
func ParseRobots(body []byte) *Robots {
	r := &Robots{}
	var cur *robotsGroup
	inAgents := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		switch key {
		case "user-agent":
			if !inAgents || cur == nil {
				r.groups = append(r.groups, robotsGroup{})
				cur = &r.groups[len(r.groups)-1]
			}
			cur.agents = append(cur.agents, strings.ToLower(val))
			inAgents = true
		case "allow", "disallow":
			inAgents = false
			if cur == nil {
				continue
			}
			if key == "disallow" && val == "" {
				continue // "Disallow:" with no path allows everything
			}
			cur.rules = append(cur.rules, robotsRule{allow: key == "allow", pattern: val})
		case "sitemap":
			if val != "" {
				r.Sitemaps = append(r.Sitemaps, val)
			}
		default:
			// crawl-delay and others end the user-agent run too.
			inAgents = false
		}
	}
	return r
}

// rulesFor returns the rules of the groups naming agent, else those of "*".
func (r *Robots) rulesFor(agent string) []robotsRule {
	if r == nil {
		return nil
	}
	agent = strings.ToLower(agent)
	var named, star []robotsRule
	found := false
	for _, g := range r.groups {
		for _, a := range g.agents {
			switch a {
			case agent:
				named, found = append(named, g.rules...), true
			case "*":
				star = append(star, g.rules...)
			}
		}
	}
	if found {
		return named
	}
	return star
}

// Allowed reports whether agent may fetch path: the longest matching rule
// wins, allow wins a tie, and no matching rule allows.
func (r *Robots) Allowed(agent, path string) bool {
	best, allowed := -1, true
	for _, rule := range r.rulesFor(agent) {
		if !matchRobots(rule.pattern, path) {
			continue
		}
		n := len(rule.pattern)
		if n > best || (n == best && rule.allow) {
			best, allowed = n, rule.allow
		}
	}
	return allowed
}

// Blocks reports whether robots.txt keeps agent away from the site, i.e.
// from its home page "/".
func (r *Robots) Blocks(agent string) bool { return !r.Allowed(agent, "/") }

// matchRobots matches a robots pattern with * and a final $ against path.
func matchRobots(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	rest := path[len(parts[0]):]
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last && anchored {
			return strings.HasSuffix(rest, p)
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return !anchored || rest == "" || (len(parts) > 1 && parts[len(parts)-1] == "")
}
