package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recordQuerier records the statements run through it and answers Exec
// with one affected row per row of the statement (or err from the failAt-th
// Exec on, counting from 1).
type recordQuerier struct {
	execs  []recordedExec
	failAt int
	err    error
}

type recordedExec struct {
	sql  string
	args []any
}

func (q *recordQuerier) Exec(_ context.Context, sql string, args ...any) (int64, error) {
	q.execs = append(q.execs, recordedExec{sql, append([]any(nil), args...)})
	if q.failAt > 0 && len(q.execs) >= q.failAt {
		return 0, q.err
	}
	return int64(strings.Count(sql, "(")), nil
}

func (q *recordQuerier) Query(context.Context, string, ...any) (Rows, error) {
	return nil, errors.New("recordQuerier: Query")
}

func (q *recordQuerier) QueryRow(context.Context, string, ...any) Row {
	panic("recordQuerier: QueryRow")
}

func TestChunkRowsIsTheLargestPowerOfTwoWithinBothLimits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, maxRows, want int }{
		{1, 1, 1}, {1, 64, 1}, {2, 64, 2}, {3, 64, 2}, {4, 64, 4}, {7, 64, 4}, {8, 64, 8},
		{100, 64, 64}, {64, 64, 64}, {65, 64, 64}, {127, 128, 64}, {128, 128, 128},
		{100, 100, 64}, {1000, 100, 64}, {5, 3, 2}, {5, 4, 4}, {4, 5, 4},
	} {
		if got := chunkRows(c.n, c.maxRows); got != c.want {
			t.Errorf("chunkRows(%d, %d) = %d, want %d", c.n, c.maxRows, got, c.want)
		}
	}
}

func TestMultiRowSQLNumbersEveryParameterOnPostgres(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d     Dialect
		types []string
		rows  int
		want  string
	}{
		{Postgres, []string{"", ""}, 1, "INSERT INTO t VALUES ($1,$2) ON X"},
		{Postgres, []string{"", ""}, 3, "INSERT INTO t VALUES ($1,$2),($3,$4),($5,$6) ON X"},
		{Postgres, []string{"", "BIGINT", ""}, 2, "INSERT INTO t VALUES ($1,CAST($2 AS BIGINT),$3),($4,CAST($5 AS BIGINT),$6) ON X"},
		{Postgres, []string{"TEXT"}, 3, "INSERT INTO t VALUES (CAST($1 AS TEXT)),(CAST($2 AS TEXT)),(CAST($3 AS TEXT)) ON X"},
		{SQLite, []string{"", ""}, 2, "INSERT INTO t VALUES (?,?),(?,?) ON X"},
		{SQLite, []string{"", "BIGINT"}, 2, "INSERT INTO t VALUES (?,CAST(? AS BIGINT)),(?,CAST(? AS BIGINT)) ON X"},
		// Literal columns take no parameter: the numbers skip them.
		{Postgres, []string{"", sqlLiteral("'x'"), "", sqlLiteral("-1")}, 2, "INSERT INTO t VALUES ($1,'x',$2,-1),($3,'x',$4,-1) ON X"},
		{SQLite, []string{sqlLiteral("FALSE"), "", "BIGINT"}, 2, "INSERT INTO t VALUES (FALSE,?,CAST(? AS BIGINT)),(FALSE,?,CAST(? AS BIGINT)) ON X"},
	} {
		got := multiRowSQL(c.d, "INSERT INTO t VALUES ", " ON X", strings.Join(c.types, ","), c.types, c.rows)
		if got != c.want {
			t.Errorf("multiRowSQL(%s, %q, %d) =\n %s\nwant\n %s", c.d, c.types, c.rows, got, c.want)
		}
	}
}

