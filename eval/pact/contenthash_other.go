//go:build !js

package pact

import "crypto/sha256"

// contentSum is the SHA-256 digest of a node's content.
func contentSum(b []byte) [32]byte { return sha256.Sum256(b) }
