// Package datalog evaluates Datalog rules (Ascent syntax, parsed by
// syntax/datalog) over relations of string values.
//
// Data follows the RelationData model: each relation has param_types and
// tuples of strings. Load interns every string to an integer id so that
// joins, negation and deduplication compare integers. A single query rule
// is planned and evaluated once: positive atoms are hash-joined in an order
// chosen by boundness and size, negated atoms become anti-joins and "if"
// conditions become filters, and the head projection is deduplicated and
// sorted. A program of several rules is evaluated stratum by stratum with a
// semi-naive fixpoint and stratified negation.
package datalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/ctxql/ctxql/internal/files"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// RelationData is one relation of the data: its parameter types and its
// tuples, every value a string.
type RelationData struct {
	ParamTypes []string   `json:"param_types"`
	Tuples     [][]string `json:"tuples"`
}

// Data is the input of an evaluation: relations by name.
type Data struct {
	Relations map[string]*RelationData `json:"relations"`
}

// ReadJSON decodes data of the form
// {"relations": {"path": {"param_types": ["Proc","Proc"], "tuples": [["a","b"]]}}}
// and validates that every tuple has one value per parameter type.
func ReadJSON(r io.Reader) (*Data, error) {
	dec := json.NewDecoder(r)
	var d Data
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("decode data: %w", err)
	}
	if d.Relations == nil {
		return nil, errors.New("data has no \"relations\" object")
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// Validate checks that every relation is present and every tuple has the
// relation's arity.
func (d *Data) Validate() error {
	for _, name := range d.names() {
		rel := d.Relations[name]
		if rel == nil {
			return fmt.Errorf("relation %s: missing param_types and tuples", name)
		}
		for i, t := range rel.Tuples {
			if len(t) != len(rel.ParamTypes) {
				return fmt.Errorf("relation %s: tuple %d has %d values, want %d", name, i, len(t), len(rel.ParamTypes))
			}
		}
	}
	return nil
}

func (d *Data) names() []string {
	names := make([]string, 0, len(d.Relations))
	for n := range d.Relations {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ReadFactsDir reads a Soufflé-style facts directory (see ReadFacts):
// relation types from the declarations of its .dl files, the tuples of
// NAME from NAME.facts (tab-separated) or NAME.csv (comma-separated).
func ReadFactsDir(dir string) (*Data, error) { return ReadFactsDirFrom(files.New(0, ""), dir) }

// ReadFactsDirFrom is ReadFactsDir with every file opened through r: a
// confined reader refuses links that leave its directory, and every reader
// refuses FIFOs, devices and files over its limit.
func ReadFactsDirFrom(r *files.Reader, dir string) (*Data, error) {
	return ReadFactsDirFromContext(context.Background(), r, dir)
}

// ReadFactsDirFromContext is ReadFactsDirFrom that stops when ctx is
// done: it looks at ctx every checkTuples lines of facts.
func ReadFactsDirFromContext(ctx context.Context, r *files.Reader, dir string) (*Data, error) {
	f, err := ReadFacts(ctx, r, dir)
	if err != nil {
		return nil, err
	}
	return f.Data(ctx)
}

// checkTuples is the number of tuples a load reads or interns between
// two looks at its context.
const checkTuples = 4096

// ReadDataPath reads a JSON data file, or a facts directory when path is a
// directory.
func ReadDataPath(path string) (*Data, error) { return ReadDataPathFrom(files.New(0, ""), path) }

// ReadDataPathFrom is ReadDataPath with every file opened through r.
func ReadDataPathFrom(r *files.Reader, path string) (*Data, error) {
	st, err := r.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	if st.IsDir() {
		return ReadFactsDirFrom(r, path)
	}
	f, err := r.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	defer f.Close()
	return ReadJSON(f)
}

// relation is an interned relation: rows of ids stored flat.
type relation struct {
	types []string
	tab   *table
}

// DB is loaded, interned data ready for evaluation. Evaluations may run
// concurrently over one DB as long as every constant in their rules'
// heads occurs in the data: the indexes and string ranks they add are
// guarded, but a head constant new to the DB is interned into it, which
// other evaluations read without a lock.
type DB struct {
	strs []string
	ids  interner
	rels map[string]*relation
	// rank[id] is the position of strs[id] in sorted order; rebuilt lazily
	// when strings were added.
	rank []uint32
	// order[r] is the id of the string of rank r.
	order []uint32
	// base holds the indexes built over the loaded (immutable) relations,
	// by table and key columns. They are built on first use and kept, as a
	// database keeps its indexes.
	base map[*table]map[string]*index
	// mu guards rank, order and base, which evaluations fill in lazily.
	mu sync.Mutex
}

// baseIndex returns the index over a loaded relation's table on cols, and
// false when t is not a loaded relation. stop is called as the index is
// built (see buildIndex); an index whose building it stopped is not kept.
func (db *DB) baseIndex(t *table, cols []int, stop func() error) (*index, bool, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	m, ok := db.base[t]
	if !ok {
		return nil, false, nil
	}
	key := fmt.Sprint(cols)
	ix, ok := m[key]
	if !ok {
		var err error
		if ix, err = t.index(t.len(), cols, len(db.strs), stop); err != nil {
			return nil, true, err
		}
		m[key] = ix
	}
	return ix, true, nil
}

// dropIndexes forgets the indexes built so far.
func (db *DB) dropIndexes() {
	db.mu.Lock()
	defer db.mu.Unlock()
	for t := range db.base {
		db.base[t] = map[string]*index{}
	}
}

// Load interns data into a DB. Duplicate tuples are dropped (set semantics).
func Load(d *Data) (*DB, error) { return LoadContext(context.Background(), d) }

// LoadContext is Load that stops when ctx is done: it looks at ctx every
// checkTuples tuples, and the error wraps ctx's.
func LoadContext(ctx context.Context, d *Data) (*DB, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := loadStopped(ctx); err != nil {
		return nil, err
	}
	n := 0
	db := &DB{ids: newInterner(0), rels: map[string]*relation{}, base: map[*table]map[string]*index{}}
	for _, name := range d.names() {
		rd := d.Relations[name]
		tab := newTable(len(rd.ParamTypes))
		set := newTupleSet(len(rd.ParamTypes))
		row := make([]uint32, len(rd.ParamTypes))
		for _, t := range rd.Tuples {
			if n++; n%checkTuples == 0 {
				if err := loadStopped(ctx); err != nil {
					return nil, err
				}
			}
			for i, v := range t {
				row[i] = db.intern(v)
			}
			if set.add(row) {
				tab.append(row)
			}
		}
		db.rels[name] = &relation{types: slices.Clone(rd.ParamTypes), tab: tab}
		db.base[tab] = map[string]*index{}
	}
	return db, nil
}

// Schema returns the parameter types of every relation.
func (db *DB) Schema() syn.Schema {
	s := syn.Schema{}
	for name, r := range db.rels {
		s[name] = slices.Clone(r.types)
	}
	return s
}

// RelationSummary describes one relation of a DB.
type RelationSummary struct {
	Name  string   `json:"name"`
	Types []string `json:"types"`
	Size  int      `json:"size"`
}

// Relations lists the relations sorted by name.
func (db *DB) Relations() []RelationSummary {
	out := make([]RelationSummary, 0, len(db.rels))
	for name, r := range db.rels {
		out = append(out, RelationSummary{Name: name, Types: slices.Clone(r.types), Size: r.tab.len()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
