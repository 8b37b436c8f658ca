package datalog

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/ctxql/ctxql/internal/files"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// Facts is a facts directory read into memory: the relation declarations
// of its .dl files and the text of its NAME.facts (tab-separated) and
// NAME.csv (comma-separated) files. Nothing modifies it once read, so
// several databases may be loaded from it, one after the other or at the
// same time.
type Facts struct {
	dir   string
	decls map[string][]string // relation -> declared parameter types
	files []factsFile         // sorted by relation name
	// pipeMin is the size of a file from which Load interns its values
	// on a goroutine of its own (usePipe).
	pipeMin int
}

// factsFile is one file of tuples of a facts directory.
type factsFile struct {
	rel  string
	path string
	csv  bool
	src  []byte
	m    *files.Mapped // src's mapping (MapFacts), nil when read
}

// ReadFacts reads a facts directory through r: relation types come from
// "relation NAME(T1, ...)" declarations in the directory's .dl files, the
// tuples of NAME from NAME.facts (one tuple a line, values separated by
// tabs, as Soufflé writes them) or NAME.csv (values separated by commas;
// a value in double quotes may hold commas, line breaks and doubled
// quotes). A declared relation without a file is empty. A relation with a
// file and no declaration takes its arity from the file's first line that
// is not empty (none when every line is empty: a nullary fact) and has no
// types (""), which a program's declaration of it then gives; an empty
// file of no declared relation is ignored.
func ReadFacts(ctx context.Context, r *files.Reader, dir string) (*Facts, error) {
	return readFacts(ctx, r, dir, false)
}

// MapFacts is ReadFacts with the files of tuples mapped into memory
// (files.Reader.Map) rather than read: the Facts serve Load until Close,
// which releases them.
func MapFacts(ctx context.Context, r *files.Reader, dir string) (*Facts, error) {
	return readFacts(ctx, r, dir, true)
}

// Close releases the files a MapFacts mapped; the Facts hold no tuples
// after it. It does nothing for the Facts of ReadFacts.
func (f *Facts) Close() error {
	var err error
	for i := range f.files {
		ff := &f.files[i]
		if ff.m == nil {
			continue
		}
		if e := ff.m.Close(); err == nil {
			err = e
		}
		ff.m, ff.src = nil, nil
	}
	return err
}

func readFacts(ctx context.Context, r *files.Reader, dir string, mapped bool) (_ *Facts, err error) {
	ents, err := r.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	f := &Facts{dir: dir, decls: map[string][]string{}, pipeMin: pipeMin}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	seen := map[string]string{}
	for _, e := range ents {
		if err := loadStopped(ctx); err != nil {
			return nil, err
		}
		p := filepath.Join(dir, e.Name())
		switch ext := filepath.Ext(e.Name()); ext {
		case ".dl":
			src, err := r.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("read declarations: %w", err)
			}
			prog := syn.ParseProgram(p, string(src))
			if len(prog.Diagnostics) > 0 {
				dg := prog.Diagnostics[0]
				return nil, fmt.Errorf("%s:%s: %s", p, prog.File.Position(dg.Span.Start), dg.Message)
			}
			for _, decl := range prog.Decls {
				if _, dup := f.decls[decl.Name.Name]; dup {
					return nil, fmt.Errorf("%s: relation %s declared twice", p, decl.Name.Name)
				}
				f.decls[decl.Name.Name] = decl.TypeNames()
			}
		case ".facts", ".csv":
			name := strings.TrimSuffix(e.Name(), ext)
			if other, dup := seen[name]; dup {
				return nil, fmt.Errorf("%s: relation %s also has %s", p, name, other)
			}
			seen[name] = p
			ff := factsFile{rel: name, path: p, csv: ext == ".csv"}
			if mapped {
				ff.m, err = r.Map(p)
				if ff.m != nil {
					ff.src = ff.m.Bytes()
				}
			} else {
				ff.src, err = r.ReadFile(p)
			}
			if err != nil {
				return nil, fmt.Errorf("read facts: %w", err)
			}
			f.files = append(f.files, ff)
		}
	}
	if len(f.decls) == 0 && len(f.files) == 0 {
		return nil, fmt.Errorf("%s: no facts (*.facts, *.csv) or relation declarations (*.dl) found", dir)
	}
	slices.SortFunc(f.files, func(a, b factsFile) int { return strings.Compare(a.rel, b.rel) })
	return f, nil
}

