package jql

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxql/ctxql/internal/files"
)

// domains are the domains a Table holds.
var domains = []string{"sessions", "activities"}

// Table is data loaded into memory: each domain's documents as raw JSON,
// split into segments of segSize documents, and, per segment, the sort key
// of every document and column vectors of the fields queries test, built
// the first time a query tests them and kept for the next. Evaluation over
// a Table tests conditions on the columns, not on the documents (except a
// first query that the bytes pre-filter serves better, see columnar), and
// splits the segments among workers. A Table is a Source too (Explain
// scans its documents), and is safe for concurrent use.
type Table struct {
	sets  map[string]*docSet
	evals atomic.Int64 // evaluations so far
}

// columnar reports whether an evaluation of pl goes to the columns. The
// first evaluation of a Table that has raw-bytes needles (an equality on
// a string) scans the documents instead, testing only those that hold a
// needle, as a file is scanned: building the columns costs a parse of
// every document, which pays off from the second query on. A query with
// no needle parses every document either way, and builds the columns.
func (t *Table) columnar(pl *plan) bool {
	return t.evals.Add(1) > 1 || len(pl.needles) == 0
}

// docSet is the documents of one domain (or of both, when the data is
// one domain's documents whichever the query names).
type docSet struct {
	docs [][]byte
	segs []*segment

	// built holds the path keys whose columns every segment has (with the
	// sort keys): a query on them prepares the segments without workers.
	builtMu sync.Mutex
	built   map[string]bool

	rankOnce sync.Once
	// asc and desc are each document's place in the order of a query
	// with order asc or desc: documents with equal sort keys share it.
	asc, desc []uint32
	// bestAsc and bestDesc are, per segment, the best (lowest) place of
	// its objects in each order (math.MaxUint32 for a segment without
	// one): a segment whose best place cannot enter the result is skipped.
	bestAsc, bestDesc []uint32
}

// ranks returns the places of the documents in the order of the query
// (asc or desc) and the best place of each segment, computing them the
// first time from the segments' keys, which must all be built.
func (s *docSet) ranks(desc bool) (ranks, best []uint32) {
	s.rankOnce.Do(func() {
		n := len(s.docs)
		keys := make([]*sortKey, n)
		for _, sg := range s.segs {
			for j := range sg.keys {
				keys[sg.lo+j] = &sg.keys[j]
			}
		}
		perm := make([]int32, n)
		for i := range perm {
			perm[i] = int32(i)
		}
		// Ascending: createTime ascending, then id ascending.
		slices.SortFunc(perm, func(a, b int32) int {
			if c := cmpTime(*keys[a], *keys[b]); c != 0 {
				return c
			}
			return strings.Compare(keys[a].id, keys[b].id)
		})
		s.asc, s.desc = make([]uint32, n), make([]uint32, n)
		r := uint32(0)
		for i, d := range perm {
			if i > 0 && (cmpTime(*keys[perm[i-1]], *keys[d]) != 0 || keys[perm[i-1]].id != keys[d].id) {
				r++
			}
			s.asc[d] = r
		}
		// Descending: the runs of equal createTime in reverse, each run
		// still by id ascending.
		r = 0
		first := true
		for end := n; end > 0; {
			start := end - 1
			for start > 0 && cmpTime(*keys[perm[start-1]], *keys[perm[end-1]]) == 0 {
				start--
			}
			for i := start; i < end; i++ {
				if !first && (i == start || keys[perm[i-1]].id != keys[perm[i]].id) {
					r++
				}
				first = false
				s.desc[perm[i]] = r
			}
			end = start
		}
		s.bestAsc, s.bestDesc = make([]uint32, len(s.segs)), make([]uint32, len(s.segs))
		for i, sg := range s.segs {
			ba, bd := uint32(math.MaxUint32), uint32(math.MaxUint32)
			for j := sg.lo; j < sg.hi; j++ {
				if sg.obj[j-sg.lo] {
					ba, bd = min(ba, s.asc[j]), min(bd, s.desc[j])
				}
			}
			s.bestAsc[i], s.bestDesc[i] = ba, bd
		}
	})
	if desc {
		return s.desc, s.bestDesc
	}
	return s.asc, s.bestAsc
}

// allBuilt reports whether every segment has the columns of paths.
func (s *docSet) allBuilt(paths [][]string) bool {
	s.builtMu.Lock()
	defer s.builtMu.Unlock()
	if s.built == nil { // not even the sort keys yet
		return false
	}
	for _, p := range paths {
		if !s.built[pathKey(p)] {
			return false
		}
	}
	return true
}

// setBuilt records that every segment has the columns of paths.
func (s *docSet) setBuilt(paths [][]string) {
	s.builtMu.Lock()
	defer s.builtMu.Unlock()
	if s.built == nil {
		s.built = map[string]bool{}
	}
	for _, p := range paths {
		s.built[pathKey(p)] = true
	}
}

// segSize is the number of documents of a segment: the unit of column
// building and of the work given to one worker at a time.
const segSize = 8192

func newDocSet(docs [][]byte) *docSet { return newDocSetSize(docs, segSize) }

