package datalog

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxql/ctxql/syntax"
)

// goldenSources returns the files named one of names in the Datalog
// goldens of dirs (under testdata/datalog), in order.
func goldenSources(t *testing.T, dirs []string, names ...string) []string {
	t.Helper()
	var srcs []string
	for _, dir := range dirs {
		paths, err := filepath.Glob("../../testdata/datalog/" + dir + "/*.txtar")
		if err != nil || len(paths) == 0 {
			t.Fatalf("no %s goldens: %v", dir, err)
		}
		for _, p := range paths {
			a, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range a.Files {
				if slices.Contains(names, f.Name) {
					srcs = append(srcs, string(f.Data))
				}
			}
		}
	}
	return srcs
}

// TestParseProgramInReusesArena parses every parse golden's input, and a
// program large enough for several chunks of each node, with one arena
// reset between programs, three rounds over, and compares each dump and
// diagnostic list with ParseProgram's, and the check of each program
// without syntax errors (CheckIn in the same arena) with Check's: memory
// reused from the programs before changes nothing.
func TestParseProgramInReusesArena(t *testing.T) {
	srcs := goldenSources(t, []string{"parse"}, "input")
	var big strings.Builder
	big.WriteString("// a program of many rules\nrelation edge(i32, i32);\n")
	for i := range 2000 {
		big.WriteString("p(x, z) <-- edge(x, y), edge(y, z), if x + 1 != z * 2; // rule\n")
		if i%500 == 0 {
			big.WriteString("q(x) <-- edge(x, \"a\\n\"), !edge(x, 3);\n")
		}
	}
	srcs = append(srcs, big.String(), "p(x) <-- q(x", "")
	var ar Arena
	for round := range 3 {
		for i, src := range srcs {
			want := ParseProgram("input", src)
			ar.Reset()
			got := ParseProgramIn(&ar, "input", src)
			if w, g := dumpProgram(want), dumpProgram(got); w != g {
				t.Fatalf("round %d, program %d: the dump differs with a reused arena:\n%s\nwant:\n%s", round, i, g, w)
			}
			if w, g := dumpDiags(want.File, want.Diagnostics), dumpDiags(got.File, got.Diagnostics); w != g {
				t.Fatalf("round %d, program %d: diagnostics differ with a reused arena:\n%s\nwant:\n%s", round, i, g, w)
			}
			if len(got.Tokens) != len(want.Tokens) {
				t.Fatalf("round %d, program %d: %d tokens, want %d", round, i, len(got.Tokens), len(want.Tokens))
			}
			if syntax.HasErrors(want.Diagnostics) {
				continue
			}
			if w, g := Check(want, nil), CheckIn(&ar, got, nil); !reflect.DeepEqual(w, g) {
				t.Fatalf("round %d, program %d: the check differs with a reused arena:\n%+v\nwant:\n%+v", round, i, g, w)
			}
		}
	}
	if len(ar.terms.all) < 2 || len(ar.atoms.all) < 2 || len(ar.binaries.all) < 2 {
		t.Errorf("the arena holds %d term, %d atom and %d binary chunks: the large program should need several", len(ar.terms.all), len(ar.atoms.all), len(ar.binaries.all))
	}
}

// TestOmitVarTypes checks that a check in an arena that omits the
// variable occurrences returns what Check does but for those: the same
// findings, relations, head types and strata, for every parse and check
// golden and a large program, with the arena reused.
func TestOmitVarTypes(t *testing.T) {
	srcs := goldenSources(t, []string{"parse", "check"}, "input", "program")
	var big strings.Builder
	big.WriteString("relation edge(i32, i32);\n")
	for i := range 1000 {
		fmt.Fprintf(&big, "p%d(x, z) <-- edge(x, y), edge(y, z), if x != z;\n", i)
		fmt.Fprintf(&big, "q%d(x) <-- p%d(x, \"a\"), !edge(x, 3);\n", i, i)
	}
	srcs = append(srcs, big.String())
	var ar Arena
	ar.OmitVarTypes()
	checked := 0
	for round := range 2 {
		for i, src := range srcs {
			want := ParseProgram("input", src)
			if syntax.HasErrors(want.Diagnostics) {
				continue
			}
			w := Check(want, nil)
			w.Vars = nil
			ar.Reset()
			g := CheckIn(&ar, ParseProgramIn(&ar, "input", src), nil)
			if !reflect.DeepEqual(w, g) {
				t.Fatalf("round %d, program %d: the check without variable types differs:\n%+v\nwant:\n%+v", round, i, g, w)
			}
			checked++
		}
	}
	t.Logf("%d checks compared", checked)
	if checked < 20 {
		t.Fatalf("only %d programs checked", checked)
	}
}
