package jql

import (
	"bytes"
	"context"
)

// Bytes is a Source over data held in memory, in any shape File reads
// from a file (a JSON object of domains, a JSON array or JSON Lines of one
// domain's documents, YAML); Name's suffix tells YAML (".yaml", ".yml")
// from JSON.
type Bytes struct {
	Name string
	Data []byte
}

// Scan implements Source.
func (b Bytes) Scan(ctx context.Context, domain string, fn func(raw []byte) error) error {
	return scanReader(ctx, b.Name, bytes.NewReader(b.Data), domain, fn)
}
