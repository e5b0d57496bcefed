// Package generate runs text and image generation through the models the
// operator routes to provider plugins: text inline or as an aiQueue job that
// clients poll, images stored in the blob store at a durable URL and paid
// for with the workspace's monthly AI credits. It implements
// herald.api.v1.GenerateService.
//
// Text generation (inline, or an `aiQueue` job named by the client's
// `jobType`: `RunText`, mounted by the job table for `TextJobTypes` and as
// the aiQueue fallback) and image generation (purpose presets, bytes checked
// to be an image, stored in the blob store, one AI credit reserved with the
// credits kit before the provider call and refunded on any failure).
// `generate.New(Deps)`: models, store, queue (its `Queue` interface) and
// quota are required; optionally blobs, brand voices (`Voice` is generate's
// own type), the fine-tuned resolver and the secrets redacted from logged
// provider errors. `TextInput.validate`/`ImageInput.validate` hold the
// request checks; `GenerateInline` is the route's inline run, recorded for
// feedback. It talks to providers only through the plugin manager's model
// router.
package generate
