package datalog

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/files"
)

// factsCase is random data written three ways: a JSON data file, a facts
// directory of .facts files and one of .csv files.
type factsCase struct {
	data          *Data
	json          []byte
	tsvDir, csvDr string
}

// newFactsCase generates relations of arity 0 to 3 whose values include
// empty strings, spaces, non-ASCII text and, in CSV, commas, double quotes
// and line breaks; declared is whether the directories have a .dl file
// with the types (otherwise every relation has a file and no types).
func newFactsCase(t *testing.T, seed uint64, declared bool) *factsCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 36))
	plain := []string{"a", "b", "x y", "é", "10", "2", "-0", "{ p1 | q }", "a'b", "z"}
	special := []string{"a,b", `say "hi"`, "two\nlines", `""`, ","}
	c := &factsCase{data: &Data{Relations: map[string]*RelationData{}}, tsvDir: t.TempDir(), csvDr: t.TempDir()}
	var decls strings.Builder
	for r := range 4 + rng.IntN(3) {
		name := string(rune('p'+r)) + "rel"
		ar := rng.IntN(4)
		if r == 0 {
			ar = 0
		}
		types := make([]string, ar)
		for j := range types {
			if declared {
				types[j] = []string{"Sym", "u32", "String"}[rng.IntN(3)]
			}
		}
		rd := &RelationData{ParamTypes: types, Tuples: [][]string{}}
		var tsv, cs strings.Builder
		cw := csv.NewWriter(&cs)
		n := rng.IntN(40)
		if !declared || ar == 0 {
			n++ // an undeclared relation needs a tuple for its arity
		}
		for range n {
			tu := make([]string, ar)
			for j := range tu {
				tu[j] = plain[rng.IntN(len(plain))]
				if rng.IntN(8) == 0 && (ar > 1 || j > 0) {
					tu[j] = ""
				}
			}
			rd.Tuples = append(rd.Tuples, tu)
			tsv.WriteString(strings.Join(tu, "\t"))
			if rng.IntN(5) == 0 {
				tsv.WriteByte('\r')
			}
			tsv.WriteByte('\n')
			if ar == 0 {
				cs.WriteString("\n")
				continue
			}
			if err := cw.Write(tu); err != nil {
				t.Fatal(err)
			}
		}
		cw.Flush()
		if declared {
			decls.WriteString("relation " + name + "(" + strings.Join(types, ", ") + ");\n")
		}
		if ar == 0 && n > 0 {
			// A nullary fact: one empty line.
			tsv.Reset()
			tsv.WriteString("\n")
			cs.Reset()
			cs.WriteString("\n")
			rd.Tuples = rd.Tuples[:1]
		}
		c.data.Relations[name] = rd
		write(t, filepath.Join(c.tsvDir, name+".facts"), tsv.String())
		write(t, filepath.Join(c.csvDr, name+".csv"), cs.String())
	}
	// A CSV relation with the values TSV cannot hold.
	sp := &RelationData{ParamTypes: []string{"", ""}, Tuples: [][]string{}}
	tsvDecls := decls.String()
	if declared {
		sp.ParamTypes = []string{"Sym", "Sym"}
		decls.WriteString("relation special(Sym, Sym);\n")
	}
	var cs strings.Builder
	cw := csv.NewWriter(&cs)
	for range 20 {
		tu := []string{special[rng.IntN(len(special))], plain[rng.IntN(len(plain))]}
		if rng.IntN(2) == 0 {
			tu[0], tu[1] = tu[1], tu[0]
		}
		sp.Tuples = append(sp.Tuples, tu)
		if err := cw.Write(tu); err != nil {
			t.Fatal(err)
		}
	}
	cw.Flush()
	c.data.Relations["special"] = sp
	write(t, filepath.Join(c.csvDr, "special.csv"), cs.String())
	if declared {
		write(t, filepath.Join(c.tsvDir, "types.dl"), tsvDecls)
		write(t, filepath.Join(c.csvDr, "types.dl"), decls.String())
	}
	b, err := json.Marshal(c.data)
	if err != nil {
		t.Fatal(err)
	}
	c.json = b
	return c
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFactsAgreeWithJSON is the differential test of the facts loader:
// a directory of .facts files and one of .csv files (written by
// encoding/csv) load the same relations, types and tuples as the same
// data in JSON, through both the scanning loader and Data, and programs
// over them print the same result.
func TestFactsAgreeWithJSON(t *testing.T) {
	ctx := context.Background()
	r := files.New(0, "")
	for seed := range uint64(30) {
		c := newFactsCase(t, seed, seed%2 == 0)
		jdb, err := LoadJSON(c.json)
		if err != nil {
			t.Fatal(err)
		}
		want := dump(jdb)
		// The same data without the relation only the CSV directory has.
		delete(c.data.Relations, "special")
		b, _ := json.Marshal(c.data)
		tdb, err := LoadJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		wantTSV := dump(tdb)
		for _, dc := range []struct {
			dir, want string
		}{{c.tsvDir, wantTSV}, {c.csvDr, want}} {
			db, err := LoadPathFrom(r, dc.dir)
			if err != nil {
				t.Fatalf("seed %d: %s: %v", seed, dc.dir, err)
			}
			if got := dump(db); got != dc.want {
				t.Fatalf("seed %d: %s loads\n%s\nwant (JSON)\n%s", seed, filepath.Base(dc.dir), got, dc.want)
			}
			d, err := ReadFactsDirFrom(r, dc.dir)
			if err != nil {
				t.Fatal(err)
			}
			ddb, err := Load(d)
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(ddb); got != dc.want {
				t.Fatalf("seed %d: ReadFactsDir of %s gives\n%s\nwant\n%s", seed, filepath.Base(dc.dir), got, dc.want)
			}
			ref := jdb
			if dc.dir == c.tsvDir {
				ref = tdb
			}
			for _, prog := range []string{
				"out(x, y) <-- qrel(x, y). out(x, y) <-- qrel(x, z), out(z, y).",
				"n(x) <-- rrel(x, _, _), !qrel(x, _).",
			} {
				a, errA := EvalProgram(ctx, ref, "p", prog)
				b, errB := EvalProgram(ctx, db, "p", prog)
				if errA != nil || errB != nil {
					t.Fatal(errA, errB)
				}
				ja, _ := json.Marshal(a.Relations)
				jb, _ := json.Marshal(b.Relations)
				if string(ja) != string(jb) || len(a.Diagnostics) != len(b.Diagnostics) {
					t.Fatalf("seed %d: %s over the facts gives %s %v, over JSON %s %v", seed, prog, jb, b.Diagnostics, ja, a.Diagnostics)
				}
			}
		}
	}
}

