package logship

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// state is the file that remembers how far shipping got.
type state struct {
	File     string   `json:"file"`
	Position Position `json:"position"`
}

// LoadState reads the position saved for file in path; a missing state
// file (a first start) or one saved for another log file is nil.
func LoadState(path, file string) (*Position, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s state
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("state file %s: %v", path, err)
	}
	if s.File != file {
		return nil, nil
	}
	return &s.Position, nil
}

// SaveState writes the position atomically (a new file renamed over the
// old one), so a crash leaves the previous position or the new one.
func SaveState(path, file string, p Position) error {
	b, err := json.Marshal(state{File: file, Position: p})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".herald-ship-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
