package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/itchyny/gojq"
)

// JQLimits bound a jq query: gojq cannot bound memory, so the number and
// total encoded size of results are capped and the run has a deadline.
type JQLimits struct {
	Timeout    time.Duration // 0 means DefaultJQTimeout
	MaxResults int           // 0 means DefaultJQMaxResults
	MaxBytes   int           // 0 means DefaultJQMaxBytes
}

// Default jq limits.
const (
	DefaultJQTimeout    = 5 * time.Second
	DefaultJQMaxResults = 10000
	DefaultJQMaxBytes   = 16 << 20
)

// ErrJQLimit is wrapped by errors reporting an exceeded result cap or
// timeout.
var ErrJQLimit = errors.New("jq limit exceeded")

// JQ is a compiled, sandboxed jq query.
type JQ struct {
	code *gojq.Code
	src  string
}

// CompileJQ parses and compiles a jq expression in a sandbox: the
// environment is empty ($ENV and env yield {}), no module loader is
// installed (import and include fail), and no input iterator is wired (input
// and inputs fail). Variables named in vars are bound, in order, to the
// values passed to Run.
func CompileJQ(src string, vars ...string) (*JQ, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("jq: %w", err)
	}
	code, err := gojq.Compile(q,
		gojq.WithEnvironLoader(func() []string { return nil }),
		gojq.WithVariables(vars),
	)
	if err != nil {
		return nil, fmt.Errorf("jq: %w", err)
	}
	return &JQ{code: code, src: src}, nil
}

// Run evaluates the query over input and returns its results, stopping at
// the first error, at the deadline or at a cap.
func (j *JQ) Run(ctx context.Context, input any, lim JQLimits, varValues ...any) ([]any, error) {
	if lim.Timeout <= 0 {
		lim.Timeout = DefaultJQTimeout
	}
	if lim.MaxResults <= 0 {
		lim.MaxResults = DefaultJQMaxResults
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultJQMaxBytes
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	iter := j.code.RunWithContext(ctx, input, varValues...)
	var out []any
	size := 0
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			var he *gojq.HaltError
			if errors.As(err, &he) && he.Value() == nil {
				break
			}
			if ctx.Err() != nil {
				return out, fmt.Errorf("jq: timed out after %s: %w", lim.Timeout, ErrJQLimit)
			}
			return out, fmt.Errorf("jq: %w", err)
		}
		if len(out) >= lim.MaxResults {
			return out, fmt.Errorf("jq: more than %d results: %w", lim.MaxResults, ErrJQLimit)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return out, fmt.Errorf("jq: encode result: %w", err)
		}
		size += len(b)
		if size > lim.MaxBytes {
			return out, fmt.Errorf("jq: results larger than %d bytes: %w", lim.MaxBytes, ErrJQLimit)
		}
		out = append(out, v)
		if ctx.Err() != nil {
			return out, fmt.Errorf("jq: timed out after %s: %w", lim.Timeout, ErrJQLimit)
		}
	}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return out, fmt.Errorf("jq: timed out after %s: %w", lim.Timeout, ErrJQLimit)
	}
	return out, nil
}
