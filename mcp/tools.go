package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/budget"
)

// QueryArgs are the acp_query parameters.
type QueryArgs struct {
	Type    string `json:"type" jsonschema:"query type: symbol, file, domain, callers, callees, search or stats"`
	Name    string `json:"name,omitempty" jsonschema:"symbol, file or domain name (symbol, file, domain, callers, callees)"`
	Pattern string `json:"pattern,omitempty" jsonschema:"search pattern (search)"`
}

// ConstraintsArgs are the acp_constraints parameters.
type ConstraintsArgs struct {
	File string `json:"file" jsonschema:"file path to check, relative to the project directory"`
}

// ExpandArgs are the acp_expand parameters.
type ExpandArgs struct {
	Text string `json:"text" jsonschema:"text containing $VAR references"`
	Mode string `json:"mode,omitempty" jsonschema:"expansion mode: summary (default), full, inline or annotated"`
}

// DebugData are the action-specific fields of acp_debug.
type DebugData struct {
	Problem     string   `json:"problem,omitempty" jsonschema:"the problem being debugged (start)"`
	Hypothesis  string   `json:"hypothesis,omitempty" jsonschema:"the first hypothesis (start)"`
	SessionID   string   `json:"session_id,omitempty" jsonschema:"the session (attempt, result, revert, resolve, status)"`
	Description string   `json:"description,omitempty" jsonschema:"what the attempt changes (attempt)"`
	Files       []string `json:"files,omitempty" jsonschema:"files the attempt touches, relative to the project directory (attempt)"`
	AttemptID   string   `json:"attempt_id,omitempty" jsonschema:"the attempt (result, revert)"`
	Success     *bool    `json:"success,omitempty" jsonschema:"whether the attempt worked (result)"`
	Notes       string   `json:"notes,omitempty" jsonschema:"notes on the outcome (result)"`
	Resolution  string   `json:"resolution,omitempty" jsonschema:"how the problem was solved (resolve)"`
}

// DebugArgs are the acp_debug parameters.
type DebugArgs struct {
	Action string     `json:"action" jsonschema:"start, attempt, result, revert, resolve or status"`
	Data   *DebugData `json:"data,omitempty" jsonschema:"action-specific data"`
}

// HackData are the action-specific fields of acp_hack.
type HackData struct {
	File        string `json:"file,omitempty" jsonschema:"the file holding the temporary code, relative to the project directory (mark; filters list)"`
	Line        int    `json:"line,omitempty" jsonschema:"the 1-based line of the temporary code (mark)"`
	Reason      string `json:"reason,omitempty" jsonschema:"why the code is there (mark)"`
	Ticket      string `json:"ticket,omitempty" jsonschema:"a ticket tracking its removal (mark)"`
	Expires     string `json:"expires,omitempty" jsonschema:"when it should be gone: an RFC 3339 time or a YYYY-MM-DD date (mark)"`
	ID          string `json:"id,omitempty" jsonschema:"the marker to remove (revert)"`
	ExpiredOnly bool   `json:"expired_only,omitempty" jsonschema:"list only expired markers (list)"`
}

// HackArgs are the acp_hack parameters.
type HackArgs struct {
	Action string    `json:"action" jsonschema:"mark, list, revert or cleanup"`
	Data   *HackData `json:"data,omitempty" jsonschema:"action-specific data"`
}

// HackReverted is the response of acp_hack revert.
type HackReverted struct {
	Reverted *acp.Hack `json:"reverted" jsonschema:"the marker removed"`
}

// CallerList is the acp_query response for callers: both keys are always
// present, callers an empty list when the symbol has none.
type CallerList struct {
	Symbol  string   `json:"symbol" jsonschema:"the symbol asked about"`
	Callers []string `json:"callers" jsonschema:"the qualified names of its callers"`
}

// CalleeList is the acp_query response for callees: both keys are always
// present, callees an empty list when the symbol has none.
type CalleeList struct {
	Symbol  string   `json:"symbol" jsonschema:"the symbol asked about"`
	Callees []string `json:"callees" jsonschema:"the qualified names of its callees"`
}

