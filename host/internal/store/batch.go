package store

import (
	"context"
	"strconv"
	"strings"
	"sync"
)

// Multi-row statements, IN lists and bind parameters, dialect-aware: the
// one kit every store query that varies its number of parameters uses.
//
// Batched writers (traffic, the job queue) build statements whose number
// of rows varies with the batch. Each helper here rounds the rows to a
// power of two, so a handful of statement texts per table serve every batch
// size and stay prepared (a new text per batch size would be parsed again
// on every batch), and keeps each statement under the placeholder limits of
// both dialects.

// maxBatchParams caps the bind parameters of one statement (SQLite's
// historical limit is 999).
const maxBatchParams = 900

// insertRows runs prefix with multi-row VALUES and suffix for n rows, in
// statements of a power-of-two number of rows. row appends the values of
// row i.
func insertRows(ctx context.Context, q Querier, d Dialect, prefix string, cols, n int, row func(args []any, i int) []any, suffix string) error {
	_, err := valuesRows(ctx, q, d, prefix, make([]string, cols), n, row, suffix)
	return err
}

// valuesRows is insertRows with the SQL type of each column: a non-empty
// type writes the column's parameter as CAST(? AS type), which PostgreSQL
// needs where nothing else types it (a VALUES list that an UPDATE joins),
// and a type made by sqlLiteral writes its SQL in every row instead of a
// parameter (row appends no value for it). It returns the number of rows
// the statements affected.
func valuesRows(ctx context.Context, q Querier, d Dialect, prefix string, types []string, n int, row func(args []any, i int) []any, suffix string) (int64, error) {
	cols := 0 // parameters per row
	for _, typ := range types {
		if !isSQLLiteral(typ) {
			cols++
		}
	}
	shape := strings.Join(types, ",")
	maxRows := chunkRows(maxBatchParams/cols, maxBatchParams/cols)
	args := make([]any, 0, min(n, maxRows)*cols)
	var affected int64
	for start := 0; start < n; {
		rows := chunkRows(n-start, maxRows)
		args = args[:0]
		for i := start; i < start+rows; i++ {
			args = row(args, i)
		}
		c, err := q.Exec(ctx, multiRowSQL(d, prefix, suffix, shape, types, rows), args...)
		if err != nil {
			return affected, err
		}
		affected += c
		start += rows
	}
	return affected, nil
}

// inList calls fn for each chunk of keys (at most maxKeys each) with the
// text of an IN list of bind parameters numbered from first and the keys
// as arguments appended to lead. The list is padded to a power of two with
// the chunk's last key, which changes no IN result, so a few statement
// texts serve every number of keys.
func inList(d Dialect, lead []any, keys []string, maxKeys int, fn func(list string, args []any) error) error {
	first := len(lead) + 1
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), maxKeys)]
		keys = keys[len(chunk):]
		n := 1
		for n < len(chunk) {
			n *= 2
		}
		args := make([]any, 0, len(lead)+n)
		args = append(args, lead...)
		for _, k := range chunk {
			args = append(args, k)
		}
		for range n - len(chunk) {
			args = append(args, args[len(args)-1]) // the last key, boxed once
		}
		var b strings.Builder
		writePlaceholders(&b, d, first, n)
		if err := fn(b.String(), args); err != nil {
			return err
		}
	}
	return nil
}

type multiRowKey struct {
	d                     Dialect
	prefix, suffix, shape string
	rows                  int
}

// multiRowTexts caches the statement texts of valuesRows: a handful per
// table, rebuilt on every batch otherwise.
var multiRowTexts sync.Map // multiRowKey → string

// multiRowSQL returns prefix, rows groups of one parameter per column of
// types (shape is types joined, for the cache key), and suffix.
func multiRowSQL(d Dialect, prefix, suffix, shape string, types []string, rows int) string {
	k := multiRowKey{d, prefix, suffix, shape, rows}
	if v, ok := multiRowTexts.Load(k); ok {
		return v.(string)
	}
	var b strings.Builder
	b.WriteString(prefix)
	n := 0 // parameters written
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c, typ := range types {
			if c > 0 {
				b.WriteByte(',')
			}
			switch {
			case isSQLLiteral(typ):
				b.WriteString(typ[len(literalMark):])
				continue
			case typ == "":
				n++
				b.WriteString(placeholder(d, n))
			default:
				n++
				b.WriteString("CAST(" + placeholder(d, n) + " AS " + typ + ")")
			}
		}
		b.WriteByte(')')
	}
	b.WriteString(suffix)
	v, _ := multiRowTexts.LoadOrStore(k, b.String())
	return v.(string)
}

