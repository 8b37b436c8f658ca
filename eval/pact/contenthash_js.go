//go:build js

package pact

// contentSum is the SHA-256 digest of a node's content (sha256.go).
func contentSum(b []byte) [32]byte { return sum256(b) }
