package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/lang"
)

// EvaluateNodes is Call's evaluate for a caller that keeps the ids of a
// data set's nodes itself (the WebAssembly module, which hands each id to
// JavaScript once): a PACT selection of one snapshot returns its nodes,
// one per id of the result, in order (lang.Nodes.ID gives their ids);
// every other evaluation returns the JSON text Call returns, and nil
// nodes. The nodes are written over *buf's storage, which the caller
// reuses from one call to the next (the module's memory then stays as it
// is from one selection to the next).
func (s *Session) EvaluateNodes(ctx context.Context, params json.RawMessage, buf *[]int32) (*lang.Nodes, json.RawMessage, *Error) {
	var p EvaluateParams
	err := decode(params, &p)
	d, aerr := s.get(p.Handle)
	if err == nil && aerr != nil {
		return nil, nil, aerr
	}
	var res any
	if err == nil {
		p.nodes = buf
		res, err = evaluate(ctx, d, p.Query, p.EvalOptions)
	}
	if err == nil {
		if n, ok := res.(*lang.Nodes); ok {
			return n, nil, nil
		}
		raw, ok := res.(json.RawMessage)
		if !ok {
			// An explanation, the one result that is not JSON text.
			raw, err = jsonenc.Marshal(res)
		}
		if err == nil {
			return nil, raw, nil
		}
	}
	if errors.As(err, &aerr) {
		return nil, nil, aerr
	}
	return nil, nil, &Error{Code: CodeInternal, Message: err.Error()}
}
