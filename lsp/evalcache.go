package lsp

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// The evaluation cache. An evaluation over sample data depends only on the
// query's text, its dialect and the version of the data (dataID), not on
// the document version it was asked for: a keystroke in one query of a
// file evaluates that query alone, and the others are answered from the
// cache. Entries are kept in least-recently-used order, at most
// maxCachedEvals, and dropped with their data set.

// maxCachedEvals bounds the evaluations kept.
const maxCachedEvals = 4096

// evalKey identifies an evaluation.
type evalKey struct {
	kind    string // what was computed: "pact-run", "pact-trace", "jql-run", "datalog", ...
	data    string // dataID.String()
	path    string // the data path, to drop the entry with its data set
	dialect int
	text    string // the query (or the whole Datalog program)
}

// evalCache holds finished evaluations and those in flight.
type evalCache struct {
	mu      sync.Mutex
	entries map[evalKey]*evalEntry
	lru     list.List // of *evalEntry, finished only, most recent first

	runs   atomic.Int64 // evaluations started (cache misses)
	active atomic.Int64 // evaluations running now
}

type evalEntry struct {
	key  evalKey
	done chan struct{} // closed when the evaluation finished or was abandoned
	val  any
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
// it is neither cached nor in flight. Requests for an evaluation in flight
// wait for it; when its requester was cancelled, they compute it
// themselves. A result computed under a cancelled context is not kept (f
// returns as soon as it sees the cancellation), nor is one f says not to
// keep.
func (c *evalCache) get(ctx context.Context, key evalKey, f func(ctx context.Context) (v any, keep bool)) (any, error) {
	missed, _ := ctx.Value(cachedOnlyKey{}).(*atomic.Bool)
	for {
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[evalKey]*evalEntry{}
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
			return nil, errNotCached
		}
		if e == nil {
			break // computed below, lock held
		}
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e := &evalEntry{key: key, done: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()

	c.runs.Add(1)
	c.active.Add(1)
	var v any
	var keep bool
	func() {
		defer func() {
			c.active.Add(-1)
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
			old := c.lru.Remove(c.lru.Back()).(*evalEntry)
			delete(c.entries, old.key)
		}
	} else {
		delete(c.entries, key)
	}
	close(e.done)
	c.mu.Unlock()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return v, nil
}

// dropData forgets the finished evaluations over the data at path.
func (c *evalCache) dropData(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*evalEntry); e.key.path == path {
			c.lru.Remove(el)
			delete(c.entries, e.key)
		}
		el = next
	}
}
