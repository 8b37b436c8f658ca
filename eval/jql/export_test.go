package jql

import "context"

// LoadSegments is Load with segments of size documents, so that the small
// data of tests spans several segments and so several workers.
func LoadSegments(ctx context.Context, src Source, size int) (*Table, error) {
	t, err := Load(ctx, src)
	if err != nil {
		return nil, err
	}
	out := &Table{sets: map[string]*docSet{}}
	done := map[*docSet]*docSet{}
	for dom, s := range t.sets {
		if done[s] == nil {
			done[s] = newDocSetSize(s.docs, size)
		}
		out.sets[dom] = done[s]
	}
	return out, nil
}

// WithBlockSize returns o with blocks of JSON Lines of size bytes, so that
// small test data spans several blocks and so several workers.
func WithBlockSize(o Options, size int) Options {
	o.blockSize = size
	return o
}
