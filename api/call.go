package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctxql/ctxql/internal/jsonenc"
)

// Call runs the operation method with its JSON parameters and returns its
// JSON result, or the *Error it failed with. Unknown parameters are a
// usage error, as an unknown flag is.
func (s *Session) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *Error) {
	return s.CallData(ctx, method, params, nil)
}

// CallData is Call with the data of load or evaluateOnce given as bytes
// beside the parameters (which then hold neither data nor dataBase64): a
// caller holding the data in memory need not encode it into the JSON.
// Other methods take no data.
func (s *Session) CallData(ctx context.Context, method string, params json.RawMessage, data []byte) (json.RawMessage, *Error) {
	res, err := s.call(ctx, method, params, data)
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	if raw, ok := res.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := jsonenc.Marshal(res)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	return b, nil
}

func (s *Session) call(ctx context.Context, method string, params json.RawMessage, data []byte) (any, error) {
	if data != nil && method != "load" && method != "evaluateOnce" {
		return nil, usagef("%s takes no data", method)
	}
	switch method {
	case "version":
		var p struct{}
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.Version(), nil
	case "check":
		var p CheckParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.Check(ctx, p)
	case "report":
		var p ReportParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.Report(ctx, p)
	case "dataPath":
		var p DataPathParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.DataPath(p)
	case "queries":
		var p QueriesParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.Queries(p)
	case "format":
		var p FormatParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.Format(p)
	case "migrate":
		var p MigrateParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.Migrate(p)
	case "load":
		var p LoadParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		p.Bytes = data
		return s.Load(ctx, p)
	case "evaluate":
		var p EvaluateParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.Evaluate(ctx, p)
	case "why", "whyNot":
		var p WhyParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if method == "why" {
			return s.Why(ctx, p)
		}
		return s.WhyNot(ctx, p)
	case "evaluateOnce":
		var p EvaluateOnceParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		p.Bytes = data
		return s.EvaluateOnce(ctx, p)
	case "release":
		var p struct {
			Handle int `json:"handle"`
		}
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if err := s.Release(p.Handle); err != nil {
			return nil, err
		}
		return json.RawMessage("null"), nil
	}
	return nil, usagef("unknown method %q", method)
}

// decode reads params (absent: {}) into v, refusing unknown fields.
func decode(params json.RawMessage, v any) error {
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return usagef("params: %v", err)
	}
	if dec.More() {
		return usagef("params: %v", fmt.Errorf("text after the object"))
	}
	return nil
}
