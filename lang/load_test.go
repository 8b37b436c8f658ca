package lang

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/canceltest"
	"github.com/ctxql/ctxql/internal/files"
)

// TestLoadCancelled pins that Load, LoadBytes and LoadOnce pass their context to
// every language's loader: a load whose context is done returns an error
// matching the context's, which is not a *DataError (the doors report it
// as a cancellation or a time-out, not as invalid data); a large load
// stops soon after its cancellation; invalid data stays a *DataError.
func TestLoadCancelled(t *testing.T) {
	paths := sample(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	for _, l := range Queries() {
		src, err := os.ReadFile(paths[l.ID])
		if err != nil {
			t.Fatal(err)
		}
		for _, ctx := range []context.Context{cancelled, expired} {
			_, err := l.Load(ctx, nil, paths[l.ID])
			_, errb := l.LoadBytes(ctx, paths[l.ID], src)
			for _, err := range []error{err, errb} {
				var de *DataError
				if !errors.Is(err, ctx.Err()) || errors.As(err, &de) {
					t.Errorf("%s: a load under a done context: err = %#v, want %v and no *DataError", l.ID, err, ctx.Err())
				}
			}
		}
	}

	dir := t.TempDir()
	big := map[ID]string{PACT: bigPACT(), Datalog: canceltest.DatalogJSON(500000)}
	for id, src := range big {
		l := ByID(id)
		path := filepath.Join(dir, string(id)+".json")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(string(id), func(t *testing.T) {
			canceltest.Stops(t, func(ctx context.Context) error {
				_, err := l.Load(ctx, (*files.Reader)(nil), path)
				return err
			})
			canceltest.Stops(t, func(ctx context.Context) error {
				_, err := l.LoadBytes(ctx, path, []byte(src))
				return err
			})
			canceltest.Stops(t, func(ctx context.Context) error {
				_, err := l.LoadOnce(ctx, (*files.Reader)(nil), path)
				return err
			})
			bad := src[:len(src)/2]
			_, err := l.LoadBytes(context.Background(), path, []byte(bad))
			var de *DataError
			if !errors.As(err, &de) {
				t.Errorf("truncated data: err = %v, want a *DataError", err)
			}
		})
	}
}

// bigPACT is a snapshot of 200,000 nodes (about 20 MB).
func bigPACT() string {
	var b strings.Builder
	b.WriteString(`{"root": {"id": "root", "nodeType": "root", "children": [`)
	for i := range 200000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id": "n%d", "nodeType": "cb", "ttl": %d, "content": "block %d of the snapshot"}`, i, i%7, i)
	}
	b.WriteString(`]}}`)
	return b.String()
}
