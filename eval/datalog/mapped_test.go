package datalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/ctxql/ctxql/internal/files"
)

// mappedCase is generated JSON data large enough for files.Map to map it
// (and for the pipelined load), with the pipe cases' shapes.
func mappedCase(t *testing.T) string {
	t.Helper()
	cases := pipeCases()
	src := cases[len(cases)-1]
	for len(src) < 2<<20 {
		// More relations of the same tuples, under other names.
		src = strings.Replace(src, `{"relations": {`, `{"relations": {"path`+strings.Repeat("x", len(src)%7+1)+`": `+relationText(t, src)+`, `, 1)
	}
	return src
}

// relationText is the text of the first relation of src (its path
// relation).
func relationText(t *testing.T, src string) string {
	t.Helper()
	start := strings.Index(src, `{"param_types"`)
	end := strings.Index(src, `]]}`)
	if start < 0 || end < start {
		t.Fatal("no path relation in the case")
	}
	return src[start : end+3]
}

// TestLoadPathMapped loads a JSON file through a mapping (LoadPath) and
// checks it gives the DB the bytes in the heap give, with the mapping
// released: every string of the DB is read after LoadPath returned, on a
// goroutine that turns a fault into a test failure instead of a crash.
func TestLoadPathMapped(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	src := mappedCase(t)
	p := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := files.New(0, "").Map(p)
	if err != nil {
		t.Fatal(err)
	}
	mapped := m.IsMapped()
	m.Close()
	if !mapped && (runtime.GOOS == "linux" || runtime.GOOS == "darwin") {
		t.Fatalf("a file of %d bytes is not mapped", len(src))
	}
	want, err := LoadJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	db, err := LoadPath(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(db)
	if err != nil {
		t.Fatalf("the DB reads the released mapping: %v", err)
	}
	if got != dump(want) {
		t.Errorf("the mapped load differs from the load of the bytes:\n%.300s\nwant:\n%.300s", got, dump(want))
	}
	if !slices.Equal(db.strs, want.strs) {
		t.Error("the mapped load interns the strings in another order")
	}
}

// TestLoadTruncatedMapping loads a mapped file truncated after it was
// mapped: the load returns files.ErrTruncated, and the process goes on.
func TestLoadTruncatedMapping(t *testing.T) {
	m := truncatedMapping(t, 4096)
	for _, pipeMin := range []int{-1, 0} {
		if _, err := loadJSON(context.Background(), m.Bytes(), pipeMin); !errors.Is(err, files.ErrTruncated) {
			t.Errorf("pipeMin %d: err = %v, want ErrTruncated", pipeMin, err)
		}
	}
}

// TestPipeFault hands the interning goroutine a value whose text lies in
// a truncated mapping, past what the scanner read: stopPipe reports the
// fault, and the goroutine takes what it is sent after it.
func TestPipeFault(t *testing.T) {
	m := truncatedMapping(t, 0)
	b := m.Bytes()
	db := &DB{ids: newInterner(16), rels: map[string]*relation{}, base: map[*table]map[string]*index{}}
	sc := &scanner{db: db}
	sc.startPipe()
	sr := &scanRel{}
	sc.setVals(sr, true)
	for i := range 3 * pipeBatch {
		// The value's text, not read here: its bytes are gone.
		s := unsafe.String(&b[8192+i%100], 20)
		sc.pend = append(sc.pend, pendingVal{s: s, h: uint64(i), at: sr.n, from: -1})
		sr.n++
		if len(sc.pend) == pipeBatch {
			sc.ship(sr, len(sc.pend))
		}
	}
	if err := sc.stopPipe(); !errors.Is(err, files.ErrTruncated) {
		t.Fatalf("stopPipe: err = %v, want ErrTruncated", err)
	}
}

// factsDir writes a facts directory whose files are large enough to be
// mapped: a .facts file, a .csv file with quoted values, a declaration.
func factsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var tsv, csv strings.Builder
	for i := range 150000 {
		fmt.Fprintf(&tsv, "g%d\tv%d\n", i/7, i*13%5000)
		fmt.Fprintf(&csv, "\"c,%d\",w%d\n", i%900, i)
	}
	for name, text := range map[string]string{"e.facts": tsv.String(), "f.csv": csv.String(), "decl.dl": "relation e(A, B);\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoadPathMappedFacts is TestLoadPathMapped for a facts directory:
// LoadPath maps its files, and gives the DB ReadFacts and Load give, with
// the mappings released; MapFacts' Close releases them.
func TestLoadPathMappedFacts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	dir := factsDir(t)
	ctx := context.Background()
	f, err := MapFacts(ctx, files.New(0, ""), dir)
	if err != nil {
		t.Fatal(err)
	}
	mapped := 0
	for _, ff := range f.files {
		if ff.m != nil && ff.m.IsMapped() {
			mapped++
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ff := range f.files {
		if ff.m != nil || ff.src != nil {
			t.Errorf("%s kept after Close", ff.path)
		}
	}
	if mapped != 2 && (runtime.GOOS == "linux" || runtime.GOOS == "darwin") {
		t.Fatalf("%d of the 2 files of tuples mapped", mapped)
	}
	rf, err := ReadFacts(ctx, files.New(0, ""), dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rf.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, err := LoadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(db)
	if err != nil {
		t.Fatalf("the DB reads the released mappings: %v", err)
	}
	if got != dump(want) || !slices.Equal(db.strs, want.strs) {
		t.Errorf("the mapped load differs from the load of the files read:\n%.300s\nwant:\n%.300s", got, dump(want))
	}
}

// TestLoadTruncatedMappedFacts truncates a mapped facts file before the
// load: the load returns files.ErrTruncated.
func TestLoadTruncatedMappedFacts(t *testing.T) {
	dir := factsDir(t)
	for _, pipeMin := range []int{-1, 0} {
		f, err := MapFacts(context.Background(), files.New(0, ""), dir)
		if err != nil {
			t.Fatal(err)
		}
		if !f.files[0].m.IsMapped() {
			f.Close()
			t.Skip("files are not mapped here")
		}
		if err := os.WriteFile(filepath.Join(dir, "e.facts"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		f.pipeMin = pipeMin
		if _, err := f.Load(context.Background()); !errors.Is(err, files.ErrTruncated) {
			t.Errorf("pipeMin %d: err = %v, want ErrTruncated", pipeMin, err)
		}
		f.Close()
		dir = factsDir(t)
	}
}

// readAll reads every string of db and returns its dump, or the fault of
// reading a released mapping as an error.
func readAll(db *DB) (got string, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			err = files.Fault(v)
		}
	}()
	for _, s := range db.strs {
		_ = strings.Clone(s)
	}
	return dump(db), nil
}

// truncatedMapping maps a file of mappedCase's program and truncates the
// file to size bytes once mapped; it skips the test where files are not
// mapped. The mapping is released when the test ends.
func truncatedMapping(t *testing.T, size int64) *files.Mapped {
	t.Helper()
	p := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(p, []byte(mappedCase(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := files.New(0, "").Map(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if !m.IsMapped() {
		t.Skip("files are not mapped here")
	}
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
	return m
}