// arity returns the number of values of the file's tuples and their
// types: the declaration's, or as many "" as the first record has values
// (none for a file of empty lines; false for an undeclared empty file).
func (f *Facts) arity(ff *factsFile) ([]string, bool, error) {
	if types, ok := f.decls[ff.rel]; ok {
		return types, true, nil
	}
	rd := newRecordReader(ff, bytesString(ff.src))
	for rd.i < len(rd.src) {
		vals, blank, err := rd.next(nil)
		if err != nil {
			return nil, false, fmt.Errorf("%s:%d: %w", ff.path, rd.line, err)
		}
		if !blank {
			return make([]string, len(vals)), true, nil
		}
	}
	// Only empty lines: a nullary relation that holds.
	return []string{}, len(ff.src) > 0, nil
}

// bytesString returns b as a string without a copy; nothing may modify b
// while the string is used.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func newRecordReader(ff *factsFile, src string) recordReader {
	rd := recordReader{src: src, csv: ff.csv, sep: '\t'}
	if ff.csv {
		rd.sep = ','
	}
	return rd
}

// records calls fn with the values of each tuple of src, the text of ff,
// in order, each tuple checked to have want values. The values are slices
// of src (or, for a quoted CSV value with doubled quotes, fresh strings);
// fn may not keep the slice.
func (f *Facts) records(ctx context.Context, ff *factsFile, src string, want int, fn func([]string)) error {
	rd := newRecordReader(ff, src)
	vals := make([]string, 0, max(want, 1))
	for n := 1; rd.i < len(src); n++ {
		if n%checkTuples == 0 {
			if err := loadStopped(ctx); err != nil {
				return err
			}
		}
		var blank bool
		var err error
		vals, blank, err = rd.next(vals[:0])
		if err != nil {
			return fmt.Errorf("%s:%d: %w", ff.path, rd.line, err)
		}
		if blank {
			if want != 0 {
				continue
			}
			vals = vals[:0]
		}
		if len(vals) != want {
			return fmt.Errorf("%s:%d: %d values, want %d", ff.path, rd.line, len(vals), want)
		}
		fn(vals)
	}
	return nil
}

// recordReader splits the text of a facts file into records.
type recordReader struct {
	src   string
	i     int  // the next record's first byte
	line  int  // the line the last record started on
	lines int  // the lines read so far
	sep   byte // '\t' or ','
	csv   bool
}

// next appends the values of the record at rd.i to vals and moves past it;
// blank reports an empty line.
func (rd *recordReader) next(vals []string) ([]string, bool, error) {
	rd.line = rd.lines + 1
	s := rd.src[rd.i:]
	end := strings.IndexByte(s, '\n')
	var text string
	if end < 0 {
		text, end = s, len(s)
	} else {
		text = s[:end]
		end++
	}
	if rd.csv && strings.IndexByte(text, '"') >= 0 {
		return rd.quoted(vals)
	}
	rd.i += end
	rd.lines++
	if len(text) > 0 && text[len(text)-1] == '\r' {
		text = text[:len(text)-1]
	}
	if text == "" {
		return vals, true, nil
	}
	for {
		k := strings.IndexByte(text, rd.sep)
		if k < 0 {
			return append(vals, text), false, nil
		}
		vals = append(vals, text[:k])
		text = text[k+1:]
	}
}

