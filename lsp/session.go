package lsp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// Snapshot is one immutable version of an open document. The parse result
// is computed once, on first use, by whichever goroutine needs it first, so
// that a huge document does not block the message loop.
type Snapshot struct {
	URI        string
	LanguageID string
	Version    int32
	File       *syntax.File
	Lang       Language // nil when the document's language is unknown
	// Edited is the byte offset where the change that made this version
	// ended, -1 for a freshly opened document: the query being edited.
	Edited int
	// Workspace locates and caches the document's sample data.
	Workspace *workspace
	// Limit is the document size limit in force when the snapshot was
	// made; a document over it gets no parse and no features, only a
	// diagnostic saying so (0: no limit).
	Limit int64

	once    sync.Once
	parsed  any
	degOnce sync.Once
	degCode string // why the document gets no features; "" when it does
	degWhy  string
	// What is derived from this version, each computed once and shared
	// by every request on it: the linter configured for the document,
	// its findings, the run of each query (by its start offset).
	linter   memo[struct{}, *lint.Linter]
	findings memo[struct{}, []syntax.Diagnostic]
	runs     memo[int, memoRun]
	// pull tracks a pull client's data findings for this version.
	pull pullState
}

// pullState is whether a pull was answered before the data findings of
// its version were evaluated (waiting), and whether the diagnoser has
// evaluated them since (filled).
type pullState struct {
	mu       sync.Mutex
	waiting  bool
	filled   bool
	answered chan struct{} // closed once a pull of this version was answered
}

// answeredCh returns the channel closed once a pull of this version was
// answered.
func (p *pullState) answeredCh() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.answered == nil {
		p.answered = make(chan struct{})
	}
	return p.answered
}

// answer records that a pull of this version was answered.
func (p *pullState) answer() {
	ch := p.answeredCh()
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// Parsed returns the language's parse result for this version, parsing on
// first use. It is nil for documents of unknown language.
func (s *Snapshot) Parsed() any {
	s.once.Do(func() {
		if _, _, bad := s.Degraded(); bad {
			return
		}
		if sp, ok := s.Lang.(snapshotParser); ok {
			s.parsed = sp.ParseSnapshot(s)
		} else if s.Lang != nil {
			s.parsed = s.Lang.Parse(s.File)
		}
	})
	return s.parsed
}

// TooLarge reports whether the document is over the size limit.
func (s *Snapshot) TooLarge() bool { return s.Limit > 0 && int64(s.File.Len()) > s.Limit }

// maxNesting bounds how deeply brackets may nest in a document the
// server parses. The parsers bound their own recursion, but a YAML
// document's flow collections are built whole before any check can run,
// at a cost that grows with the square of their depth.
const maxNesting = 1000

// Degraded reports whether the document gets no parse and no features,
// with the code and message of the one diagnostic it gets instead: over
// the size limit, or brackets nested deeper than maxNesting.
func (s *Snapshot) Degraded() (code, msg string, bad bool) {
	s.degOnce.Do(func() {
		switch {
		case s.TooLarge():
			s.degCode = CodeTooLarge
			s.degWhy = fmt.Sprintf("the document is %d bytes, over the limit of %d bytes: no diagnostics, completion, hovers or runs (raise with the %s setting)",
				s.File.Len(), s.Limit, settingMaxDocumentBytes)
		case nestingDepth(s.File.Text(), maxNesting) > maxNesting:
			s.degCode = CodeTooDeep
			s.degWhy = fmt.Sprintf("brackets nest more than %d levels deep: no diagnostics, completion, hovers or runs for this document", maxNesting)
		}
	})
	return s.degCode, s.degWhy, s.degCode != ""
}

// nestingDepth returns how deeply (), [] and {} nest in text outside
// quoted strings, counting at most to max+1. A quote opens a string only
// where a token starts (after a space, a line break, a bracket or an
// operator), as in YAML, JSON, PACT and Datalog, so that an apostrophe
// inside a word hides nothing; a string runs to its closing quote, line
// breaks included (YAML's quoted scalars span lines). Brackets in comments
// count: that can only overestimate.
func nestingDepth(text string, max int) int {
	depth, deepest := 0, 0
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		if quote != 0 {
			switch {
			case c == '\\' && quote == '"':
				i++
			case c == quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			if i == 0 || strings.IndexByte(" \t\r\n:,[{(=!<>~", text[i-1]) >= 0 {
				quote = c
			}
		case '(', '[', '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > max {
					return deepest
				}
			}
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}

// fresh returns a copy of the snapshot with nothing computed yet, for
// diagnosing it again under changed settings. It keeps the edited offset:
// the copy may supersede the version before its live preview was pushed,
// and under new settings or data the edited query's preview changes too.
func (s *Snapshot) fresh() *Snapshot {
	return &Snapshot{URI: s.URI, LanguageID: s.LanguageID, Version: s.Version, File: s.File, Lang: s.Lang,
		Edited: s.Edited, Workspace: s.Workspace, Limit: s.Workspace.limit()}
}

// memo holds values derived from a snapshot, by key, each computed once:
// a request that needs a value being computed waits for it rather than
// computing it again. A computation cut short (its requester's context
// was cancelled) is not kept: the next request computes it.
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*memoEntry[V]
}

