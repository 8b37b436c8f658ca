package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/ctxql/ctxql/internal/files"
)

// StateFileName is the file beside the cache holding debug sessions and
// hack markers.
const StateFileName = ".acp.state.json"

// State is the persisted debug sessions and hack markers.
type State struct {
	NextSession int                      `json:"next_session"`
	NextHack    int                      `json:"next_hack"`
	Sessions    map[string]*DebugSession `json:"sessions"`
	Hacks       map[string]*Hack         `json:"hacks"`
}

// DebugSession is one reversible troubleshooting session.
type DebugSession struct {
	ID         string     `json:"session_id" jsonschema:"the session id"`
	Problem    string     `json:"problem" jsonschema:"the problem being debugged"`
	Hypothesis string     `json:"hypothesis,omitempty" jsonschema:"the first hypothesis"`
	Status     string     `json:"status" jsonschema:"open or resolved"` // open or resolved
	StartedAt  string     `json:"started_at" jsonschema:"when the session started (RFC 3339)"`
	Attempts   []*Attempt `json:"attempts" jsonschema:"the attempts logged"`
	Resolution string     `json:"resolution,omitempty" jsonschema:"how the problem was solved"`
	ResolvedAt string     `json:"resolved_at,omitempty" jsonschema:"when it was resolved (RFC 3339)"`
}

// Attempt is one logged attempt of a debug session.
type Attempt struct {
	ID          string   `json:"attempt_id" jsonschema:"the attempt id"`
	Description string   `json:"description" jsonschema:"what the attempt changes"`
	Files       []string `json:"files" jsonschema:"the files it touches"`
	Status      string   `json:"status" jsonschema:"pending, success, failed or reverted"` // pending, success, failed or reverted
	Success     *bool    `json:"success,omitempty" jsonschema:"whether it worked"`
	Notes       string   `json:"notes,omitempty" jsonschema:"notes on the outcome"`
	LoggedAt    string   `json:"logged_at" jsonschema:"when it was logged (RFC 3339)"`
}

// Hack is a marker on temporary or experimental code.
type Hack struct {
	ID        string `json:"id" jsonschema:"the marker id"`
	File      string `json:"file" jsonschema:"the file holding the temporary code"`
	Line      int    `json:"line,omitempty" jsonschema:"the line of the temporary code"`
	Reason    string `json:"reason" jsonschema:"why the code is there"`
	Ticket    string `json:"ticket,omitempty" jsonschema:"a ticket tracking its removal"`
	Expires   string `json:"expires,omitempty" jsonschema:"when it should be gone"`
	CreatedAt string `json:"created_at" jsonschema:"when it was marked (RFC 3339)"`
	Expired   bool   `json:"expired" jsonschema:"whether it has expired"`
}

// LoadState reads the state file; a missing file is an empty state.
func LoadState(path string) (*State, error) { return LoadStateFrom(files.New(0, ""), path) }

// LoadStateFrom reads the state file through r (a confined reader refuses a
// state file that is a link out of the project); a missing file is an empty
// state.
func LoadStateFrom(r *files.Reader, path string) (*State, error) {
	s := &State{Sessions: map[string]*DebugSession{}, Hacks: map[string]*Hack{}}
	b, err := r.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("decode state %s: %w", path, err)
	}
	if s.Sessions == nil {
		s.Sessions = map[string]*DebugSession{}
	}
	if s.Hacks == nil {
		s.Hacks = map[string]*Hack{}
	}
	return s, nil
}

// Save writes the state atomically and durably: to a temporary file in the
// same directory, synced, then renamed over path, and the directory synced.
// A link at path is replaced, never written through.
func (s *State) Save(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".acp.state.*.tmp")
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(append(b, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if werr != nil || serr != nil || cerr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write state: %w", errors.Join(werr, serr, cerr))
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write state: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// LockSuffix names the lock file beside a state file.
const LockSuffix = ".lock"

// StateFile is a state file shared by every process serving the project:
// each update holds an exclusive lock on the lock file beside it (path +
// LockSuffix) from reading the state to renaming the new one into place, so
// concurrent servers neither lose updates nor allocate an id twice.
type StateFile struct {
	path string
	r    *files.Reader
	mu   sync.Mutex
}

// NewStateFile returns the state file at path, read through r.
func NewStateFile(r *files.Reader, path string) *StateFile {
	return &StateFile{path: path, r: r}
}

// Path returns the state file's path.
func (sf *StateFile) Path() string { return sf.path }

// Update locks the state file, loads it, applies f and, when f reports a
// change, saves it before unlocking. Ids allocated by f are therefore
// unique across processes.
func (sf *StateFile) Update(f func(st *State) (changed bool, err error)) error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	unlock, err := lockFile(sf.path + LockSuffix)
	if err != nil {
		return fmt.Errorf("lock state: %w", err)
	}
	defer unlock()
	st, err := LoadStateFrom(sf.r, sf.path)
	if err != nil {
		return err
	}
	changed, err := f(st)
	if err != nil || !changed {
		return err
	}
	return st.Save(sf.path)
}

// ExpiredAt reports whether a hack's expiry (RFC 3339 time or YYYY-MM-DD
// date) is at or before now.
func (h *Hack) ExpiredAt(now time.Time) bool {
	if h.Expires == "" {
		return false
	}
	if t, err := time.Parse(time.RFC3339, h.Expires); err == nil {
		return !now.Before(t)
	}
	if t, err := time.Parse("2006-01-02", h.Expires); err == nil {
		return !now.Before(t)
	}
	return false
}

// SortedHacks returns the hacks sorted by id, each with Expired computed
// for now.
func (s *State) SortedHacks(now time.Time) []*Hack {
	out := make([]*Hack, 0, len(s.Hacks))
	for _, h := range s.Hacks {
		h.Expired = h.ExpiredAt(now)
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
