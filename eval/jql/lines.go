package jql

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/valyala/fastjson"

	"github.com/ctxql/ctxql/internal/files"
)

// blockSize is the size of the blocks of JSON Lines that the workers of
// a streaming evaluation take one at a time.
const blockSize = 1 << 20

// linesReader returns the JSON Lines of domain in data, when data is a
// file, a directory's domain file or bytes of that shape, and a function
// that releases it; ok is false for every other Source and shape, which
// the sequential scan reads.
func linesReader(data Source, domain string) (r *bufio.Reader, done func(), ok bool, err error) {
	var name string
	var rd io.Reader
	done = func() {}
	switch d := data.(type) {
	case File:
		fr := d.Files
		if fr == nil {
			fr = files.New(0, "")
		}
		st, err := fr.Stat(d.Path)
		if err != nil {
			return nil, nil, false, &DataError{Err: err}
		}
		name = d.Path
		if st.IsDir() {
			if name, err = domainFile(fr, d.Path, domain); err != nil || name == "" {
				return nil, nil, false, err
			}
		}
		fh, err := fr.Open(name)
		if err != nil {
			return nil, nil, false, &DataError{Err: err}
		}
		rd, done = fh, func() { fh.Close() }
	case Bytes:
		name, rd = d.Name, bytes.NewReader(d.Data)
	default:
		return nil, nil, false, nil
	}
	br := bufio.NewReaderSize(rd, 1<<16)
	head, _ := br.Peek(1 << 16)
	first := firstByte(head)
	lower := strings.ToLower(name)
	yml := strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml")
	if yml || !(first == '{' && !isWrapped(head) || first == 0) {
		done()
		return nil, nil, false, nil
	}
	return br, done, true, nil
}

// block is a run of whole lines of the input and its place in it.
type block struct {
	seq  int
	data []byte
}

// readBlocks cuts r into blocks of whole lines (a line longer than a block
// makes its block longer) and sends them on out, in order, until the end,
// an error or ctx is done; free recycles the blocks the workers are done
// with.
func readBlocks(ctx context.Context, r io.Reader, size int, out chan<- block, free chan []byte) error {
	defer close(out)
	var carry []byte
	for seq := 0; ; seq++ {
		var buf []byte
		select {
		case buf = <-free:
		default:
			buf = make([]byte, 0, size)
		}
		buf = append(buf[:0], carry...)
		eof := false
		for !eof {
			if len(buf) == cap(buf) {
				if bytes.IndexByte(buf, '\n') >= 0 {
					break
				}
				buf = slices.Grow(buf, len(buf)) // a line longer than the block
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				return &DataError{Err: err}
			}
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		if cut > 0 {
			select {
			case out <- block{seq: seq, data: buf[:cut]}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if eof {
			return nil
		}
	}
}

// scanLinesParallel evaluates the plan over JSON Lines with n workers:
// one goroutine cuts the input into blocks of whole lines, each worker
// tests the documents of the blocks it takes into its own bounded heap,
// and the heaps are merged. A document's place in the input (its block,
// then its line) breaks ties of the order, so the result does not depend
// on n.
func (pl *plan) scanLinesParallel(ctx context.Context, r io.Reader, n, size int) ([]entry, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	blocks := make(chan block, n)
	free := make(chan []byte, n+2)
	var readErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		readErr = readBlocks(ctx, r, size, blocks, free)
	}()
	heaps := make([]topk, n)
	errs := make([]error, n)
	for w := range n {
		heaps[w].less = pl.entryBefore
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p fastjson.Parser
			for b := range blocks {
				if errs[w] == nil {
					errs[w] = pl.scanBlock(ctx, &p, &heaps[w], b)
					if errs[w] != nil {
						cancel()
					}
				}
				select {
				case free <- b.data:
				default:
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if readErr != nil {
		return nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var all []entry
	for _, h := range heaps {
		all = append(all, h.items...)
	}
	return all, nil
}

// scanBlock tests the documents of one block, as the sequential scan
// tests each document, into h.
func (pl *plan) scanBlock(ctx context.Context, p *fastjson.Parser, h *topk, b block) error {
	data := b.data
	for line := 0; len(data) > 0; line++ {
		if line%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if err := pl.offer(p, h, raw, int64(b.seq)<<32|int64(line)); err != nil {
			return err
		}
	}
	return nil
}

// offer tests one document and keeps it in h if it matches and is among
// the best seen; pos is its place in the input.
func (pl *plan) offer(p *fastjson.Parser, h *topk, raw []byte, pos int64) error {
	for _, n := range pl.needles {
		if !mayContainAny(raw, n) {
			return nil
		}
	}
	v, err := p.ParseBytes(raw)
	if err != nil {
		return dataErr("%w", err)
	}
	if v.Type() != fastjson.TypeObject {
		return nil
	}
	for _, g := range pl.groups {
		if !g.match(v, len(g.conds)) {
			return nil
		}
	}
	k := keyOf(v)
	if pl.hasCursor && !pl.before(pl.cursor, k) {
		return nil
	}
	e := entry{key: k, pos: pos}
	if len(h.items) == pl.q.Limit {
		if !pl.entryBefore(e, h.items[0]) {
			return nil
		}
		e.raw = bytes.Clone(raw)
		h.items[0] = e
		h.fix0()
		return nil
	}
	e.raw = bytes.Clone(raw)
	h.push(e)
	return nil
}

// entryBefore is the order of the result: the query's order, then the
// place in the input.
func (pl *plan) entryBefore(a, b entry) bool {
	if pl.before(a.key, b.key) {
		return true
	}
	if pl.before(b.key, a.key) {
		return false
	}
	return a.pos < b.pos
}
