package cli

import (
	"bytes"
	"io"
	"os"
)

// IOStreams are the standard streams of one run, injectable for tests.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// InTTY, OutTTY and ErrTTY say whether each stream is a terminal.
	InTTY, OutTTY, ErrTTY bool
	// OutWidth is the number of columns of Out when it is a terminal of
	// known size; 0 otherwise.
	OutWidth int
	// NoColor is set by --no-color or NO_COLOR.
	NoColor bool
}

// ColorOut reports whether colour may be written to Out.
func (s *IOStreams) ColorOut() bool { return s.OutTTY && !s.NoColor }

// ColorErr reports whether colour may be written to ErrOut.
func (s *IOStreams) ColorErr() bool { return s.ErrTTY && !s.NoColor }

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: isTerminal(os.Stdin), OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr),
		OutWidth: terminalWidth(os.Stdout),
	}
}

// TextWidth is how wide lines of text written to Out wrap: def, or less
// when Out is a narrower terminal.
func (s *IOStreams) TextWidth(def int) int {
	if s.OutWidth > 0 && s.OutWidth-4 < def {
		return max(s.OutWidth-4, 20)
	}
	return def
}

// TestStreams returns streams backed by buffers, none a terminal.
func TestStreams() (s *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = new(bytes.Buffer), new(bytes.Buffer), new(bytes.Buffer)
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
