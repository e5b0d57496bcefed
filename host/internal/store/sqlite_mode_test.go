package store_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
)

// TestSQLiteDataFilesArePrivate checks that the database and its WAL are
// created 0600 even when the data dir already exists and the umask is the
// usual 022.
func TestSQLiteDataFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir() // exists before Open
	s, err := store.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"herald.db", "herald.db-wal"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if mode := fi.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %o, want 600", name, mode)
		}
	}
}
