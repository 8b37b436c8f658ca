package lsp

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ctxql/ctxql/lang"
)

// The evaluation cache. An evaluation over sample data depends only on the
// query's text, its dialect and the version of the data (dataID), not on
// the document version it was asked for: a keystroke in one query of a
// file evaluates that query alone, and the others are answered from the
// cache. Entries are kept in least-recently-used order, at most
// maxCachedEvals, and dropped with their data set.

// maxCachedEvals bounds the evaluations kept of each kind.
const maxCachedEvals = 4096

// evalKey identifies an evaluation.
type evalKey struct {
	kind    string // what was computed: "pact-run", "pact-trace", "jql-run", "datalog", ...
	data    string // dataID.String()
	path    string // the data path, to drop the entry with its data set
	dialect int
	text    string // the query (or the whole Datalog program)
}

// dataPath is the path of the data the evaluation read.
func (k evalKey) dataPath() string { return k.path }

// cacheKey is a key of an evaluation cache: comparable, and naming the
// data the evaluation read, to drop it with that data.
type cacheKey interface {
	comparable
	dataPath() string
}

// evalCaches are the evaluation caches of a workspace, one per kind of
// result, with the counters they share.
type evalCaches struct {
	runs   atomic.Int64 // evaluations started (cache misses)
	active atomic.Int64 // evaluations running now

	queries  evalCache[evalKey, RunResult]   // a PACT or JQL query's run
	programs evalCache[evalKey, datalogRun]  // a Datalog program's run
	parts    evalCache[evalKey, []lang.Part] // a Datalog program's parts
	whys     evalCache[evalKey, whyResult]   // a tuple's explanation
	traces   evalCache[evalKey, tracedAt]    // a query's steps
}

// dropData forgets the finished evaluations over the data at path.
func (c *evalCaches) dropData(path string) {
	c.queries.dropData(path)
	c.programs.dropData(path)
	c.parts.dropData(path)
	c.whys.dropData(path)
	c.traces.dropData(path)
}

// kept is the number of finished evaluations kept.
func (c *evalCaches) kept() int {
	return c.queries.len() + c.programs.len() + c.parts.len() + c.whys.len() + c.traces.len()
}

// evalCache holds finished evaluations of one kind, of type V, and those
// in flight, by key K.
type evalCache[K cacheKey, V any] struct {
	mu      sync.Mutex
	entries map[K]*evalEntry[K, V]
	lru     list.List // of *evalEntry[K, V], finished only, most recent first
}

type evalEntry[K cacheKey, V any] struct {
	key  K
	done chan struct{} // closed when the evaluation finished or was abandoned
	val  V
	kept bool // val is the finished result
	elem *list.Element
}

// errNotCached is returned by get under a context made by cachedOnly when
// the evaluation is not in the cache.
var errNotCached = errors.New("not evaluated yet")

// cachedOnlyKey marks a context whose evaluations must come from the
// cache; its value is a *atomic.Bool set when one did not.
type cachedOnlyKey struct{}

// cachedOnly returns a context under which evaluations are answered from
// the cache only, and a flag that is set when one was missing.
func cachedOnly(ctx context.Context) (context.Context, *atomic.Bool) {
	missed := &atomic.Bool{}
	return context.WithValue(ctx, cachedOnlyKey{}, missed), missed
}

// get returns the evaluation of key, computing it with f under ctx when
// it is neither cached nor in flight, counting it in stats. Requests for
// an evaluation in flight wait for it; when its requester was cancelled,
// they compute it themselves. A result computed under a cancelled context
// is not kept (f returns as soon as it sees the cancellation), nor is one
// f says not to keep.
func (c *evalCache[K, V]) get(ctx context.Context, stats *evalCaches, key K, f func(ctx context.Context) (v V, keep bool)) (V, error) {
	var zero V
	missed, _ := ctx.Value(cachedOnlyKey{}).(*atomic.Bool)
	for {
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[K]*evalEntry[K, V]{}
		}
		e := c.entries[key]
		switch {
		case e != nil && e.kept:
			c.lru.MoveToFront(e.elem)
			c.mu.Unlock()
			return e.val, nil
		case missed != nil:
			c.mu.Unlock()
			missed.Store(true) // not evaluated, or still being evaluated
			return zero, errNotCached
		}
		if e == nil {
			break // computed below, lock held
		}
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
	e := &evalEntry[K, V]{key: key, done: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()

	stats.runs.Add(1)
	stats.active.Add(1)
	var v V
	var keep bool
	func() {
		defer func() {
			stats.active.Add(-1)
			if r := recover(); r != nil {
				// Let the waiters compute it (and fail) themselves.
				c.mu.Lock()
				delete(c.entries, key)
				close(e.done)
				c.mu.Unlock()
				panic(r)
			}
		}()
		v, keep = f(ctx)
	}()

	c.mu.Lock()
	if keep && ctx.Err() == nil {
		e.val, e.kept = v, true
		e.elem = c.lru.PushFront(e)
		for c.lru.Len() > maxCachedEvals {
			old := c.lru.Remove(c.lru.Back()).(*evalEntry[K, V])
			delete(c.entries, old.key)
		}
	} else {
		delete(c.entries, key)
	}
	close(e.done)
	c.mu.Unlock()
	if ctx.Err() != nil {
		return zero, ctx.Err()
	}
	return v, nil
}

// dropData forgets the finished evaluations over the data at path.
func (c *evalCache[K, V]) dropData(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*evalEntry[K, V]); e.key.dataPath() == path {
			c.lru.Remove(el)
			delete(c.entries, e.key)
		}
		el = next
	}
}

// len is the number of finished evaluations kept.
func (c *evalCache[K, V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