// addTool registers the tool t, whose handler returns a structured result
// or an error, which the SDK turns into an error result. The handler runs
// under the server's budget, and its result goes out only if it fits the
// output budget as written.
func addTool[A any](s *Server, t *mcp.Tool, f func(context.Context, A) (any, error)) {
	mcp.AddTool(s.srv, t,
		func(ctx context.Context, req *mcp.CallToolRequest, a A) (*mcp.CallToolResult, any, error) {
			v, err := s.bounded(ctx, req.Session, t.Name, func(ctx context.Context) (any, error) { return f(ctx, a) })
			if err == nil {
				var res *mcp.CallToolResult
				if res, err = s.toolResult(t.Name, v); err == nil {
					return res, nil, nil
				}
			}
			s.log(ctx, req.Session, mcp.LoggingLevel("warning"), t.Name, err)
			return nil, nil, err
		})
}

// bounded runs f under the budget: its context ends at the deadline or when
// the heap grows past the memory budget, and bounded returns then even if f
// has not (f is abandoned and stops at its next look at the context; once
// it has, the memory it held is given back to the system).
func (s *Server) bounded(ctx context.Context, ss *mcp.ServerSession, name string, f func(context.Context) (any, error)) (any, error) {
	b := s.budget
	ctx, cancel := context.WithTimeoutCause(ctx, b.Timeout, budget.TimeLimit(b.Timeout))
	defer cancel()
	ctx, stop := budget.WatchMemory(ctx, b.MaxMemory)
	defer stop()
	if ctx.Err() != nil {
		// Spent before it started.
		if le := budget.LimitCause(ctx); le != nil {
			return nil, fmt.Errorf("%s: %w", name, le)
		}
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	}
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	gaveUp := make(chan time.Time, 1)
	logCtx := context.WithoutCancel(ctx)
	go func() {
		v, err := f(ctx)
		select {
		case at := <-gaveUp:
			// Abandoned: give back what it held, and say how long it ran on.
			reclaim()
			s.logf(logCtx, ss, "debug", map[string]any{"request": name, "event": "abandoned work stopped",
				"after_ms": time.Since(at).Milliseconds(), "heap_bytes": budget.HeapBytes()})
			done <- result{v, err}
		default:
			done <- result{v, err}
			if ctx.Err() != nil {
				// Cut by the budget, the evaluator having seen it first (or
				// at the same moment as the caller): the memory of the work
				// goes back to the system as an abandoned call's does.
				reclaim()
			}
		}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		gaveUp <- time.Now()
		if le := budget.LimitCause(ctx); le != nil {
			return nil, fmt.Errorf("%s: %w", name, le)
		}
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	}
	if r.err != nil {
		if le := budget.LimitCause(ctx); le != nil && !errors.Is(r.err, budget.ErrLimit) {
			return nil, fmt.Errorf("%s: %w", name, le)
		}
		if errors.Is(r.err, context.DeadlineExceeded) && !errors.Is(r.err, budget.ErrLimit) {
			// The evaluator saw the deadline pass before its timer fired.
			return nil, fmt.Errorf("%s: %w", name, budget.TimeLimit(b.Timeout))
		}
		return nil, r.err
	}
	return r.v, nil
}

// reclaim gives the memory of an abandoned call back to the system once its
// work has stopped; without it the heap would stay at its peak until the
// next collection, which an idle server may not run for minutes.
func reclaim() { debug.FreeOSMemory() }

// toolResult is the result of a tool: v as structured content and, for
// clients that read only text, its JSON as a text block. It is refused when
// the two together, as written, exceed the output budget.
func (s *Server) toolResult(name string, v any) (*mcp.CallToolResult, error) {
	max := s.budget.MaxOutputBytes
	// Refuse early what could never fit, before encoding it whole.
	if n, err := encodedSize(v, max); err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", name, err)
	} else if n > max {
		return nil, fmt.Errorf("%s: %w", name, budget.OutputLimit("result", max))
	}
	raw, err := acp.MarshalJSON(v, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: json.RawMessage(raw)}
	if err := s.fits(res); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