// quoted reads a CSV record that has a double quote: a value that starts
// with one ends at the next quote not doubled, and may hold separators and
// line breaks.
func (rd *recordReader) quoted(vals []string) ([]string, bool, error) {
	s, i := rd.src, rd.i
	for {
		if i < len(s) && s[i] == '"' {
			var b []byte
			i++
			start := i
			for {
				k := strings.IndexByte(s[i:], '"')
				if k < 0 {
					return vals, false, fmt.Errorf("a quoted value has no closing quote")
				}
				rd.lines += strings.Count(s[i:i+k], "\n")
				if i+k+1 < len(s) && s[i+k+1] == '"' {
					b = append(b, s[start:i+k+1]...)
					i += k + 2
					start = i
					continue
				}
				var v string
				if b == nil {
					v = s[start : i+k]
				} else {
					v = string(append(b, s[start:i+k]...))
				}
				vals = append(vals, v)
				i += k + 1
				break
			}
		} else {
			start := i
			for i < len(s) && s[i] != rd.sep && s[i] != '\n' && s[i] != '\r' && s[i] != '"' {
				i++
			}
			if i < len(s) && s[i] == '"' {
				return vals, false, fmt.Errorf("a double quote inside an unquoted value")
			}
			vals = append(vals, s[start:i])
		}
		switch {
		case i == len(s):
			rd.i = i
			rd.lines++
			return vals, false, nil
		case s[i] == rd.sep:
			i++
		case s[i] == '\n' || (s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n') || (s[i] == '\r' && i+1 == len(s)):
			if s[i] == '\r' {
				i++
			}
			rd.i = min(i+1, len(s))
			rd.lines++
			return vals, false, nil
		default:
			return vals, false, fmt.Errorf("unexpected %q after a quoted value", s[i])
		}
	}
}

// Data returns the tuples of the directory as Data.
func (f *Facts) Data(ctx context.Context) (*Data, error) {
	d := &Data{Relations: map[string]*RelationData{}}
	for name, types := range f.decls {
		d.Relations[name] = &RelationData{ParamTypes: slices.Clone(types), Tuples: [][]string{}}
	}
	for i := range f.files {
		ff := &f.files[i]
		types, ok, err := f.arity(ff)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		rel := d.Relations[ff.rel]
		if rel == nil {
			rel = &RelationData{ParamTypes: types, Tuples: [][]string{}}
			d.Relations[ff.rel] = rel
		}
		// One copy of the text, which the tuples' values slice.
		err = f.records(ctx, ff, string(ff.src), len(types), func(vals []string) {
			rel.Tuples = append(rel.Tuples, slices.Clone(vals))
		})
		if err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Load interns the directory's tuples into a new DB, as LoadJSON does a
// JSON text's: each value interned as it is read, duplicate tuples
// dropped.
func (f *Facts) Load(ctx context.Context) (*DB, error) {
	if err := loadStopped(ctx); err != nil {
		return nil, err
	}
	size := 0
	for _, ff := range f.files {
		size += len(ff.src)
	}
	db := &DB{ids: newInterner(size / 64), rels: map[string]*relation{}, base: map[*table]map[string]*index{}}
	sc := &scanner{db: db}
	last := make([]lastVal, maxFastValues)
	for i := range f.files {
		ff := &f.files[i]
		var types []string
		var ok bool
		err := guard(func() (err error) {
			types, ok, err = f.arity(ff)
			return err
		})
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		ar := len(types)
		sr := &scanRel{types: slices.Clone(types)}
		clear(last)
		tuples := 0
		if usePipe(len(ff.src), f.pipeMin) {
			sc.startPipe()
		}
		err = guard(func() error {
			err := f.records(ctx, ff, bytesString(ff.src), ar, func(vals []string) {
				for j, v := range vals {
					sc.value(sr, last, j, v)
				}
				tuples++
			})
			sc.resolve(sr)
			return err
		})
		if perr := sc.stopPipe(); err == nil {
			err = perr
		}
		if err != nil {
			return nil, err
		}
		if err := loadStopped(ctx); err != nil {
			return nil, err
		}
		if err := db.addLoaded(ctx, ff.rel, sr.types, tuples, sr.vals); err != nil {
			return nil, err
		}
	}
	for name, types := range f.decls {
		if _, ok := db.rels[name]; !ok {
			tab := newTable(len(types))
			db.rels[name] = &relation{types: slices.Clone(types), tab: tab}
			db.base[tab] = map[string]*index{}
		}
	}
	// Cancelled while its last file was added: cancelled too.
	if err := loadStopped(ctx); err != nil {
		return nil, err
	}
	return db, nil
}
