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
package main

import (
	"context"
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
	s := api.NewSession(Version, Commit)
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		return answer(s, args)
	})
	js.Global().Set(name, call)
	select {}
}

// answer runs one call from JavaScript.
func answer(s *api.Session, args []js.Value) any {
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
	res, aerr := s.CallData(context.Background(), args[0].String(), []byte(args[1].String()), data)
	return reply(res, aerr)
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
