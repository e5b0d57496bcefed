package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// TrafficInbox is the SQLite beacon inbox: a log of accepted beacons, one
// frame per group of them, in a directory of its own beside herald.db
// (traffic-inbox/), kept until the traffic writer has folded them into the
// store. An append is one write(2) to the end of the current segment file;
// the fold into events, sessions and rollups happens behind it, in larger
// transactions on herald.db that record how far they got
// (TrafficBatch.Mark), so a restart replays exactly the groups, and the
// events within a group, that were not applied.
//
// The log has the durability of herald.db (WAL with synchronous=NORMAL): a
// group is in the kernel once Append returns, so it survives a crash of the
// process (a SIGKILL); only an OS crash or power loss can lose the last
// ones. Each frame carries its length, its seq and a CRC-32C, so a torn or
// damaged frame ends the reading of its segment instead of being applied;
// a reopened inbox never appends after it, but starts a new segment.
type TrafficInbox struct {
	dir  string
	id   string
	lock *os.File // holds the directory's exclusive lock

	mu      sync.Mutex // guards the fields below: Append and Trim run on different goroutines
	segs    []inboxSegment
	cur     *os.File // the last segment, open for appending; nil until the first Append
	curSize int64
	next    int64 // seq of the next group
	frame   []byte
	// loaded is what the segments held at open, kept for the Pending that
	// follows so a start reads them once; the first Append or Trim drops it.
	loaded []TrafficInboxGroup
}

// inboxSegment is one file of the log, named by the seq of its first group.
type inboxSegment struct {
	first int64
	path  string
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

const (
	// inboxSegmentSize is the size past which Append starts a new segment,
	// so that applied groups can be deleted a file at a time.
	inboxSegmentSize = 4 << 20
	// inboxFrameHeader is a frame's header: the payload's length (uint32),
	// the CRC-32C of seq and payload (uint32) and the seq (int64), little
	// endian.
	inboxFrameHeader = 16
	// maxInboxPayload bounds one frame's payload; a longer length is damage.
	maxInboxPayload = 1 << 30
)

var inboxCRC = crc32.MakeTable(crc32.Castagnoli)

// OpenTrafficInbox opens (creating if needed) the beacon inbox beside the
// SQLite database. One process owns it (its seq counter and its view of
// the sessions are in memory): a second serve on the same data dir fails
// here instead of interleaving with the first.
func (s *Store) OpenTrafficInbox(ctx context.Context) (*TrafficInbox, error) {
	sb, ok := s.b.(*sqliteBackend)
	if !ok {
		return nil, ErrNoInbox
	}
	dir := filepath.Join(filepath.Dir(sb.path), "traffic-inbox")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open beacon inbox %s: %w", dir, err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open beacon inbox %s: %w", dir, err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("open beacon inbox %s (is another herald serve using this data dir?): %w", dir, err)
	}
	in := &TrafficInbox{dir: dir, lock: lock}
	if err := in.load(); err != nil {
		in.Close()
		return nil, fmt.Errorf("open beacon inbox %s: %w", dir, err)
	}
	// Applied groups are trimmed, so the files alone may not know how far
	// seq went: never hand out a seq the store has marked applied.
	applied, err := s.TrafficInboxApplied(ctx, in.id)
	if err != nil {
		in.Close()
		return nil, err
	}
	in.next = max(in.next, applied.Seq)
	return in, nil
}

// load reads the inbox's id (creating it) and every segment's groups.
func (in *TrafficInbox) load() error {
	idPath := filepath.Join(in.dir, "id")
	b, err := os.ReadFile(idPath)
	switch {
	case err == nil && len(bytes.TrimSpace(b)) > 0:
		in.id = string(bytes.TrimSpace(b))
	case err == nil || errors.Is(err, fs.ErrNotExist):
		in.id = NewID()
		if err := writeFileSynced(idPath, []byte(in.id+"\n")); err != nil {
			return err
		}
	default:
		return err
	}
	names, err := filepath.Glob(filepath.Join(in.dir, "*.log"))
	if err != nil {
		return err
	}
	for _, name := range names {
		first, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(name), ".log"), 10, 64)
		if err != nil {
			continue // not a segment
		}
		in.segs = append(in.segs, inboxSegment{first: first, path: name})
	}
	slices.SortFunc(in.segs, func(a, b inboxSegment) int { return cmp.Compare(a.first, b.first) })
	groups, err := in.read(0)
	if err != nil {
		return err
	}
	in.next = 1
	if len(groups) > 0 {
		in.next = groups[len(groups)-1].Seq + 1
	}
	in.loaded = groups
	return nil
}

// read returns the groups of every segment from seq on, in order. A seq
// that does not follow the one before it is damage: it is skipped.
func (in *TrafficInbox) read(seq int64) ([]TrafficInboxGroup, error) {
	var out []TrafficInboxGroup
	last := int64(0)
	for _, sg := range in.segs {
		groups, err := readInboxSegment(sg.path)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			if g.Seq <= last {
				continue
			}
			last = g.Seq
			if g.Seq >= seq {
				out = append(out, g)
			}
		}
	}
	return out, nil
}

