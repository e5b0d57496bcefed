// Package content scores and improves content and prepares blog posts with
// generated images. Scoring is package seo (no model); improvement calls a
// text model through package generate, re-scores and validates the result;
// blog processing runs on contentQueue, generating images through the image
// route's path (stored in the blob store, paid with AI credits). It
// implements herald.api.v1.ContentService.
//
// `ContentService`: scoring (`score.go` over `seo`), improvement
// (`improve.go` and, with validation, `improve_validated.go`: a text model
// through `generate`, then re-scored and validated; one AI credit each,
// inline or as a contentQueue job), and blog posts (`blog.go`: a
// contentQueue job that generates images through the image route's path,
// paid with AI credits); `insert.go` places images and links into the text.
// `New(Deps)` (generator, queue, quota), `handler.go`; the jobs
// (`RunImproveSimple`, `RunImproveValidated`, `RunBlogPost`) are rows of the
// job table.
package content