// TestFactsErrors pins the messages of malformed facts directories.
func TestFactsErrors(t *testing.T) {
	r := files.New(0, "")
	for _, tc := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{}, "no facts (*.facts, *.csv) or relation declarations (*.dl) found"},
		{map[string]string{"d.dl": "relation e(A, B);", "e.facts": "a\tb\nc\n"}, "e.facts:2: 1 values, want 2"},
		{map[string]string{"e.facts": "a\tb\n\nc\td\te\n"}, "e.facts:3: 3 values, want 2"},
		{map[string]string{"e.csv": "a,\"b\n"}, "e.csv:1: a quoted value has no closing quote"},
		{map[string]string{"e.csv": "a,b\"c\n"}, "e.csv:1: a double quote inside an unquoted value"},
		{map[string]string{"e.csv": "\"a\"b,c\n"}, "e.csv:1: unexpected 'b' after a quoted value"},
		{map[string]string{"e.csv": "a,b\n", "e.facts": "a\tb\n"}, "relation e also has"},
	} {
		dir := t.TempDir()
		for name, text := range tc.files {
			write(t, filepath.Join(dir, name), text)
		}
		_, err := LoadPathFrom(r, dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.files, err, tc.want)
		}
		if _, err2 := ReadFactsDirFrom(r, dir); (err2 == nil) != (err == nil) {
			t.Errorf("%v: ReadFactsDir err = %v, LoadPath err = %v", tc.files, err2, err)
		}
	}
}
