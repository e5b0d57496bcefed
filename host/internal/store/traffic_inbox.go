package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
)

// TrafficInbox is the SQLite beacon inbox: a file of its own beside
// herald.db (traffic-inbox.db) holding accepted beacons, one row per group
// of them, until the traffic writer has folded them into the store. An
// append is one small transaction on a file no other write waits on; the
// fold into events, sessions and rollups happens behind it, in larger
// transactions on herald.db that record how far they got
// (TrafficBatch.Mark), so a restart replays exactly the groups, and the
// events within a group, that were not applied.
//
// The inbox has the same durability as herald.db: WAL with
// synchronous=NORMAL, so an append survives a crash of the process (a
// SIGKILL); only an OS crash or power loss can lose the last ones.
type TrafficInbox struct {
	db   *sql.DB
	id   string
	ins  *sql.Stmt
	next int64 // seq of the next group; only the appender uses it
}

// TrafficInboxGroup is one appended group: its seq and its payload.
type TrafficInboxGroup struct {
	Seq     int64
	Payload []byte
}

// TrafficInboxPos is how far an inbox has been applied: every group before
// Seq, and the first Done events of group Seq.
type TrafficInboxPos struct {
	Seq  int64
	Done int
}

// TrafficInboxMark, set on a TrafficBatch, records in the batch's own
// transaction that the inbox InboxID has been applied up to Pos.
type TrafficInboxMark struct {
	InboxID string
	Pos     TrafficInboxPos
}

// ErrNoInbox is returned by OpenTrafficInbox on PostgreSQL/CockroachDB,
// where beacons are committed to the shared database directly: a file on
// one host's disk would make accepted beacons depend on that host.
var ErrNoInbox = errors.New("the beacon inbox exists only on SQLite")

// inboxPosScale packs a TrafficInboxPos into one BIGINT: groups hold fewer
// events than this.
const inboxPosScale = 1 << 20

func (p TrafficInboxPos) packed() int64 { return p.Seq*inboxPosScale + int64(p.Done) }

func unpackInboxPos(v int64) TrafficInboxPos {
	return TrafficInboxPos{Seq: v / inboxPosScale, Done: int(v % inboxPosScale)}
}

// MaxInboxGroup is the most events one inbox group may hold.
const MaxInboxGroup = inboxPosScale - 1

// OpenTrafficInbox opens (creating if needed) the beacon inbox beside the
// SQLite database.
func (s *Store) OpenTrafficInbox(ctx context.Context) (*TrafficInbox, error) {
	sb, ok := s.b.(*sqliteBackend)
	if !ok {
		return nil, ErrNoInbox
	}
	path := filepath.Join(filepath.Dir(sb.path), "traffic-inbox.db")
	if err := ensurePrivateFile(path); err != nil {
		return nil, err
	}
	// Exclusive locking: one process owns the inbox (its seq counter and
	// its view of the sessions are in memory), and a second serve on the
	// same data dir fails to start instead of interleaving with it. It
	// also spares WAL's shared-memory index.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=locking_mode(EXCLUSIVE)&_pragma=busy_timeout(2000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open beacon inbox %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	in := &TrafficInbox{db: db}
	if err := in.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open beacon inbox %s (is another herald serve using this data dir?): %w", path, err)
	}
	// Applied groups are trimmed, so the file alone may not know how far
	// seq went: never hand out a seq the store has marked applied.
	applied, err := s.TrafficInboxApplied(ctx, in.id)
	if err != nil {
		in.Close()
		return nil, err
	}
	in.next = max(in.next, applied.Seq)
	return in, nil
}

