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
	t := []jobs.Route{
		// voice: website and file voices created in a job, and their refreshes.
		{Queue: jobs.ContentQueue, Name: voice.JobCreate, Handler: jobs.HandlerFunc(a.voices.RunCreate), Options: voice.SourceJobOptions},
		{Queue: jobs.ContentQueue, Name: voice.JobRefresh, Handler: jobs.HandlerFunc(a.voices.RunRefresh), Options: voice.SourceJobOptions},
		// content: improvements and blog posts, on contentQueue.
		{Queue: jobs.ContentQueue, Name: content.JobImproveSimple, Handler: jobs.HandlerFunc(a.content.RunImproveSimple), Options: content.ImproveJobOptions},
		{Queue: jobs.ContentQueue, Name: content.JobImproveValidated, Handler: jobs.HandlerFunc(a.content.RunImproveValidated), Options: content.ImproveJobOptions},
		{Queue: jobs.ContentQueue, Name: content.JobBlogPost, Handler: jobs.HandlerFunc(a.content.RunBlogPost), Options: content.BlogJobOptions},
		// schedule: the publisher publishes one due post a job.
		{Queue: jobs.ContentQueue, Name: schedule.JobPublish, Handler: a.publisher, Options: a.publisher.JobOptions()},
		// visibility: a report (crawl, engines, judge, scores).
		{Queue: jobs.SEOQueue, Name: visibility.JobReport, Handler: jobs.HandlerFunc(a.visibility.RunReport), Options: visibility.ReportJobOptions},
	}
	// generate: the text jobs by name, and the aiQueue fallback (no name):
	// every aiQueue job without a handler of its own is a text job named by
	// the client's jobType.
	for _, name := range generate.TextJobTypes {
		t = append(t, jobs.Route{Queue: jobs.AIQueue, Name: name, Handler: jobs.HandlerFunc(a.generate.RunText), Options: generate.TextJobOptions})
	}
	t = append(t, jobs.Route{Queue: jobs.AIQueue, Handler: jobs.HandlerFunc(a.generate.RunText), Options: generate.TextJobOptions})
	return t
}