// TestValuesRowsSplitsBatchesIntoPowerOfTwoStatements checks every
// statement valuesRows runs: a power-of-two number of rows, no more than
// maxBatchParams parameters, the rows in order and each exactly once, and
// the affected count summed.
func TestValuesRowsSplitsBatchesIntoPowerOfTwoStatements(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cols, n int
		rows    []int // rows of each statement, in order
	}{
		{3, 0, nil},
		{3, 1, []int{1}},
		{3, 2, []int{2}},
		{3, 3, []int{2, 1}},
		{3, 7, []int{4, 2, 1}},
		{3, 8, []int{8}},
		{3, 9, []int{8, 1}},
		{3, 300, []int{256, 32, 8, 4}},
		{3, 600, []int{256, 256, 64, 16, 8}},
		{9, 100, []int{64, 32, 4}},      // 900/9 = 100 rows fit, 64 is the power of two below
		{9, 130, []int{64, 64, 2}},      // never a statement of more than 64 rows
		{14, 200, []int{64, 64, 64, 8}}, // 900/14 = 64
		{17, 53, []int{32, 16, 4, 1}},   // 900/17 = 52
		{450, 3, []int{2, 1}},
		{900, 3, []int{1, 1, 1}},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.n, c.cols), func(t *testing.T) {
			for _, d := range []Dialect{SQLite, Postgres} {
				q := &recordQuerier{}
				types := make([]string, c.cols)
				var called []int
				affected, err := valuesRows(context.Background(), q, d, "INSERT INTO t VALUES ", types, c.n, func(args []any, i int) []any {
					if i < 0 || i >= c.n {
						t.Fatalf("row %d of %d", i, c.n)
					}
					called = append(called, i)
					for col := 0; col < c.cols; col++ {
						args = append(args, i*1000+col)
					}
					return args
				}, " ON X")
				if err != nil {
					t.Fatal(err)
				}
				if affected != int64(c.n) {
					t.Errorf("%s: %d rows affected, want %d", d, affected, c.n)
				}
				if len(q.execs) != len(c.rows) {
					t.Fatalf("%s: %d statements, want %v", d, len(q.execs), c.rows)
				}
				next := 0
				for s, e := range q.execs {
					rows := c.rows[s]
					if want := multiRowSQL(d, "INSERT INTO t VALUES ", " ON X", strings.Join(types, ","), types, rows); e.sql != want {
						t.Errorf("%s: statement %d is\n %.120s\nwant %d rows:\n %.120s", d, s, e.sql, rows, want)
					}
					if len(e.args) != rows*c.cols || len(e.args) > maxBatchParams {
						t.Fatalf("%s: statement %d has %d args, want %d rows of %d", d, s, len(e.args), rows, c.cols)
					}
					for j, a := range e.args {
						if want := (next+j/c.cols)*1000 + j%c.cols; a != want {
							t.Fatalf("%s: statement %d arg %d = %v, want %d", d, s, j, a, want)
						}
					}
					next += rows
				}
				if len(called) != c.n {
					t.Errorf("%s: row called %d times for %d rows", d, len(called), c.n)
				}
			}
		})
	}
}

// TestValuesRowsCountsOnlyBoundColumnsAgainstTheParameterLimit: literal
// columns bind nothing, so a statement holds as many rows as its bound
// columns allow.
func TestValuesRowsCountsOnlyBoundColumnsAgainstTheParameterLimit(t *testing.T) {
	t.Parallel()
	types := []string{"", sqlLiteral("''"), sqlLiteral("''"), ""} // 2 bound: 450 rows fit, 256 a statement
	q := &recordQuerier{}
	affected, err := valuesRows(context.Background(), q, SQLite, "INSERT INTO t VALUES ", types, 300, func(args []any, i int) []any {
		return append(args, i, -i)
	}, "")
	if err != nil || affected != 300 {
		t.Fatalf("affected %d, err %v", affected, err)
	}
	var rows []int
	for _, e := range q.execs {
		rows = append(rows, len(e.args)/2)
		if want := multiRowSQL(SQLite, "INSERT INTO t VALUES ", "", strings.Join(types, ","), types, len(e.args)/2); e.sql != want {
			t.Errorf("statement of %d args is\n %.80s\nwant\n %.80s", len(e.args), e.sql, want)
		}
	}
	if fmt.Sprint(rows) != "[256 32 8 4]" {
		t.Errorf("statements of %v rows, want [256 32 8 4]", rows)
	}
	if n := strings.Count(q.execs[0].sql, "?"); n != 512 {
		t.Errorf("the first statement has %d parameters, want 512", n)
	}
}

