package main

import (
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/voice"
)

// jobAreas are the area services whose methods run queued jobs.
type jobAreas struct {
	voices     *voice.Service
	generate   *generate.Service
	content    *content.Service
	visibility *visibility.Service
	publisher  *schedule.Publisher
}

// jobTable lists every job this host runs, beside the route table
// (host/internal/api/routes.go): the queue it is enqueued on, its name,
// the area method that runs it and how (attempts, timeout). A reader finds
// any job's implementation by following the handler into its area.
func jobTable(a jobAreas) []jobs.Route {
	return []jobs.Route{
		// visibility: a report (crawl, engines, judge, scores).
		{Queue: jobs.SEOQueue, Name: visibility.JobName, Handler: jobs.HandlerFunc(a.visibility.RunReport), Options: visibility.ReportJobOptions},
	}
}