func (in *TrafficInbox) init(ctx context.Context) error {
	if _, err := in.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS inbox_meta (id TEXT NOT NULL);
		CREATE TABLE IF NOT EXISTS beacon_groups (seq INTEGER PRIMARY KEY, payload BLOB NOT NULL)`); err != nil {
		return err
	}
	err := in.db.QueryRowContext(ctx, `SELECT id FROM inbox_meta`).Scan(&in.id)
	if errors.Is(err, sql.ErrNoRows) {
		in.id = NewID()
		_, err = in.db.ExecContext(ctx, `INSERT INTO inbox_meta (id) VALUES (?)`, in.id)
	}
	if err != nil {
		return err
	}
	var last sql.NullInt64
	if err := in.db.QueryRowContext(ctx, `SELECT max(seq) FROM beacon_groups`).Scan(&last); err != nil {
		return err
	}
	in.next = last.Int64 + 1
	in.ins, err = in.db.PrepareContext(ctx, `INSERT INTO beacon_groups (seq, payload) VALUES (?, ?)`)
	return err
}

// ID identifies this inbox file in the store's marks.
func (in *TrafficInbox) ID() string { return in.id }

// Append stores one group and returns its seq once it is committed. Only
// one goroutine may append.
func (in *TrafficInbox) Append(ctx context.Context, payload []byte) (int64, error) {
	seq := in.next
	if _, err := in.ins.ExecContext(ctx, seq, payload); err != nil {
		return 0, fmt.Errorf("append to the beacon inbox: %w", err)
	}
	in.next++
	return seq, nil
}

// Pending returns how far the store has applied this inbox and the groups
// from there on, in order: what a restart replays.
func (in *TrafficInbox) Pending(ctx context.Context, s *Store) (TrafficInboxPos, []TrafficInboxGroup, error) {
	pos, err := s.TrafficInboxApplied(ctx, in.id)
	if err != nil {
		return pos, nil, err
	}
	groups, err := in.since(ctx, pos.Seq)
	return pos, groups, err
}

// since returns the groups from seq on, in order.
func (in *TrafficInbox) since(ctx context.Context, seq int64) ([]TrafficInboxGroup, error) {
	rows, err := in.db.QueryContext(ctx, `SELECT seq, payload FROM beacon_groups WHERE seq >= ? ORDER BY seq`, seq)
	if err != nil {
		return nil, fmt.Errorf("read the beacon inbox: %w", err)
	}
	defer rows.Close()
	var out []TrafficInboxGroup
	for rows.Next() {
		var g TrafficInboxGroup
		if err := rows.Scan(&g.Seq, &g.Payload); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// Trim deletes the groups before seq, which the store has applied.
func (in *TrafficInbox) Trim(ctx context.Context, seq int64) error {
	if _, err := in.db.ExecContext(ctx, `DELETE FROM beacon_groups WHERE seq < ?`, seq); err != nil {
		return fmt.Errorf("trim the beacon inbox: %w", err)
	}
	return nil
}

// Close closes the inbox file.
func (in *TrafficInbox) Close() error {
	in.ins.Close()
	return in.db.Close()
}

// TrafficInboxApplied returns how far the inbox id has been applied; the
// zero position for an inbox never applied.
func (s *Store) TrafficInboxApplied(ctx context.Context, id string) (TrafficInboxPos, error) {
	var v int64
	err := s.queryRow(ctx, `SELECT pos FROM traffic_inbox_marks WHERE inbox_id = $1`, id).Scan(&v)
	if errors.Is(err, ErrNotFound) {
		return TrafficInboxPos{}, nil
	}
	if err != nil {
		return TrafficInboxPos{}, fmt.Errorf("read beacon inbox mark: %w", err)
	}
	return unpackInboxPos(v), nil
}

// MarkTrafficInbox records that the inbox has been applied up to m.Pos, on
// its own: for the events the writer gave up on.
func (s *Store) MarkTrafficInbox(ctx context.Context, m TrafficInboxMark) error {
	return s.Tx(ctx, func(q Querier) error { return writeInboxMark(ctx, q, m) })
}

func writeInboxMark(ctx context.Context, q Querier, m TrafficInboxMark) error {
	if _, err := q.Exec(ctx, `INSERT INTO traffic_inbox_marks (inbox_id, pos) VALUES ($1, $2)
		ON CONFLICT (inbox_id) DO UPDATE SET pos = excluded.pos`, m.InboxID, m.Pos.packed()); err != nil {
		return fmt.Errorf("write beacon inbox mark: %w", err)
	}
	return nil
}

// TrafficSessions reads the stored sessions the events refer to, outside
// any transaction: the beacon inbox's view of sessions it has not seen
// since they were applied.
func (s *Store) TrafficSessions(ctx context.Context, events []TrafficEvent) (map[TrafficSessionKey]*TrafficSession, error) {
	return s.loadSessions(ctx, s.b, events)
}

// TrafficSessionKeys calls fn with the key of every stored session and
// returns how many there were: the beacon inbox's filter of sessions that
// may be stored.
func (s *Store) TrafficSessionKeys(ctx context.Context, fn func(TrafficSessionKey)) (int64, error) {
	rows, err := s.query(ctx, `SELECT site_id, session_id FROM traffic_sessions`)
	if err != nil {
		return 0, fmt.Errorf("list traffic sessions: %w", err)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var k TrafficSessionKey
		if err := rows.Scan(&k.SiteID, &k.SessionID); err != nil {
			return n, err
		}
		fn(k)
		n++
	}
	return n, rows.Err()
}

// TrafficSessionCount is how many sessions are stored.
func (s *Store) TrafficSessionCount(ctx context.Context) (int64, error) {
	var n int64
	if err := s.queryRow(ctx, `SELECT count(*) FROM traffic_sessions`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count traffic sessions: %w", err)
	}
	return n, nil
}
