package resultdiff

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestMatch(t *testing.T) {
	q := func(keys ...string) []query {
		var out []query
		for _, k := range keys {
			out = append(out, query{key: k})
		}
		return out
	}
	old, new := q("a", "b", "c", "d"), q("x", "a", "c", "y", "z")
	var got [][2]string
	for _, m := range match(old, new) {
		var p [2]string
		if m[0] != nil {
			p[0] = m[0].key
		}
		if m[1] != nil {
			p[1] = m[1].key
		}
		got = append(got, p)
	}
	// Equal texts pair first; the edited ones pair in order (b→x, d→y);
	// z is new.
	want := [][2]string{{"b", "x"}, {"a", "a"}, {"c", "c"}, {"d", "y"}, {"", "z"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("match = %v, want %v", got, want)
	}
	if m := match(q("a", "b"), q("a")); len(m) != 2 || m[1][0].key != "b" || m[1][1] != nil {
		t.Errorf("a removed query: %v", m)
	}
}

func TestSetDiff(t *testing.T) {
	added, removed := setDiff([]string{"a", "b", "b", "c"}, []string{"c", "d", "a", "d"})
	if !reflect.DeepEqual(added, []string{"d"}) || !reflect.DeepEqual(removed, []string{"b"}) {
		t.Errorf("added %v removed %v", added, removed)
	}
}

// TestUntarStaysInside: archive entries that climb out of the directory are
// skipped.
func TestUntarStaysInside(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range []string{"../evil", "/abs/evil", "ok/file"} {
		tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Size: 1, Mode: 0o644})
		tw.Write([]byte("x"))
	}
	tw.Close()
	parent := t.TempDir()
	dir := filepath.Join(parent, "tree")
	os.Mkdir(dir, 0o755)
	if err := untar(context.Background(), &buf, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ok", "file")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(parent, "evil")); err == nil {
		t.Error("an entry was written outside the directory")
	}
	if _, err := os.Stat(filepath.Join(dir, "abs", "evil")); err == nil {
		t.Error("an absolute entry was written")
	}
}
