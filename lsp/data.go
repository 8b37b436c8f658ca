package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
)

// The sample data cache. Each data file (or facts directory) is loaded
// once per version of the file, in each form a feature needs it ("pact"
// nodes, the "datalog" database pool, the JQL sample documents, ...), and
// kept while an open document uses it. Data no open document uses stays
// loaded, for a document opened again, only while all the loaded data
// weighs less than the dataCacheBytes setting (measured by file size),
// the least recently used going first, and at most for the
// dataReleaseDelay setting after its last use. The memory of released
// data is given back to the operating system at once (an idle server
// would otherwise keep it until its next collection).

// dataCache holds the loaded sample data, by path.
type dataCache struct {
	mu   sync.Mutex
	sets map[string]*dataSet
	tick int64 // use counter, for the least-recently-used order
	// timer sweeps the data sets again when the next idle one is due
	// for release; stopped ends the sweeps (the server shut down).
	timer   *time.Timer
	stopped bool
	// reclaiming is set while the memory of released data is being
	// given back; again asks for one more round (data released
	// meanwhile).
	reclaiming, again bool
}

// dataSet is one data file, loaded in one or more forms.
type dataSet struct {
	path  string
	mu    sync.Mutex // guards id and forms
	id    dataID     // the file's version the forms were loaded from
	forms map[string]*loaded
	used  int64 // dataCache.tick at the last use
	bytes int64 // the file size (a directory: its files' sizes)
	// idle is when the set was last used while no open document used
	// it: zero while one does (guarded by dataCache.mu).
	idle time.Time
}

// loaded is one form of a data set, loaded or being loaded.
type loaded struct {
	done    chan struct{}      // closed when the load finished or was abandoned
	cancel  context.CancelFunc // stops the load
	waiters int                // requests waiting for the load, guarded by dataSet.mu
	ok      bool               // the load finished: val and err are its result
	val     any
	err     error
}

// dataID identifies a version of a data file: its path, size and
// modification time and the size limit it is read under. Evaluations are
// cached under it, so a changed file is never answered from the old one.
type dataID struct {
	path  string
	mod   int64
	size  int64
	limit int64
}

// String is the identity as a cache key.
func (id dataID) String() string {
	return fmt.Sprintf("%s\x00%d\x00%d\x00%d", id.path, id.mod, id.size, id.limit)
}

// CheckData reports why the sample data at path cannot be read, or nil:
// it must be a regular file (or, for JQL and Datalog, a directory) within
// the data size limit. Opening it never blocks.
func (w *workspace) CheckData(path string) error {
	_, err := w.dataID(path)
	return err
}

// dataID checks the data at path (as CheckData) and returns the identity
// of its current version.
func (w *workspace) dataID(path string) (dataID, error) {
	r := w.reader()
	if lang.IsEngineURL(path) {
		// A database: a SQLite file's version is the file's; a server's
		// is unknown, so every look-up is a new version.
		file, ok := strings.CutPrefix(path, "sqlite:")
		if !ok {
			return dataID{path: path, mod: time.Now().UnixNano()}, nil
		}
		fi, err := r.Stat(file)
		if err != nil {
			return dataID{}, fmt.Errorf("sample data %s: %w", path, err)
		}
		return dataID{path: path, mod: fi.ModTime().UnixNano(), size: fi.Size()}, nil
	}
	fi, err := r.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return dataID{}, fmt.Errorf("sample data %s does not exist", path)
		}
		return dataID{}, fmt.Errorf("sample data: %w", err)
	}
	if !fi.IsDir() {
		f, err := r.Open(path)
		if err != nil {
			return dataID{}, fmt.Errorf("sample data: %w", err)
		}
		f.Close()
	}
	return dataID{path: path, mod: fi.ModTime().UnixNano(), size: fi.Size(), limit: r.MaxBytes()}, nil
}

