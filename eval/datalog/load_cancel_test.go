package datalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/canceltest"
	"github.com/ctxql/ctxql/internal/files"
)

// bigJSON is data of about 25 MB: two relations of 250,000 tuples each,
// one of them with values that need the general path (escapes).
func bigJSON() string {
	var b strings.Builder
	b.WriteString(`{"relations": {"edge": {"param_types": ["A", "B", "C"], "tuples": [`)
	for i := range 250000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["node-%d","node-%d","label-%d"]`, i, i*7%250000, i%97)
	}
	b.WriteString(`]}, "note": {"param_types": ["A", "T"], "tuples": [`)
	for i := range 250000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["node-%d","line\tone \u00e9 %d"]`, i, i%1000)
	}
	b.WriteString(`]}}}`)
	return b.String()
}

// TestLoadCancelled pins that each loader (the JSON scanner, the
// interning of decoded data, a facts directory) stops with the context's
// error soon after the cancellation, and that a load under a context that
// is not cancelled loads the same relations as one without a context.
func TestLoadCancelled(t *testing.T) {
	src := []byte(bigJSON())
	want, err := LoadJSON(src)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got, err := LoadJSONContext(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if dump(got) != dump(want) {
		t.Fatal("LoadJSONContext loaded other relations than LoadJSON")
	}
	if _, err := LoadJSONContext(canceled(), src); !errors.Is(err, context.Canceled) || strings.HasPrefix(err.Error(), "decode data") {
		t.Errorf("cancelled before the load: err = %v, want context.Canceled, not a decoding error", err)
	}
	t.Run("json", func(t *testing.T) {
		canceltest.Stops(t, func(ctx context.Context) error {
			_, err := LoadJSONContext(ctx, src)
			return err
		})
	})

	d, err := ReadJSON(strings.NewReader(string(src)))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("decoded", func(t *testing.T) {
		canceltest.Stops(t, func(ctx context.Context) error {
			_, err := LoadContext(ctx, d)
			return err
		})
	})

	dir := t.TempDir()
	var decl, facts strings.Builder
	decl.WriteString("relation edge(A, B, C);\n")
	for _, tu := range d.Relations["edge"].Tuples {
		facts.WriteString(strings.Join(tu, "\t") + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "decl.dl"), []byte(decl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "edge.facts"), []byte(facts.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := files.New(0, "")
	fromDir, err := LoadPathFromContext(ctx, r, dir)
	if err != nil {
		t.Fatal(err)
	}
	if wantDir, err := LoadPathFrom(r, dir); err != nil || dump(fromDir) != dump(wantDir) {
		t.Fatalf("LoadPathFromContext loaded other relations than LoadPathFrom (%v)", err)
	}
	t.Run("facts", func(t *testing.T) {
		canceltest.Stops(t, func(ctx context.Context) error {
			_, err := LoadPathFromContext(ctx, r, dir)
			return err
		})
	})
}

// canceled returns a context that is already cancelled.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
