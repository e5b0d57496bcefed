package main

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/content"
)

// The agent lists blog posts by their job name without importing content:
// the two names must stay one.
func TestTheAgentKnowsTheBlogJobByName(t *testing.T) {
	t.Parallel()
	if agent.JobBlogPost != content.JobBlogPost {
		t.Fatalf("agent.JobBlogPost = %q, content.JobBlogPost = %q", agent.JobBlogPost, content.JobBlogPost)
	}
}
