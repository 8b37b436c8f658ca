//go:build js && wasm

// Command wasm is ctxql's library (package api) built for WebAssembly
// (GOOS=js GOARCH=wasm), run by Go's wasm_exec.js in Node and browsers.
// The npm package @ctxql/ctxql loads it.
//
// On start it sets the global property named by its first argument (by
// default "__ctxql") to a function call(method, params, data?) and then
// waits for calls: method is an operation of package api, params its
// parameters as JSON text, and data, for load and evaluateOnce, the data
// as a string or a Uint8Array beside the parameters. call returns the
// result's JSON text (a string), or for an error an object whose error
// property is the JSON text of {"code", "message", "range"}: the result,
// which can be megabytes, is handed over as it is, without a copy into a
// wrapper for the JavaScript side to parse around. The loader takes the
// function and deletes the property, so several instances can live in one
// page.
//
// One method is the module's own, evaluateNodes: evaluate for a data set
// whose ids the caller keeps, one array per data set, each id handed over
// once. A PACT selection of one snapshot then returns an array [at, n,
// fresh]: at is the address in the module's memory of n int32 indices
// into the caller's array, one per id of the result (valid until the
// next call), and fresh, unless empty, the JSON array of the result's ids
// not handed over before, which the caller appends to its array first.
// Every other result comes back as evaluate's does. A large selection
// thus costs no JSON text and no new JavaScript strings once its ids have
// been handed over.
package main

import (
	"context"
	"encoding/json"
	"os"
	"syscall/js"
	"unsafe"

	"github.com/ctxql/ctxql/api"
	"github.com/ctxql/ctxql/internal/jsonenc"
)

// Version and Commit are set at link time with -ldflags "-X", as the
// command line's are.
var (
	Version = "devel"
	Commit  = ""
)

func main() {
	name := "__ctxql"
	if len(os.Args) > 1 && os.Args[1] != "" {
		name = os.Args[1]
	}
	m := &module{s: api.NewSession(Version, Commit), ids: map[int]*handed{}}
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		return m.answer(args)
	})
	js.Global().Set(name, call)
	select {}
}

// module is the instance's session and what JavaScript holds of its data
// sets' ids, by handle.
type module struct {
	s   *api.Session
	ids map[int]*handed
}

// handed is what JavaScript holds of one data set's ids: seq[snapshot][node]
// is 1 + the index of the node's id in the caller's array, 0 while it has
// not been handed over; n is the array's length.
type handed struct {
	seq [][]int32
	n   int32
	idx []int32 // the last reply's nodes and then indices, reused
}

// answer runs one call from JavaScript.
func (m *module) answer(args []js.Value) any {
	if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
		return reply(nil, &api.Error{Code: api.CodeUsage, Message: "call(method, paramsJSON, data?) takes a method name and JSON text"})
	}
	var data []byte
	if len(args) > 2 {
		switch d := args[2]; {
		case d.Type() == js.TypeString:
			data = []byte(d.String())
		case d.InstanceOf(js.Global().Get("Uint8Array")):
			data = make([]byte, d.Get("length").Int())
			js.CopyBytesToGo(data, d)
		case d.IsUndefined() || d.IsNull():
		default:
			return reply(nil, &api.Error{Code: api.CodeUsage, Message: "data must be a string or a Uint8Array"})
		}
	}
	method, params := args[0].String(), []byte(args[1].String())
	if method == "evaluateNodes" && data == nil {
		return m.evaluateNodes(params)
	}
	res, aerr := m.s.CallData(context.Background(), method, params, data)
	if method == "release" && aerr == nil {
		delete(m.ids, handleOf(params))
	}
	return reply(res, aerr)
}

// handleOf is the handle of an operation's parameters, 0 for none.
func handleOf(params []byte) int {
	var p struct{ Handle int }
	if json.Unmarshal(params, &p) != nil {
		return 0
	}
	return p.Handle
}

// evaluateNodes answers the method evaluateNodes.
func (m *module) evaluateNodes(params []byte) any {
	h := handleOf(params)
	ids := m.ids[h]
	if ids == nil {
		ids = &handed{}
	}
	nodes, raw, aerr := m.s.EvaluateNodes(context.Background(), params, &ids.idx)
	if aerr != nil || nodes == nil {
		return reply(raw, aerr)
	}
	m.ids[h] = ids
	for len(ids.seq) <= nodes.Snapshot {
		ids.seq = append(ids.seq, nil)
	}
	seq := ids.seq[nodes.Snapshot]
	// The nodes (in ids.idx's storage) become their ids' indices in place,
	// and the ids not handed over yet are sent along as JSON.
	idx := nodes.Nodes
	var fresh []string
	for i, n := range idx {
		if int(n) >= len(seq) {
			grown := make([]int32, max(int(n)+1, 2*len(seq)))
			copy(grown, seq)
			seq = grown
		}
		if seq[n] == 0 {
			ids.n++
			seq[n] = ids.n
			fresh = append(fresh, nodes.ID(n))
		}
		idx[i] = seq[n] - 1
	}
	ids.seq[nodes.Snapshot] = seq
	// The indices stay where they are, in the module's memory, until the
	// next call: a new ArrayBuffer of megabytes per call would make V8
	// collect its whole heap for the external memory each time.
	var at uintptr
	if len(idx) > 0 {
		at = uintptr(unsafe.Pointer(&idx[0]))
	}
	text := ""
	if len(fresh) > 0 {
		b, _ := jsonenc.Marshal(fresh) // strings always encode
		text = string(b)
	}
	return []any{at, len(idx), text}
}

// reply is what call returns: the result's JSON text, or an object with
// the error's JSON text as its error property.
func reply(res []byte, aerr *api.Error) any {
	if aerr != nil {
		e, err := jsonenc.Marshal(aerr)
		if err != nil {
			e = []byte(`{"code":"internal","message":"unencodable error"}`)
		}
		return map[string]any{"error": string(e)}
	}
	if len(res) == 0 {
		return "null"
	}
	// The text goes to JavaScript as a string (js.ValueOf decodes it out
	// of the module's memory), and res is not kept nor changed: no Go copy.
	return unsafe.String(&res[0], len(res))
}
