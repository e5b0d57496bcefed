// Package blob stores binary objects (generated images, images attached to
// schedules) and serves them at durable public URLs. Keys are random and
// unguessable, so the URLs can be handed to destinations (a CMS fetching a
// featured image) without credentials. The default store is a directory
// under the data dir (FS), served by the host itself at /v1/blobs/{key};
// in distributed mode objects live in the SQL store (DB), so every host
// serves every object.
//
// Object store for images: `FS` under the data dir (temp file + fsync +
// rename) on the embedded default, `DB` (table `blobs`, base64 TEXT so the
// DDL stays portable) when several hosts share a database; served publicly
// at `/v1/blobs/{key}` with random 128-bit keys.
package blob
