// Package logship ships a web server's access log to Herald: it follows
// the file across rotation, cuts the new lines into batches by count,
// size and age, posts each batch to POST /v1/ai-traffic/logs, retries with
// backoff (honouring Retry-After), and remembers how far it got so that a
// restart sends nothing twice.
package logship

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Position is where shipping stands in a log file: the file's identity
// (device and inode, which survive a rename) and the byte offset after the
// last line handed out.
type Position struct {
	Device uint64 `json:"device"`
	Inode  uint64 `json:"inode"`
	Offset int64  `json:"offset"`
}

func identity(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// Tailer reads complete lines from a log file and follows it the way
// `tail -F` does: when the path is renamed away and created again
// (logrotate's default, nginx's USR1 reopen) it finishes the old file
// first, then moves to the new one from its start; when the file shrinks
// below what was read (logrotate's copytruncate) it starts again at 0.
// A line is handed out only once its newline is written.
type Tailer struct {
	path string
	f    *os.File
	pos  Position
	buf  []byte // read but not yet handed out (a partial line at most, between calls)
	// readAt is the offset in f of the end of buf.
	readAt int64
}

// Open starts following path. With a saved position for the same file it
// resumes there; when the saved file was rotated away to path+".1" it
// finishes that first. Without a saved position it starts at the end of
// the file, or at its start when fromStart is set. A missing file is not
// an error: the tailer waits for it to appear.
func Open(path string, saved *Position, fromStart bool) (*Tailer, error) {
	t := &Tailer{path: path}
	if saved != nil {
		for _, p := range []string{path, path + ".1"} {
			f, fi, err := openStat(p)
			if err != nil {
				continue
			}
			if dev, ino := identity(fi); dev == saved.Device && ino == saved.Inode {
				off := saved.Offset
				if fi.Size() < off {
					off = 0
				}
				return t, t.use(f, fi, off)
			}
			f.Close()
		}
		// The saved file is gone: everything in the current one is new.
		fromStart = true
	}
	f, fi, err := openStat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	off := fi.Size()
	if fromStart {
		off = 0
	}
	return t, t.use(f, fi, off)
}

func openStat(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func (t *Tailer) use(f *os.File, fi fs.FileInfo, off int64) error {
	if t.f != nil && t.f != f {
		t.f.Close()
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	dev, ino := identity(fi)
	t.f, t.pos, t.buf, t.readAt = f, Position{Device: dev, Inode: ino, Offset: off}, t.buf[:0], off
	return nil
}

// Position is the position after the last line Next handed out.
func (t *Tailer) Position() Position { return t.pos }

// Close closes the open file.
func (t *Tailer) Close() error {
	if t.f == nil {
		return nil
	}
	return t.f.Close()
}

const chunk = 64 << 10

// Next returns up to max complete lines (without their newlines) of at
// most maxBytes in all (one longer line still goes alone), and whether the
// tailer is at the end of what is written so far. It checks for rotation
// and truncation at the end of the file.
func (t *Tailer) Next(max, maxBytes int) (lines []string, atEnd bool, err error) {
	if t.f == nil {
		f, fi, err := openStat(t.path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, true, nil
		}
		if err != nil {
			return nil, true, err
		}
		if err := t.use(f, fi, 0); err != nil {
			return nil, true, err
		}
	}
	size := 0
	for len(lines) < max {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			n, err := t.fill()
			if err != nil {
				return lines, true, err
			}
			if n > 0 {
				continue
			}
			moved, err := t.atEOF()
			if err != nil || !moved {
				return lines, true, err
			}
			continue
		}
		if len(lines) > 0 && size+i > maxBytes {
			return lines, false, nil
		}
		line := string(bytes.TrimSuffix(t.buf[:i], []byte{'\r'}))
		t.buf = t.buf[i+1:]
		t.pos.Offset += int64(i + 1)
		size += i + 1
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines, false, nil
}

// fill reads the next chunk of the open file into buf.
func (t *Tailer) fill() (int, error) {
	if len(t.buf) > 0 && cap(t.buf)-len(t.buf) < chunk {
		nb := make([]byte, len(t.buf), len(t.buf)+chunk)
		copy(nb, t.buf)
		t.buf = nb
	} else if len(t.buf) == 0 && cap(t.buf) < chunk {
		t.buf = make([]byte, 0, chunk)
	}
	n, err := t.f.Read(t.buf[len(t.buf):cap(t.buf)])
	t.buf = t.buf[:len(t.buf)+n]
	t.readAt += int64(n)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// atEOF handles the end of the open file: when the path now names another
// file, the old one is finished (a last line without a newline is dropped
// with it, nginx never writes one) and the new one opened from its start;
// when the file shrank below what was read, reading starts again at 0. It
// reports whether reading can go on.
func (t *Tailer) atEOF() (bool, error) {
	cur, err := t.f.Stat()
	if err != nil {
		return false, err
	}
	if cur.Size() < t.readAt {
		return true, t.use(t.f, cur, 0)
	}
	f, fi, err := openStat(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // renamed away, not yet created again
	}
	if err != nil {
		return false, err
	}
	if os.SameFile(cur, fi) {
		f.Close()
		return false, nil
	}
	// Rotated: drain what was written to the old file after the last read.
	if n, err := t.fill(); err != nil || n > 0 {
		f.Close()
		return err == nil, err
	}
	return true, t.use(f, fi, 0)
}
