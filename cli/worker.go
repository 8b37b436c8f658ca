package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/api"
	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/internal/process"
)

// parentPoll is how often the worker checks that its parent is alive.
const parentPoll = time.Second

// newWorkerCmd builds "ctxql worker", the library protocol over standard
// input and output for the packages that embed ctxql (the Python package).
// It is hidden from the help: people do not run it.
func newWorkerCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "worker",
		Short:  "Answer library requests as JSON lines on standard input and output",
		Long:   "Answer the requests of the library protocol (package api), one JSON object per line on standard input, with one JSON line each on standard output. Exits when standard input closes or the parent process dies.",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			// The parent is gone when the worker was handed to another
			// parent (Unix) or no process has its id any more (Windows,
			// where a process keeps its parent's id). A parent outside
			// the worker's process namespace has id 0 and is not looked
			// for.
			ppid := os.Getppid()
			return serveWorker(ctx, env.Stdin, env.Stdout, func() bool {
				return os.Getppid() != ppid || ppid > 0 && !process.Alive(ppid)
			}, parentPoll)
		},
	}
}

// workerRequest is one line of the worker's input.
type workerRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// serveWorker answers the requests read from in on out, one after the
// other in their order (a load is done before the evaluation sent after
// it), until in ends or, checked every poll even while a request runs,
// parentGone reports that the process that started the worker is gone.
func serveWorker(ctx context.Context, in io.Reader, out io.Writer, parentGone func() bool, poll time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := api.NewSession(Version, Commit)
	w := &lineWriter{w: out}
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(in, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readErr <- err
				return
			}
		}
	}()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case line := <-lines:
			var req workerRequest
			if err := json.Unmarshal(line, &req); err != nil {
				w.write(nil, nil, &api.Error{Code: api.CodeUsage, Message: "a request is a JSON object {id, method, params}: " + err.Error()})
				continue
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				res, aerr := s.Call(ctx, req.Method, req.Params)
				w.write(req.ID, res, aerr)
			}()
			for waiting := true; waiting; {
				select {
				case <-done:
					waiting = false
				case <-tick.C:
					if parentGone() {
						return nil
					}
				}
			}
		case err := <-readErr:
			if w.err != nil {
				return w.err
			}
			return err
		case <-tick.C:
			if parentGone() {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// lineWriter writes the worker's answers, one JSON object per line, whole.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// write answers the request id with res, or with aerr when it is set.
func (lw *lineWriter) write(id, res json.RawMessage, aerr *api.Error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	b.Write(id)
	if aerr != nil {
		e, err := jsonenc.Marshal(aerr)
		if err != nil {
			e = []byte(`{"code":"internal","message":"unencodable error"}`)
		}
		b.WriteString(`,"error":`)
		b.Write(e)
	} else {
		b.WriteString(`,"result":`)
		b.Write(res)
	}
	b.WriteString("}\n")
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err == nil {
		_, lw.err = lw.w.Write(b.Bytes())
	}
}