type memoEntry[V any] struct {
	done chan struct{} // closed when computed or abandoned
	v    V
	kept bool
}

// get returns the value of key, computing it with f under ctx when it is
// neither computed nor being computed; f's keep says whether the value is
// whole. ok is false when ctx was cancelled before a whole value came.
func (m *memo[K, V]) get(ctx context.Context, key K, f func() (v V, keep bool)) (v V, ok bool) {
	for {
		m.mu.Lock()
		if m.m == nil {
			m.m = map[K]*memoEntry[V]{}
		}
		e := m.m[key]
		if e == nil {
			e = &memoEntry[V]{done: make(chan struct{})}
			m.m[key] = e
			m.mu.Unlock()
			return m.compute(ctx, key, e, f)
		}
		m.mu.Unlock()
		select {
		case <-e.done:
			if e.kept {
				return e.v, true
			}
			// Abandoned: compute it here (the loop finds no entry).
		case <-ctx.Done():
			return v, false
		}
	}
}

// peek returns the value of key when it was computed whole, without
// waiting for a computation in flight.
func (m *memo[K, V]) peek(key K) (v V, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.m[key]; e != nil && e.kept {
		return e.v, true
	}
	return v, false
}

func (m *memo[K, V]) compute(ctx context.Context, key K, e *memoEntry[V], f func() (V, bool)) (v V, ok bool) {
	kept := false
	defer func() {
		m.mu.Lock()
		if kept {
			e.v, e.kept = v, true
		} else {
			delete(m.m, key)
		}
		close(e.done)
		m.mu.Unlock()
	}()
	v, keep := f()
	kept = keep && ctx.Err() == nil
	return v, ctx.Err() == nil
}

// findingsOf returns the document's diagnostics, computed by f once per
// snapshot and shared by diagnostics, hovers and code actions. A result
// computed under a cancelled context is not kept. Callers must not modify
// the slice.
func (s *Snapshot) findingsOf(ctx context.Context, f func() []syntax.Diagnostic) []syntax.Diagnostic {
	ds, _ := s.findings.get(ctx, struct{}{}, func() ([]syntax.Diagnostic, bool) {
		ds := f()
		syntax.SortDiagnostics(ds)
		return ds, true
	})
	return ds
}

// snapshotParser is implemented by languages whose parse depends on the
// document's project (the PACT dialect of .ctxql.yaml).
type snapshotParser interface {
	ParseSnapshot(s *Snapshot) any
}

// session holds the latest snapshot of every open document.
type session struct {
	mu   sync.Mutex
	docs map[string]*Snapshot
}

func newSession() *session { return &session{docs: map[string]*Snapshot{}} }

// get returns the latest snapshot of uri, or nil.
func (s *session) get(uri string) *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

func (s *session) set(snap *Snapshot) {
	s.mu.Lock()
	s.docs[snap.URI] = snap
	s.mu.Unlock()
}

// all returns the latest snapshot of every open document.
func (s *session) all() []*Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Snapshot, 0, len(s.docs))
	for _, d := range s.docs {
		out = append(out, d)
	}
	return out
}

// replace sets next as the document's snapshot if old is still current.
func (s *session) replace(old, next *Snapshot) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docs[old.URI] != old {
		return false
	}
	s.docs[old.URI] = next
	return true
}

func (s *session) remove(uri string) {
	s.mu.Lock()
	delete(s.docs, uri)
	s.mu.Unlock()
}