// literalMark starts a column "type" of valuesRows that is SQL text to
// write in place of the column's parameter; no SQL type starts with it.
const literalMark = "\x00literal:"

// sqlLiteral returns the valuesRows column type that writes sql (a
// constant such as 'pageview', 0 or FALSE, never a value from a request)
// in every row instead of binding a parameter. A batch writer uses it for
// the columns that every row of a statement shares: each bound parameter
// costs the SQLite driver a conversion and, for text, a C allocation and
// copy, so a constant column is cheaper written once in a prepared text.
func sqlLiteral(sql string) string { return literalMark + sql }

func isSQLLiteral(typ string) bool { return strings.HasPrefix(typ, literalMark) }

// chunkRows returns the largest power of two that is at most n and maxRows
// (n, maxRows >= 1).
func chunkRows(n, maxRows int) int {
	c := 1
	for c*2 <= n && c*2 <= maxRows {
		c *= 2
	}
	return c
}

// placeholder returns bind parameter i (from 1) of a statement whose
// parameters are all written in order with placeholder or
// writePlaceholders.
//
// On SQLite it is an anonymous "?": binding a numbered "$N" makes the
// modernc driver look up the parameter's name in a list that is linear in
// the number of parameters, so binding a multi-row INSERT of 900
// parameters was quadratic and took a third of the traffic writer's time.
// PostgreSQL needs "$N".
func placeholder(d Dialect, i int) string {
	if d == SQLite {
		return "?"
	}
	return "$" + strconv.Itoa(i)
}

// writePlaceholders writes n comma-separated bind parameters numbered from
// first.
func writePlaceholders(b *strings.Builder, d Dialect, first, n int) {
	for c := 0; c < n; c++ {
		if c > 0 {
			b.WriteByte(',')
		}
		if d == SQLite {
			b.WriteByte('?')
			continue
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(first + c))
	}
}

// param returns bind parameter i (from 1) as "$i" on both dialects, for
// a statement that uses a parameter more than once or whose other
// parameters are written "$N": SQLite binds those by number. (Binding by
// number costs SQLite time linear in the parameters, which matters only in
// statements of hundreds of them; those are written with placeholder.)
func param(i int) string {
	return "$" + strconv.Itoa(i)
}

// lastArg boxes one column's bind arguments row after row, handing back
// the previous row's boxed value when the next row repeats it. Converting
// a non-empty string or an integer outside 0..255 to an interface
// allocates, and a batch's rows repeat most of their columns (site, day,
// source, title, user agent), so a batch writer that binds thousands of
// arguments allocates a fraction as often. The zero value is ready.
type lastArg struct {
	s string
	n int64
	v any
}

// str returns s as an argument.
func (c *lastArg) str(s string) any {
	if c.v == nil || c.s != s {
		c.s, c.v = s, s
	}
	return c.v
}

// int returns n as an argument.
func (c *lastArg) int(n int64) any {
	if c.v == nil || c.n != n {
		c.n, c.v = n, n
	}
	return c.v
}

// InsertRows, ValuesRows, InList, Placeholder and Param are the batch kit
// for the area packages under store (see insertRows and its neighbours).
func InsertRows(ctx context.Context, q Querier, d Dialect, prefix string, cols, n int, row func(args []any, i int) []any, suffix string) error {
	return insertRows(ctx, q, d, prefix, cols, n, row, suffix)
}

// ValuesRows is valuesRows for the area packages.
func ValuesRows(ctx context.Context, q Querier, d Dialect, prefix string, types []string, n int, row func(args []any, i int) []any, suffix string) (int64, error) {
	return valuesRows(ctx, q, d, prefix, types, n, row, suffix)
}

// InList is inList for the area packages.
func InList(d Dialect, lead []any, keys []string, maxKeys int, fn func(list string, args []any) error) error {
	return inList(d, lead, keys, maxKeys, fn)
}

// Placeholder is placeholder for the area packages.
func Placeholder(d Dialect, i int) string { return placeholder(d, i) }

// Param is param for the area packages.
func Param(i int) string { return param(i) }
