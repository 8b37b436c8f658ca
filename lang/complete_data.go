package lang

import (
	"context"
	"sync"
)

// sampleDocsForFields bounds the documents of a domain whose fields
// completion offers.
const sampleDocsForFields = 1000

// DataCompletion returns what sample data d adds to completion, for any
// language: the vocabulary of PACT data (DataVocabulary), and the
// top-level fields of the first 1,000 JQL sample documents of a domain
// (SampleDocs), read once per domain. Data of a language without either
// adds nothing.
func DataCompletion(ctx context.Context, d Data) CompletionData {
	var (
		mu     sync.Mutex
		fields = map[string][]string{}
	)
	return CompletionData{
		Vocabulary: DataVocabulary(d),
		Fields: func(domain string) []string {
			mu.Lock()
			defer mu.Unlock()
			if fs, ok := fields[domain]; ok {
				return fs
			}
			docs, _ := SampleDocs(ctx, d, domain, sampleDocsForFields)
			seen := map[string]bool{}
			var out []string
			for _, doc := range docs {
				if m, ok := doc.(map[string]any); ok {
					for k := range m {
						if !seen[k] {
							seen[k] = true
							out = append(out, k)
						}
					}
				}
			}
			fields[domain] = out
			return out
		},
	}
}
