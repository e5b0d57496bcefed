package jobstore

import (
	"fmt"
	"testing"
)

func TestJobCapsAnyAndCapExpr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		caps    JobCaps
		running bool // any(pickRunning)
		queued  bool // any(pickQueued)
		expr    string
		args    []any // of capExpr(pickQueued), after the lead argument
	}{
		{JobCaps{}, false, false, "CAST($2 AS BIGINT)", []any{unlimited}},
		{JobCaps{Default: JobCap{Queued: 3}}, false, true, "CAST($2 AS BIGINT)", []any{3}},
		{JobCaps{Default: JobCap{Running: 1, Queued: -1}}, true, false, "CAST($2 AS BIGINT)", []any{unlimited}},
		{JobCaps{ByPlan: map[string]JobCap{"pro": {Running: 2}}}, true, false,
			"CASE (SELECT plan FROM workspaces WHERE workspaces.id = ws) WHEN CAST($2 AS TEXT) THEN CAST($3 AS BIGINT) ELSE CAST($4 AS BIGINT) END",
			[]any{"pro", unlimited, unlimited}},
		{JobCaps{ByPlan: map[string]JobCap{"pro": {Queued: 50}, "free": {Queued: 1}, "team": {}}, Default: JobCap{Queued: 5}}, false, true,
			"CASE (SELECT plan FROM workspaces WHERE workspaces.id = ws) WHEN CAST($2 AS TEXT) THEN CAST($3 AS BIGINT) WHEN CAST($4 AS TEXT) THEN CAST($5 AS BIGINT) WHEN CAST($6 AS TEXT) THEN CAST($7 AS BIGINT) ELSE CAST($8 AS BIGINT) END",
			[]any{"free", 1, "pro", 50, "team", unlimited, 5}},
	} {
		if got := c.caps.any(pickRunning); got != c.running {
			t.Errorf("%+v any(running) = %v, want %v", c.caps, got, c.running)
		}
		if got := c.caps.any(pickQueued); got != c.queued {
			t.Errorf("%+v any(queued) = %v, want %v", c.caps, got, c.queued)
		}
		expr, args := c.caps.capExpr("ws", pickQueued, []any{"lead"})
		if want := append([]any{"lead"}, c.args...); expr != c.expr || fmt.Sprint(args) != fmt.Sprint(want) {
			t.Errorf("%+v capExpr =\n %s %v\nwant\n %s %v", c.caps, expr, args, c.expr, want)
		}
	}
}

func TestSortJobsOrdersByRunTimeThenID(t *testing.T) {
	t.Parallel()
	jobs := []Job{{ID: "a", RunAt: 30}, {ID: "d", RunAt: 10}, {ID: "b", RunAt: 20}, {ID: "c", RunAt: 10}, {ID: "a2", RunAt: 10}}
	sortJobs(jobs)
	var got []string
	for _, j := range jobs {
		got = append(got, fmt.Sprint(j.RunAt, j.ID))
	}
	if want := "[10a2 10c 10d 20b 30a]"; fmt.Sprint(got) != want {
		t.Errorf("sorted %v, want %s", got, want)
	}
}