func newDocSetSize(docs [][]byte, size int) *docSet {
	s := &docSet{docs: docs}
	for lo := 0; lo < len(docs); lo += size {
		s.segs = append(s.segs, &segment{lo: lo, hi: min(lo+size, len(docs))})
	}
	return s
}

// Load reads every document of src into memory. A file of JSON Lines is
// read whole and its documents are the lines of that one buffer; the other
// shapes are decoded document by document.
func Load(ctx context.Context, src Source) (*Table, error) {
	switch s := src.(type) {
	case *Table:
		return s, nil
	case File:
		return loadFile(ctx, s)
	case Bytes:
		return loadBytes(ctx, s.Name, s.Data)
	}
	t := &Table{sets: map[string]*docSet{}}
	for _, dom := range domains {
		docs, err := collect(ctx, src, dom)
		if err != nil {
			return nil, err
		}
		t.sets[dom] = newDocSet(docs)
	}
	return t, nil
}

// Len returns the number of documents of a domain.
func (t *Table) Len(domain string) int {
	if s := t.sets[domain]; s != nil {
		return len(s.docs)
	}
	return 0
}

// Scan implements Source.
func (t *Table) Scan(ctx context.Context, domain string, fn func(raw []byte) error) error {
	s := t.sets[domain]
	if s == nil {
		return nil
	}
	for i, d := range s.docs {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// collect copies the documents src scans for domain into one buffer.
func collect(ctx context.Context, src Source, domain string) ([][]byte, error) {
	var buf []byte
	var ends []int
	err := src.Scan(ctx, domain, func(raw []byte) error {
		buf = append(buf, raw...)
		ends = append(ends, len(buf))
		return nil
	})
	if err != nil {
		return nil, err
	}
	docs := make([][]byte, len(ends))
	start := 0
	for i, e := range ends {
		docs[i] = buf[start:e:e]
		start = e
	}
	return docs, nil
}

func loadFile(ctx context.Context, f File) (*Table, error) {
	fr := f.Files
	if fr == nil {
		fr = files.New(0, "")
	}
	st, err := fr.Stat(f.Path)
	if err != nil {
		return nil, &DataError{Err: err}
	}
	if !st.IsDir() {
		b, err := fr.ReadFile(f.Path)
		if err != nil {
			return nil, &DataError{Err: err}
		}
		return loadBytes(ctx, f.Path, b)
	}
	t := &Table{sets: map[string]*docSet{}}
	for _, dom := range domains {
		path, err := domainFile(fr, f.Path, dom)
		if err != nil {
			return nil, err
		}
		var docs [][]byte
		if path != "" {
			b, err := fr.ReadFile(path)
			if err != nil {
				return nil, &DataError{Err: err}
			}
			if docs, err = loadDocs(ctx, path, b, dom); err != nil {
				return nil, err
			}
		}
		t.sets[dom] = newDocSet(docs)
	}
	return t, nil
}

// domainFile finds the file of a domain in a data directory: "" when it
// has none.
func domainFile(fr *files.Reader, dir, domain string) (string, error) {
	for _, ext := range []string{".jsonl", ".ndjson", ".json", ".yaml"} {
		p := filepath.Join(dir, domain+ext)
		_, err := fr.Stat(p)
		if err == nil {
			return p, nil
		}
		// Only a file that does not exist leaves the domain empty: one
		// that cannot be reached (a link out of a confined directory, a
		// permission) is an error, not silently no data.
		if !errors.Is(err, fs.ErrNotExist) {
			return "", &DataError{Err: err}
		}
	}
	return "", nil
}

// loadBytes loads data of any shape File reads: one document set shared by
// both domains when the shape does not name them.
func loadBytes(ctx context.Context, name string, b []byte) (*Table, error) {
	t := &Table{sets: map[string]*docSet{}}
	lower := strings.ToLower(name)
	head := b[:min(len(b), 1<<16)]
	first := firstByte(head)
	named := strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") ||
		(first == '{' && isWrapped(head)) || (first != '{' && first != '[' && first != 0)
	if !named {
		docs, err := loadDocs(ctx, name, b, "")
		if err != nil {
			return nil, err
		}
		s := newDocSet(docs)
		for _, dom := range domains {
			t.sets[dom] = s
		}
		return t, nil
	}
	for _, dom := range domains {
		docs, err := collect(ctx, Bytes{Name: name, Data: b}, dom)
		if err != nil {
			return nil, err
		}
		t.sets[dom] = newDocSet(docs)
	}
	return t, nil
}

// loadDocs returns the documents of b for domain: the lines of JSON Lines
// as slices of b, any other shape decoded and copied.
func loadDocs(ctx context.Context, name string, b []byte, domain string) ([][]byte, error) {
	lower := strings.ToLower(name)
	first := firstByte(b[:min(len(b), 1<<16)])
	yml := strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml")
	if yml || first == '[' || (first == '{' && isWrapped(b[:min(len(b), 1<<16)])) || (first != '{' && first != 0) {
		return collect(ctx, Bytes{Name: name, Data: b}, domain)
	}
	docs := make([][]byte, 0, bytes.Count(b, []byte{'\n'})+1)
	for n := 0; len(b) > 0; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			docs = append(docs, t[:len(t):len(t)])
		}
	}
	return docs, nil
}

var _ Source = (*Table)(nil)
