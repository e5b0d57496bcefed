// Package soak is the fleet run: two herald hosts on one PostgreSQL schema
// and one Redis, a fleet of trackers due within a window against local
// engine fakes, and crawler traffic (beacons through the collect route, log
// lines through the logs route) for a duration, all on loopback. It checks
// that every run finished within its window exactly once and that no
// accepted beacon or log line was lost, measures the API's read routes, and
// writes CPU, memory, database size and connections per sample interval to
// a file. It runs only when HERALD_SOAK=1 (`make soak`); elsewhere its test
// compiles and skips. docs/SCALING.md reads its figures.
package soak