// fits checks that v, as written, is within the output budget.
func (s *Server) fits(v any) error {
	max := s.budget.MaxOutputBytes
	n, err := encodedSize(v, max)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	if n > max {
		return fmt.Errorf("%w (as written, with its text and its structured content)", budget.OutputLimit("result", max))
	}
	return nil
}

// encodedSize returns the length of v's JSON, stopping early once it passes
// max.
func encodedSize(v any, max int) (int, error) {
	w := &countWriter{max: max}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	if errors.Is(err, errTooLong) {
		return w.n, nil
	}
	return w.n, err
}

var errTooLong = errors.New("too long")

type countWriter struct{ n, max int }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.n > w.max+1 {
		return 0, errTooLong
	}
	return len(p), nil
}

func (s *Server) addTools() {
	specs := map[string]*mcp.Tool{}
	for _, t := range s.toolSpecs() {
		specs[t.Name] = t
	}
	addTool(s, specs["acp_query"], s.Query)
	addTool(s, specs["acp_constraints"], s.Constraints)
	addTool(s, specs["acp_expand"], func(_ context.Context, a ExpandArgs) (any, error) {
		return s.ix.ExpandWithin(a.Text, a.Mode, s.budget.MaxOutputBytes)
	})
	addTool(s, specs["acp_debug"], s.Debug)
	addTool(s, specs["acp_hack"], s.Hack)
	addTool(s, specs["pact_select"], s.PACT)
	addTool(s, specs["jql_query"], s.JQL)
	addTool(s, specs["jql_schema"], func(_ context.Context, a SchemaArgs) (any, error) {
		if err := s.checkQuery("jql_schema", a.Query); err != nil {
			return nil, err
		}
		return s.JQLSchema(a), nil
	})
	addTool(s, specs["datalog_query"], s.Datalog)
}

// Query answers acp_query.
func (s *Server) Query(ctx context.Context, a QueryArgs) (any, error) {
	need := func(field, v string) error {
		if v == "" {
			return fmt.Errorf("acp_query %s: %s is required", a.Type, field)
		}
		return nil
	}
	switch a.Type {
	case "symbol":
		if err := need("name", a.Name); err != nil {
			return nil, err
		}
		syms, err := s.ix.Symbol(a.Name)
		if err != nil {
			return nil, err
		}
		return syms[0], nil
	case "file":
		if err := need("name", a.Name); err != nil {
			return nil, err
		}
		rel, _, err := acp.ConfineContext(ctx, s.ix.Root, a.Name)
		if err != nil {
			return nil, err
		}
		return s.ix.File(rel)
	case "domain":
		if err := need("name", a.Name); err != nil {
			return nil, err
		}
		return s.ix.Domain(a.Name)
	case "callers":
		if err := need("name", a.Name); err != nil {
			return nil, err
		}
		l, err := s.ix.Callers(a.Name)
		if err != nil {
			return nil, err
		}
		return CallerList{Symbol: a.Name, Callers: l}, nil
	case "callees":
		if err := need("name", a.Name); err != nil {
			return nil, err
		}
		l, err := s.ix.Callees(a.Name)
		if err != nil {
			return nil, err
		}
		return CalleeList{Symbol: a.Name, Callees: l}, nil
	case "search":
		if err := need("pattern", a.Pattern); err != nil {
			return nil, err
		}
		return s.ix.Search(a.Pattern), nil
	case "stats":
		return s.ix.Stats(), nil
	}
	return nil, fmt.Errorf("acp_query: unknown type %q (want symbol, file, domain, callers, callees, search or stats)", a.Type)
}

