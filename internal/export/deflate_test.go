package export

import (
	"bytes"
	"compress/flate"
	"io"
	"math/rand/v2"
	"testing"
)

func TestParallelDeflateRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 3*deflateBlock+12345)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	text := bytes.Repeat([]byte(`<row r="1"><c r="A1" t="inlineStr"><is><t>Jürgen</t></is></c></row>`), 50000)
	for name, in := range map[string][]byte{
		"empty":      nil,
		"small":      []byte("hello"),
		"one block":  text[:deflateBlock],
		"text":       text,
		"random":     random,
		"odd writes": text[:deflateBlock*2+7],
	} {
		var out bytes.Buffer
		z := newParallelDeflate(&out, flate.BestSpeed)
		// Write in uneven pieces, as archive/zip does.
		for p := in; len(p) > 0; {
			k := min(len(p), 1+rng.IntN(300000))
			if _, err := z.Write(p[:k]); err != nil {
				t.Fatal(err)
			}
			p = p[k:]
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(flate.NewReader(&out))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, in) {
			t.Errorf("%s: round trip gave %d bytes, want %d", name, len(got), len(in))
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

func TestParallelDeflateWriteError(t *testing.T) {
	z := newParallelDeflate(failingWriter{}, flate.BestSpeed)
	_, _ = z.Write(make([]byte, 3*deflateBlock))
	if err := z.Close(); err != io.ErrShortWrite {
		t.Errorf("Close = %v, want the write error", err)
	}
}
