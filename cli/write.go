package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/ctxql/ctxql/internal/atomicfile"
	"github.com/ctxql/ctxql/internal/files"
)

// Default size limits of the files a command reads: sources (queries,
// rules, configuration) and sample or evaluation data.
const (
	DefaultMaxFileBytes = 32 << 20 // 32 MiB
	DefaultMaxDataBytes = 2 << 30  // 2 GiB
)

// fileLimits is the --max-file-bytes flag of the commands that read sources.
type fileLimits struct{ maxBytes int64 }

// register adds --max-file-bytes to fs.
func (l *fileLimits) register(fs *pflag.FlagSet) {
	fs.Int64Var(&l.maxBytes, "max-file-bytes", DefaultMaxFileBytes, "largest source file read, in bytes (0: no limit)")
}

// reader opens sources: regular files only, within the limit.
func (l *fileLimits) reader() *files.Reader {
	if l == nil {
		return files.New(DefaultMaxFileBytes, "--max-file-bytes")
	}
	return files.New(l.maxBytes, "--max-file-bytes")
}

// readStdin reads standard input under the source size limit.
func (l *fileLimits) readStdin(r io.Reader) ([]byte, error) {
	return l.reader().ReadAll("standard input", r)
}

// dataReaderKey is the context key of the reader of evaluation data.
type dataReaderKey struct{}

// withDataReader returns ctx carrying the reader "eval --data" opens with.
func withDataReader(ctx context.Context, r *files.Reader) context.Context {
	return context.WithValue(ctx, dataReaderKey{}, r)
}

// dataFiles returns the reader of evaluation data carried by ctx: regular
// files only, at most --max-data-bytes each.
func dataFiles(ctx context.Context) *files.Reader {
	if ctx != nil {
		if r, ok := ctx.Value(dataReaderKey{}).(*files.Reader); ok {
			return r
		}
	}
	return files.New(DefaultMaxDataBytes, "--max-data-bytes")
}

// sourceFiles returns the reader of query and rule files named on the
// command line of "eval".
func sourceFiles(context.Context) *files.Reader {
	return files.New(DefaultMaxFileBytes, "")
}

// writeAtomic replaces the file at path with data so that it holds the old
// or the new content whatever happens (atomicfile.Write): through a
// symbolic link to its target, keeping the mode, refusing a read-only file.
func writeAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data)
}

// writeFile writes a command's result for path unless ctx was cancelled:
// an interrupted run writes nothing more.
func writeFile(ctx context.Context, path string, data []byte) error {
	if ctx != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return writeAtomic(path, data)
}

// readError reports a source the command could not read (not a regular
// file, over the size limit, missing) on stderr in the form
// "ctxql CMD: PATH: reason"; the command goes on with the other files and
// exits 2 at the end.
func readError(env Env, cmd string, err error) {
	fmt.Fprintf(env.Stderr, "ctxql %s: %v\n", cmd, err)
}

// interrupted reports whether err is the cancellation of an interrupted
// run.
func interrupted(ctx context.Context, err error) bool {
	return ctx != nil && ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}
