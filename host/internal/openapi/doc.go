// Package openapi serves Herald's OpenAPI 3.1 document and a page that
// renders it. The document is generated, never edited: ./gen writes
// openapi.json from the REST route table (api.Routes) and the proto
// descriptors, `make generate` runs it and `make check-generated` fails when
// the committed file is stale. The page is Redoc's standalone bundle (npm
// redoc@2.5.2, MIT, see redoc.standalone.js.LICENSE.txt), vendored so that
// nothing is fetched from a CDN at run time.
//
// The OpenAPI 3.1 document of every REST route (`openapi.json`, embedded),
// written by `make generate` from `api.Routes()` (the route table: method,
// path, statuses, auth policy, proto request and response) and the proto
// descriptors with their comments, and served at `GET /v1/openapi.json` with
// a Redoc page at `/docs` (vendored bundle, strict CSP). Invariant: never
// edited by hand; `make check-generated` fails when it is stale, and
// `integration/openapi_test.go` validates real requests and responses
// against it.
package openapi