// readInboxSegment returns a segment's groups up to its end or to the
// first frame that is torn or damaged.
func readInboxSegment(path string) ([]TrafficInboxGroup, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = b[:len(b):len(b)] // a frame must never reach past the file's bytes
	var out []TrafficInboxGroup
	for len(b) >= inboxFrameHeader {
		n := binary.LittleEndian.Uint32(b[0:4])
		sum := binary.LittleEndian.Uint32(b[4:8])
		if n > maxInboxPayload || uint64(len(b)-inboxFrameHeader) < uint64(n) {
			break
		}
		frame := b[8 : inboxFrameHeader+int(n)]
		if crc32.Checksum(frame, inboxCRC) != sum {
			break
		}
		out = append(out, TrafficInboxGroup{Seq: int64(binary.LittleEndian.Uint64(b[8:16])), Payload: b[inboxFrameHeader : inboxFrameHeader+int(n)]})
		b = b[inboxFrameHeader+int(n):]
	}
	return out, nil
}

// writeFileSynced writes a small file whole: a temporary file, fsynced,
// renamed over path.
func writeFileSynced(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	return err
}

// ID identifies this inbox in the store's marks.
func (in *TrafficInbox) ID() string { return in.id }

// Append stores one group and returns its seq once it is written. Only one
// goroutine may append.
func (in *TrafficInbox) Append(_ context.Context, payload []byte) (int64, error) {
	if len(payload) > maxInboxPayload {
		return 0, fmt.Errorf("append to the beacon inbox: a group of %d bytes", len(payload))
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.loaded = nil
	seq := in.next
	if in.cur == nil || in.curSize >= inboxSegmentSize {
		if err := in.startSegment(seq); err != nil {
			return 0, fmt.Errorf("append to the beacon inbox: %w", err)
		}
	}
	f := append(in.frame[:0], make([]byte, inboxFrameHeader)...)
	binary.LittleEndian.PutUint32(f[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint64(f[8:16], uint64(seq))
	f = append(f, payload...)
	binary.LittleEndian.PutUint32(f[4:8], crc32.Checksum(f[8:], inboxCRC))
	in.frame = f
	if _, err := in.cur.Write(f); err != nil {
		// A short write would leave a torn frame that ends the reading of
		// the segment: cut it off, or give up on the segment.
		if terr := in.cur.Truncate(in.curSize); terr != nil {
			in.cur.Close()
			in.cur = nil
		}
		return 0, fmt.Errorf("append to the beacon inbox: %w", err)
	}
	in.curSize += int64(len(f))
	in.next++
	return seq, nil
}

// startSegment closes the current segment and starts one whose first group
// is seq. A file of that name can hold no readable group (its first would
// be seq, and every seq read at open is below next), so it is replaced.
func (in *TrafficInbox) startSegment(seq int64) error {
	if in.cur != nil {
		in.cur.Close()
		in.cur = nil
	}
	path := filepath.Join(in.dir, fmt.Sprintf("%020d.log", seq))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if n := len(in.segs); n > 0 && in.segs[n-1].first == seq {
		in.segs = in.segs[:n-1]
	}
	in.segs = append(in.segs, inboxSegment{first: seq, path: path})
	in.cur, in.curSize = f, 0
	return nil
}

// Pending returns how far the store has applied this inbox and the groups
// from there on, in order: what a restart replays.
func (in *TrafficInbox) Pending(ctx context.Context, s *Store) (TrafficInboxPos, []TrafficInboxGroup, error) {
	pos, err := s.TrafficInboxApplied(ctx, in.id)
	if err != nil {
		return pos, nil, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.loaded != nil {
		i, _ := slices.BinarySearchFunc(in.loaded, pos.Seq, func(g TrafficInboxGroup, seq int64) int { return cmp.Compare(g.Seq, seq) })
		return pos, in.loaded[i:], nil
	}
	groups, err := in.read(pos.Seq)
	if err != nil {
		return pos, nil, fmt.Errorf("read the beacon inbox: %w", err)
	}
	return pos, groups, nil
}

// Trim deletes the segments whose groups are all before seq, which the
// store has applied; the current segment too once every group is.
func (in *TrafficInbox) Trim(_ context.Context, seq int64) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.loaded = nil
	keep := 0
	for i, sg := range in.segs {
		last := i == len(in.segs)-1
		done := (!last && in.segs[i+1].first <= seq) || (last && in.next <= seq)
		if !done {
			break
		}
		if last && in.cur != nil {
			in.cur.Close()
			in.cur = nil
		}
		if err := os.Remove(sg.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			in.segs = in.segs[i:]
			return fmt.Errorf("trim the beacon inbox: %w", err)
		}
		keep = i + 1
	}
	in.segs = in.segs[keep:]
	return nil
}

// Close closes the inbox and releases its lock.
func (in *TrafficInbox) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	var err error
	if in.cur != nil {
		err = in.cur.Close()
		in.cur = nil
	}
	if in.lock != nil {
		in.lock.Close() // releases the flock
		in.lock = nil
	}
	return err
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
