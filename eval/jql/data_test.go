package jql

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

// TestDirectoryDomainUnreadable: in a data directory, a domain file that
// exists but cannot be read — a link out of the confined directory, a link
// to a device, a directory — is a DataError naming it, never an empty
// domain; a domain without any file is empty, and a dangling link is a
// missing file.
func TestDirectoryDomainUnreadable(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "outside.jsonl")
	if err := os.WriteFile(out, []byte(`{"id":"SECRET","type":"planGenerated"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(base, "proj")
	mk := func(name string, setup func(dir string) error) string {
		dir := filepath.Join(proj, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := setup(dir); err != nil {
			t.Skipf("setup %s: %v", name, err)
		}
		return dir
	}
	linkOut := mk("linkout", func(d string) error { return os.Symlink(out, filepath.Join(d, "activities.jsonl")) })
	// A link out shadowing a readable file of a later extension.
	shadow := mk("shadow", func(d string) error {
		os.WriteFile(filepath.Join(d, "activities.json"), []byte(`[]`), 0o644)
		return os.Symlink(out, filepath.Join(d, "activities.jsonl"))
	})
	zero := mk("zero", func(d string) error { return os.Symlink("/dev/zero", filepath.Join(d, "activities.jsonl")) })
	isDir := mk("isdir", func(d string) error { return os.Mkdir(filepath.Join(d, "activities.jsonl"), 0o755) })
	empty := mk("empty", func(string) error { return nil })
	dangling := mk("dangling", func(d string) error { return os.Symlink("nowhere.jsonl", filepath.Join(d, "activities.jsonl")) })

	fr, err := files.Confined(proj, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	q := `{from: 'activities'}`
	for _, c := range []struct {
		dir, want string
	}{
		{linkOut, "outside the allowed directory"},
		{shadow, "outside the allowed directory"},
		{zero, "outside the allowed directory"},
		{isDir, "not a regular file"},
	} {
		_, err := Eval(context.Background(), q, File{Path: c.dir, Files: fr})
		var de *DataError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "activities.jsonl") {
			t.Errorf("%s: got %v, want a DataError naming activities.jsonl and %q", filepath.Base(c.dir), err, c.want)
		}
	}
	// Without confinement, the device is refused as not a regular file.
	if _, err := Eval(context.Background(), q, File{Path: zero}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("unconfined /dev/zero link: %v", err)
	}
	for _, dir := range []string{empty, dangling} {
		res, err := Eval(context.Background(), q, File{Path: dir, Files: fr})
		if err != nil || len(res.Docs) != 0 {
			t.Errorf("%s: got %v, %d documents; want an empty domain", filepath.Base(dir), err, len(res.Docs))
		}
	}
}

// TestScanCancelled pins that a scan of a large data file stops with the
// context's error soon after the cancellation, in each form a file takes
// (JSON Lines, a JSON array, and an object of domains where the scan
// skips another domain's array before it reaches its own), and that a
// scan under a context that is not cancelled reads the same documents as
// one under context.Background.
func TestScanCancelled(t *testing.T) {
	const n = 100000
	doc := func(b *strings.Builder, i int) {
		fmt.Fprintf(b, `{"id":"a%07d","sessionId":"s%d","type":"planGenerated","message":"%s"}`, i, i%100, strings.Repeat("n", 40))
	}
	var lines, array, wrapped strings.Builder
	array.WriteString("[")
	wrapped.WriteString(`{"sessions": [`)
	for i := range n {
		doc(&lines, i)
		lines.WriteString("\n")
		if i > 0 {
			array.WriteString(",")
			wrapped.WriteString(",")
		}
		doc(&array, i)
		doc(&wrapped, i)
	}
	array.WriteString("]")
	wrapped.WriteString(`], "activities": [` + strings.TrimPrefix(array.String(), "[") + "}")
	dir := t.TempDir()
	// Each form is scanned as many times as makes the work long enough
	// for the cancellation to land in it.
	for _, c := range []struct {
		name, src string
		passes    int
	}{{"lines.jsonl", lines.String(), 8}, {"array.json", array.String(), 1}, {"wrapped.json", wrapped.String(), 2}} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		scan := func(ctx context.Context) (int, uint64, error) {
			count, sum := 0, uint64(0)
			err := File{Path: path}.Scan(ctx, "activities", func(raw []byte) error {
				count++
				for _, c := range raw {
					sum = sum*31 + uint64(c)
				}
				return nil
			})
			return count, sum, err
		}
		t.Run(c.name, func(t *testing.T) {
			wantN, wantSum, err := scan(context.Background())
			if err != nil || wantN != n {
				t.Fatalf("scan: %d documents, %v; want %d", wantN, err, n)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if gotN, gotSum, err := scan(ctx); err != nil || gotN != wantN || gotSum != wantSum {
				t.Fatalf("scan under a live context: %d documents (sum %x), %v; want %d (sum %x)", gotN, gotSum, err, wantN, wantSum)
			}
			canceltest.Stops(t, func(ctx context.Context) error {
				for range c.passes {
					if _, _, err := scan(ctx); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}
