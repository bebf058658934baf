package export

import (
	"bytes"
	"compress/flate"
	"io"
	"runtime"
	"sync"

	"github.com/leadsync/leadsync/internal/recovered"
)

// deflateBlock is how much input each worker of parallelDeflate compresses
// at a time.
const deflateBlock = 1 << 20

// parallelDeflate is a DEFLATE compressor that compresses blocks of its
// input on every core and writes them out in order. Each block is compressed
// on its own and ended with a sync flush, the last one with the final block
// marker; concatenated, they are one valid DEFLATE stream. A block does not
// see the 32 KiB before it, which costs a little compression (well under 1%
// at 1 MiB blocks) and saves most of the time of zipping a large sheet.
type parallelDeflate struct {
	level int
	cur   *pdBlock
	jobs  chan *pdBlock
	order chan *pdBlock
	free  chan *pdBlock
	// made counts the blocks made: up to cap(free), as they are needed
	// (most entries of a workbook are a few KB: one block, grown to fit).
	made int
	done chan struct{} // closed when the writer goroutine ends
	wg   sync.WaitGroup

	mu  sync.Mutex
	err error // the first error writing out, or a panic of a goroutine (a bug)
}

type pdBlock struct {
	in    []byte
	out   bytes.Buffer
	final bool
	ready chan struct{}
}

// newParallelDeflate returns a compressor writing to out at level.
func newParallelDeflate(out io.Writer, level int) *parallelDeflate {
	workers := max(runtime.GOMAXPROCS(0), 1)
	inFlight := 2*workers + 1
	z := &parallelDeflate{
		level: level,
		jobs:  make(chan *pdBlock, inFlight),
		order: make(chan *pdBlock, inFlight),
		free:  make(chan *pdBlock, inFlight+1),
		done:  make(chan struct{}),
	}
	for range workers {
		z.wg.Add(1)
		go z.work()
	}
	go z.write(out)
	z.cur = z.block()
	return z
}

// block is a free block, or a new one while fewer than cap(free) were
// made.
func (z *parallelDeflate) block() *pdBlock {
	select {
	case b := <-z.free:
		return b
	default:
	}
	if z.made < cap(z.free) {
		z.made++
		return &pdBlock{}
	}
	return <-z.free
}

// work compresses the blocks of jobs. A panic (a bug) is the
// compressor's error; every block is made ready still, so that the writer
// and the blocks' owner never wait for it.
func (z *parallelDeflate) work() {
	defer z.wg.Done()
	var fw *flate.Writer // made for the first block: most entries have one
	for b := range z.jobs {
		z.fail(recovered.Call(func() error {
			fw = compress(fw, b, z.level)
			return nil
		}))
		close(b.ready)
	}
}

// compress compresses b with fw (made when nil) and returns fw.
func compress(fw *flate.Writer, b *pdBlock, level int) *flate.Writer {
	b.out.Reset()
	if fw == nil {
		fw, _ = flate.NewWriter(&b.out, level) // the level is valid: set by this package
	}
	fw.Reset(&b.out)
	_, _ = fw.Write(b.in) // writes to a bytes.Buffer do not fail
	if b.final {
		_ = fw.Close()
	} else {
		_ = fw.Flush()
	}
	return fw
}

// write writes the blocks out in order, until the first error; a panic
// of out (a bug) is the compressor's error, and the blocks still go back.
func (z *parallelDeflate) write(out io.Writer) {
	defer close(z.done)
	for b := range z.order {
		<-b.ready
		if z.error() == nil {
			z.fail(recovered.Call(func() error {
				_, err := out.Write(b.out.Bytes())
				return err
			}))
		}
		b.in = b.in[:0]
		z.free <- b
	}
}

// fail keeps err as the compressor's error: the first, or a panic.
func (z *parallelDeflate) fail(err error) {
	if err == nil {
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	z.err = recovered.First(z.err, err)
}

func (z *parallelDeflate) error() error {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.err
}

// submit hands the current block to the workers; last says no block
// follows, final that it ends the DEFLATE stream.
func (z *parallelDeflate) submit(final, last bool) {
	b := z.cur
	b.final = final
	b.ready = make(chan struct{})
	z.order <- b
	z.jobs <- b
	if !last {
		z.cur = z.block()
	}
}

// Write buffers p and hands full blocks to the workers.
func (z *parallelDeflate) Write(p []byte) (int, error) {
	if err := z.error(); err != nil {
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), deflateBlock-len(z.cur.in))
		z.cur.in = append(z.cur.in, p[:k]...)
		p = p[k:]
		if len(z.cur.in) == deflateBlock {
			z.submit(false, false)
		}
	}
	return n, nil
}

// Close compresses what is left as the final block and waits until all is
// written.
func (z *parallelDeflate) Close() error {
	return z.finish(true)
}

// closeOpen is Close without the final block marker: the output ends with a
// sync flush, so that more DEFLATE data can follow it in the same stream
// (the data rows of a worksheet, spliced between the sheet's head and tail).
func (z *parallelDeflate) closeOpen() error {
	return z.finish(false)
}

func (z *parallelDeflate) finish(final bool) error {
	z.submit(final, true)
	close(z.jobs)
	close(z.order)
	z.wg.Wait()
	<-z.done
	return z.error()
}
