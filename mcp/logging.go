package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// loggingLevels are the levels of logging/setLevel (RFC 5424's, as MCP
// names them).
var loggingLevels = map[mcp.LoggingLevel]bool{
	"debug": true, "info": true, "notice": true, "warning": true,
	"error": true, "critical": true, "alert": true, "emergency": true,
}

// checkRequests is the receiving middleware that refuses what the SDK would
// accept wrongly: logging/setLevel with an unknown level (the SDK would
// store it), and prompts/list and prompts/get, which the server does not
// advertise (the SDK would answer with an empty list).
func (s *Server) checkRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "logging/setLevel":
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && !loggingLevels[p.Level] {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("invalid params: unknown logging level %q (want debug, info, notice, warning, error, critical, alert or emergency)", p.Level)}
			}
		case "prompts/list", "prompts/get":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s (the server offers no prompts)", method)}
		}
		return next(ctx, method, req)
	}
}

// log sends the error of a tool call or resource read to the client at
// level, when the client has asked for messages of that level
// (logging/setLevel).
func (s *Server) log(ctx context.Context, ss *mcp.ServerSession, level mcp.LoggingLevel, what string, err error) {
	if err != nil {
		s.logf(ctx, ss, level, map[string]any{"request": what, "error": err.Error()})
	}
}

// logf sends data to the client at level, when it has asked for messages
// of that level.
func (s *Server) logf(ctx context.Context, ss *mcp.ServerSession, level mcp.LoggingLevel, data map[string]any) {
	if ss == nil {
		return
	}
	b, err := json.Marshal(data)
	if err != nil {
		return
	}
	ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "ctxql", Data: json.RawMessage(b)})
}
