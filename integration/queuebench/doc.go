// Package queuebench compares Herald's job queue with River under steady
// load; see bench_test.go.
package queuebench