// Constraints answers acp_constraints.
func (s *Server) Constraints(ctx context.Context, a ConstraintsArgs) (any, error) {
	rel, _, err := acp.ConfineContext(ctx, s.ix.Root, a.File)
	if err != nil {
		return nil, fmt.Errorf("acp_constraints: %w", err)
	}
	return s.ix.CheckConstraints(rel).Tool(), nil
}

func (s *Server) stamp() string { return s.now().UTC().Format(time.RFC3339) }

// update loads the state under its lock, applies f and saves it when f
// changed it.
func (s *Server) update(f func(st *acp.State) (any, bool, error)) (any, error) {
	var v any
	err := s.state.Update(func(st *acp.State) (bool, error) {
		var changed bool
		var err error
		v, changed, err = f(st)
		return changed, err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (s *Server) confineAll(ctx context.Context, files []string) ([]string, error) {
	out := make([]string, 0, len(files))
	for _, f := range files {
		rel, _, err := acp.ConfineContext(ctx, s.ix.Root, f)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// Debug answers acp_debug.
func (s *Server) Debug(ctx context.Context, a DebugArgs) (any, error) {
	d := DebugData{}
	if a.Data != nil {
		d = *a.Data
	}
	session := func(st *acp.State) (*acp.DebugSession, error) {
		if d.SessionID == "" {
			return nil, fmt.Errorf("acp_debug %s: session_id is required", a.Action)
		}
		ss, ok := st.Sessions[d.SessionID]
		if !ok {
			return nil, fmt.Errorf("acp_debug %s: no session %q", a.Action, d.SessionID)
		}
		return ss, nil
	}
	attempt := func(ss *acp.DebugSession) (*acp.Attempt, error) {
		if d.AttemptID == "" {
			return nil, fmt.Errorf("acp_debug %s: attempt_id is required", a.Action)
		}
		for _, at := range ss.Attempts {
			if at.ID == d.AttemptID {
				return at, nil
			}
		}
		return nil, fmt.Errorf("acp_debug %s: no attempt %q in session %s", a.Action, d.AttemptID, ss.ID)
	}
	open := func(ss *acp.DebugSession) error {
		if ss.Status != "open" {
			return fmt.Errorf("acp_debug %s: session %s is %s", a.Action, ss.ID, ss.Status)
		}
		return nil
	}
	return s.update(func(st *acp.State) (any, bool, error) {
		switch a.Action {
		case "start":
			if d.Problem == "" {
				return nil, false, errors.New("acp_debug start: problem is required")
			}
			st.NextSession++
			ss := &acp.DebugSession{ID: fmt.Sprintf("debug-%03d", st.NextSession), Problem: d.Problem, Hypothesis: d.Hypothesis,
				Status: "open", StartedAt: s.stamp(), Attempts: []*acp.Attempt{}}
			st.Sessions[ss.ID] = ss
			return ss, true, nil
		case "attempt":
			ss, err := session(st)
			if err != nil {
				return nil, false, err
			}
			if err := open(ss); err != nil {
				return nil, false, err
			}
			if d.Description == "" {
				return nil, false, errors.New("acp_debug attempt: description is required")
			}
			files, err := s.confineAll(ctx, d.Files)
			if err != nil {
				return nil, false, fmt.Errorf("acp_debug attempt: %w", err)
			}
			at := &acp.Attempt{ID: fmt.Sprintf("attempt-%d", len(ss.Attempts)+1), Description: d.Description, Files: files,
				Status: "pending", LoggedAt: s.stamp()}
			ss.Attempts = append(ss.Attempts, at)
			return at, true, nil
		case "result":
			ss, err := session(st)
			if err != nil {
				return nil, false, err
			}
			at, err := attempt(ss)
			if err != nil {
				return nil, false, err
			}
			if d.Success == nil {
				return nil, false, errors.New("acp_debug result: success is required")
			}
			ok := *d.Success
			at.Success = &ok
			at.Notes = d.Notes
			at.Status = "failed"
			if ok {
				at.Status = "success"
			}
			return at, true, nil
		case "revert":
			ss, err := session(st)
			if err != nil {
				return nil, false, err
			}
			at, err := attempt(ss)
			if err != nil {
				return nil, false, err
			}
			at.Status = "reverted"
			return at, true, nil
		case "resolve":
			ss, err := session(st)
			if err != nil {
				return nil, false, err
			}
			if err := open(ss); err != nil {
				return nil, false, err
			}
			if d.Resolution == "" {
				return nil, false, errors.New("acp_debug resolve: resolution is required")
			}
			ss.Status, ss.Resolution, ss.ResolvedAt = "resolved", d.Resolution, s.stamp()
			return ss, true, nil
		case "status":
			ss, err := session(st)
			if err != nil {
				return nil, false, err
			}
			return ss, false, nil
		}
		return nil, false, fmt.Errorf("acp_debug: unknown action %q (want start, attempt, result, revert, resolve or status)", a.Action)
	})
}

// HackList is the response of acp_hack list and cleanup.
type HackList struct {
	Hacks []*acp.Hack `json:"hacks" jsonschema:"the markers"`
	Count int         `json:"count" jsonschema:"how many markers"`
}

// Hack answers acp_hack.
func (s *Server) Hack(ctx context.Context, a HackArgs) (any, error) {
	d := HackData{}
	if a.Data != nil {
		d = *a.Data
	}
	now := s.now()
	return s.update(func(st *acp.State) (any, bool, error) {
		switch a.Action {
		case "mark":
			if d.File == "" || d.Reason == "" {
				return nil, false, errors.New("acp_hack mark: file and reason are required")
			}
			rel, _, err := acp.ConfineContext(ctx, s.ix.Root, d.File)
			if err != nil {
				return nil, false, fmt.Errorf("acp_hack mark: %w", err)
			}
			if d.Line < 0 {
				return nil, false, errors.New("acp_hack mark: line must not be negative")
			}
			if d.Expires != "" {
				if _, err := time.Parse(time.RFC3339, d.Expires); err != nil {
					if _, err := time.Parse("2006-01-02", d.Expires); err != nil {
						return nil, false, fmt.Errorf("acp_hack mark: expires %q is neither an RFC 3339 time nor a YYYY-MM-DD date", d.Expires)
					}
				}
			}
			st.NextHack++
			h := &acp.Hack{ID: fmt.Sprintf("hack-%03d", st.NextHack), File: rel, Line: d.Line, Reason: d.Reason, Ticket: d.Ticket,
				Expires: d.Expires, CreatedAt: s.stamp()}
			h.Expired = h.ExpiredAt(now)
			st.Hacks[h.ID] = h
			return h, true, nil
		case "list", "cleanup":
			file := ""
			if d.File != "" && a.Action == "list" {
				rel, _, err := acp.ConfineContext(ctx, s.ix.Root, d.File)
				if err != nil {
					return nil, false, fmt.Errorf("acp_hack list: %w", err)
				}
				file = rel
			}
			out := HackList{Hacks: []*acp.Hack{}}
			for _, h := range st.SortedHacks(now) {
				if file != "" && h.File != file {
					continue
				}
				if (a.Action == "cleanup" || d.ExpiredOnly) && !h.Expired {
					continue
				}
				out.Hacks = append(out.Hacks, h)
			}
			out.Count = len(out.Hacks)
			return out, false, nil
		case "revert":
			if d.ID == "" {
				return nil, false, errors.New("acp_hack revert: id is required")
			}
			h, ok := st.Hacks[d.ID]
			if !ok {
				return nil, false, fmt.Errorf("acp_hack revert: no hack %q", d.ID)
			}
			delete(st.Hacks, d.ID)
			h.Expired = h.ExpiredAt(now)
			return HackReverted{Reverted: h}, true, nil
		}
		return nil, false, fmt.Errorf("acp_hack: unknown action %q (want mark, list, revert or cleanup)", a.Action)
	})
}