func TestValuesRowsStopsAtTheFirstFailedStatement(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	q := &recordQuerier{failAt: 2, err: boom}
	affected, err := valuesRows(context.Background(), q, Postgres, "INSERT INTO t VALUES ", []string{""}, 7, func(args []any, i int) []any {
		return append(args, i)
	}, "")
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if len(q.execs) != 2 || affected != 4 {
		t.Fatalf("%d statements, %d rows affected; want 2 statements, 4 rows (the first)", len(q.execs), affected)
	}
}

// TestInListPadsEachChunkToAPowerOfTwo checks the lists and arguments
// inList hands its callback: keys in chunks of at most maxKeys, each padded
// with its last key to a power of two, after the lead arguments, numbered
// from the first parameter after them.
func TestInListPadsEachChunkToAPowerOfTwo(t *testing.T) {
	t.Parallel()
	type call struct {
		list string
		args []any
	}
	for _, c := range []struct {
		d       Dialect
		lead    []any
		keys    []string
		maxKeys int
		want    []call
	}{
		{Postgres, nil, nil, 4, nil},
		{Postgres, nil, []string{"a"}, 4, []call{{"$1", []any{"a"}}}},
		{Postgres, []any{"site"}, []string{"a", "b"}, 4, []call{{"$2,$3", []any{"site", "a", "b"}}}},
		{Postgres, []any{"site", 7}, []string{"a", "b", "c"}, 4, []call{{"$3,$4,$5,$6", []any{"site", 7, "a", "b", "c", "c"}}}},
		{Postgres, []any{"site"}, []string{"a", "b", "c", "d", "e"}, 4, []call{
			{"$2,$3,$4,$5", []any{"site", "a", "b", "c", "d"}},
			{"$2", []any{"site", "e"}},
		}},
		{Postgres, nil, []string{"a", "b", "c", "d", "e", "f", "g"}, 3, []call{
			{"$1,$2,$3,$4", []any{"a", "b", "c", "c"}},
			{"$1,$2,$3,$4", []any{"d", "e", "f", "f"}},
			{"$1", []any{"g"}},
		}},
		{Postgres, nil, []string{"a", "b", "c", "d", "e"}, 8, []call{{"$1,$2,$3,$4,$5,$6,$7,$8", []any{"a", "b", "c", "d", "e", "e", "e", "e"}}}},
		{SQLite, []any{"site"}, []string{"a", "b", "c"}, 8, []call{{"?,?,?,?", []any{"site", "a", "b", "c", "c"}}}},
		{SQLite, nil, []string{"a"}, 8, []call{{"?", []any{"a"}}}},
	} {
		var got []call
		err := inList(c.d, c.lead, c.keys, c.maxKeys, func(list string, args []any) error {
			got = append(got, call{list, args})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("inList(%s, %v, %q, %d) called\n %v\nwant\n %v", c.d, c.lead, c.keys, c.maxKeys, got, c.want)
		}
	}
}

func TestInListStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	calls := 0
	err := inList(Postgres, nil, []string{"a", "b", "c"}, 1, func(string, []any) error {
		calls++
		return boom
	})
	if !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("err %v after %d calls, want %v after 1", err, calls, boom)
	}
}

// TestLastArgReturnsEachRowsOwnValue: lastArg may reuse a boxed value only
// for an equal one, from the first call on (zero values included).
func TestLastArgReturnsEachRowsOwnValue(t *testing.T) { // not parallel: AllocsPerRun
	var s, n lastArg
	for _, v := range []string{"", "", "a", "a", "", "b", "a"} {
		if got := s.str(v); got != any(v) {
			t.Errorf("str(%q) = %#v", v, got)
		}
	}
	for _, v := range []int64{0, 0, 300, 300, -1, 0, 300} {
		if got := n.int(v); got != any(v) {
			t.Errorf("int(%d) = %#v", v, got)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { s.str("same"); n.int(123456) }); allocs > 0 {
		t.Errorf("a repeated value allocates %.0f times", allocs)
	}
}