// Load returns the data at path in the form kind, decoded by load: once
// per version of the file (its size, modification time and the data size
// limit). The file must pass CheckData; load reads it through the reader it
// is given. Requests for a form being loaded wait for that load; a request
// whose ctx is cancelled stops waiting, and when no request waits for a
// load any longer its context is cancelled: load must stop when it is.
// Loads run in parallel; load must not call the workspace's methods.
// After a load the cache lets go of the data no open document uses
// beyond the memory bound.
func (w *workspace) Load(ctx context.Context, kind, path string, load func(ctx context.Context, r *files.Reader, path string) (any, error)) (any, error) {
	id, err := w.dataID(path)
	if err != nil {
		return nil, err
	}
	c := &w.data
	c.mu.Lock()
	if c.sets == nil {
		c.sets = map[string]*dataSet{}
	}
	set := c.sets[path]
	if set == nil {
		set = &dataSet{path: path, bytes: dataBytes(w.reader(), path, id.size)}
		c.sets[path] = set
	}
	c.tick++
	set.used = c.tick
	if !set.idle.IsZero() {
		set.idle = time.Now() // a use restarts the wait for its release
	}
	c.mu.Unlock()

	for {
		set.mu.Lock()
		if set.id != id {
			set.id, set.forms = id, map[string]*loaded{}
			c.mu.Lock()
			set.bytes = dataBytes(w.reader(), path, id.size)
			c.mu.Unlock()
		}
		l := set.forms[kind]
		if l == nil {
			l = w.startLoad(ctx, set, kind, path, load)
		}
		if l.ok {
			set.mu.Unlock()
			return l.val, l.err
		}
		l.waiters++
		set.mu.Unlock()
		select {
		case <-l.done:
			set.mu.Lock()
			l.waiters--
			set.mu.Unlock()
			if l.ok {
				return l.val, l.err
			}
			// Abandoned by the requests before this one: load it again.
		case <-ctx.Done():
			set.mu.Lock()
			l.waiters--
			if l.waiters == 0 && !l.ok {
				// No request waits any longer: stop the load, and let
				// the next request start its own.
				l.cancel()
				if set.forms[kind] == l {
					delete(set.forms, kind)
				}
			}
			set.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// startLoad starts loading a form of set in the background, under a
// context of its own that Load cancels when no request waits for it any
// longer (the values of ctx are kept, its cancellation is not). set.mu
// must be held.
func (w *workspace) startLoad(ctx context.Context, set *dataSet, kind, path string, load func(context.Context, *files.Reader, string) (any, error)) *loaded {
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l := &loaded{done: make(chan struct{}), cancel: cancel}
	set.forms[kind] = l
	go func() {
		defer cancel()
		v, err := load(lctx, w.reader(), path)
		set.mu.Lock()
		if lctx.Err() == nil {
			l.val, l.err, l.ok = v, err, true
		} else if set.forms[kind] == l {
			delete(set.forms, kind)
		}
		close(l.done)
		set.mu.Unlock()
		if l.ok {
			w.release()
		}
	}()
	return l
}

// dataBytes is the weight of a data set for the memory bound: a file's
// size, the sizes of a directory's files.
func dataBytes(r *files.Reader, path string, size int64) int64 {
	ents, err := r.ReadDir(path)
	if err != nil {
		return size
	}
	var n int64
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// release lets go of the data sets no open document uses, least recently
// used first, until the loaded data weighs at most the dataCacheBytes
// setting, and of those unused for the dataReleaseDelay setting; it sweeps
// again when the next one is due. Evaluations over a released data set
// are dropped with it, and the memory it held is given back.
func (w *workspace) release() {
	c := &w.data
	// A set used after the open documents were looked at may be a new
	// document's: it is not idle.
	c.mu.Lock()
	before := c.tick
	c.mu.Unlock()
	used := map[string]bool{}
	if w.inUse != nil {
		used = w.inUse()
	}
	cfg := w.settings()
	bound, delay := cfg.dataCacheBytes(), cfg.dataReleaseDelay()
	now := time.Now()
	c.mu.Lock()
	var total int64
	var idle []*dataSet
	var next time.Time // when the next idle set kept is due
	soonest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, s := range c.sets {
		total += s.bytes
		if used[s.path] {
			s.idle = time.Time{}
			continue
		}
		if s.idle.IsZero() {
			s.idle = now
		}
		if s.used > before {
			// Used since the open documents were looked at: looked at
			// again when it would be due.
			soonest(s.idle.Add(delay))
			continue
		}
		idle = append(idle, s)
	}
	slices.SortFunc(idle, func(a, b *dataSet) int { return cmp.Compare(a.used, b.used) })
	var gone []string
	for _, s := range idle {
		if due := s.idle.Add(delay); total <= bound && now.Before(due) {
			soonest(due)
			continue
		}
		delete(c.sets, s.path)
		total -= s.bytes
		gone = append(gone, s.path)
	}
	if !next.IsZero() && !c.stopped {
		// A little past the due time, so that the sweep finds it due.
		wait := next.Sub(now) + 10*time.Millisecond
		if c.timer == nil {
			c.timer = time.AfterFunc(wait, w.release)
		} else {
			c.timer.Reset(wait)
		}
	}
	c.mu.Unlock()
	for _, p := range gone {
		w.evals.dropData(p)
	}
	if len(gone) > 0 {
		w.reclaim()
	}
}

// reclaim gives the memory of released data back to the operating
// system, in the background: a forced collection, then the freed pages
// returned. Released data would otherwise stay resident until the next
// collection, which an idle server does not run for minutes, and its
// pages until the runtime's scavenger got to them.
func (w *workspace) reclaim() {
	c := &w.data
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reclaiming {
		c.again = true
		return
	}
	c.reclaiming = true
	go func() {
		for {
			debug.FreeOSMemory()
			c.mu.Lock()
			if !c.again {
				c.reclaiming = false
				c.mu.Unlock()
				return
			}
			c.again = false
			c.mu.Unlock()
		}
	}()
}

// stopReleases ends the sweeps of idle data (the server shut down).
func (w *workspace) stopReleases() {
	c := &w.data
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.timer != nil {
		c.timer.Stop()
	}
}

// LoadedData returns the paths of the data sets held in memory.
func (w *workspace) LoadedData() []string {
	c := &w.data
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.sets))
	for p := range c.sets {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// dataID is the identity of the data at path, looked up at most once
// per idTTL: a pull asks it for every query of a document. A change the
// client reports (a watched file, a save) or new settings make it look
// again at once (forgetIDs).
func (s *Snapshot) dataID(path string) (dataID, error) {
	w := s.Workspace
	w.ids.mu.Lock()
	e, ok := w.ids.m[path]
	w.ids.mu.Unlock()
	if ok && time.Since(e.at) < idTTL {
		return e.id, e.err
	}
	id, err := w.dataID(path)
	w.ids.mu.Lock()
	if w.ids.m == nil || len(w.ids.m) > 1024 {
		w.ids.m = map[string]idAt{}
	}
	w.ids.m[path] = idAt{id, err, time.Now()}
	w.ids.mu.Unlock()
	return id, err
}

// idTTL is how long a data identity is trusted without looking at the file.
const idTTL = 250 * time.Millisecond

// idCache holds the data identities looked up lately.
type idCache struct {
	mu sync.Mutex
	m  map[string]idAt
}

type idAt struct {
	id  dataID
	err error
	at  time.Time
}

// forgetIDs makes the next look-ups of data identities look at the files.
func (w *workspace) forgetIDs() {
	w.ids.mu.Lock()
	w.ids.m = nil
	w.ids.mu.Unlock()
}

// loadData returns the sample data at path loaded for the language l by
// the language table, once per version of the file (Load); a request
// whose ctx is cancelled stops waiting for it.
func (w *workspace) loadData(ctx context.Context, l *lang.Language, path string) (lang.Data, error) {
	if lang.IsEngineURL(path) {
		// Data in a database: read where it is, each evaluation there.
		return l.LoadEngine(ctx, w.openEngine, path)
	}
	v, err := w.Load(ctx, "lang:"+string(l.ID), path, func(ctx context.Context, r *files.Reader, p string) (any, error) {
		return l.Load(ctx, r, p)
	})
	if err != nil {
		return nil, fmt.Errorf("sample data %s: %w", path, err)
	}
	return v.(lang.Data), nil
}
