package listfile

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding is the text encoding of a CSV file.
type Encoding string

// The encodings a CSV file may be read in. UTF-8 is the default and needs
// no saying: a UTF-8 byte order mark is dropped, and a file starting with
// a UTF-16 byte order mark (Excel's "Unicode Text") is read as UTF-16.
// Windows-1252 ("CSV (Comma delimited)" of a Western Excel on Windows) and
// ISO-8859-1 cannot be told apart from each other, nor from some valid
// UTF-8, by looking at the bytes: they are read only when the
// configuration names them.
const (
	UTF8        Encoding = "utf-8"
	UTF16LE     Encoding = "utf-16le" // only from a byte order mark
	UTF16BE     Encoding = "utf-16be" // only from a byte order mark
	Windows1252 Encoding = "windows-1252"
	Latin1      Encoding = "iso-8859-1"
)

// Encodings lists what a configuration may name (ParseEncoding).
func Encodings() []string {
	return []string{string(UTF8), string(Windows1252), string(Latin1)}
}

// ParseEncoding reads an encoding a configuration names, in the usual
// spellings ("UTF8", "cp1252", "latin1", ...).
func ParseEncoding(s string) (Encoding, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "utf-8", "utf8":
		return UTF8, true
	case "windows-1252", "cp1252", "windows1252":
		return Windows1252, true
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "iso_8859-1":
		return Latin1, true
	}
	return "", false
}

// decoder returns a reader of UTF-8 text from br and the encoding it
// decided: a byte order mark wins, else the encoding asked for.
func decoder(br *bufio.Reader, asked Encoding) (io.Reader, Encoding) {
	head, _ := br.Peek(3)
	switch {
	case strings.HasPrefix(string(head), "\xEF\xBB\xBF"):
		_, _ = br.Discard(3)
		return br, UTF8
	case strings.HasPrefix(string(head), "\xFF\xFE"):
		_, _ = br.Discard(2)
		return &utf16Reader{r: br, little: true}, UTF16LE
	case strings.HasPrefix(string(head), "\xFE\xFF"):
		_, _ = br.Discard(2)
		return &utf16Reader{r: br}, UTF16BE
	}
	switch asked {
	case Windows1252, Latin1:
		return &singleByteReader{r: br, table: asked}, asked
	}
	return br, UTF8
}

// utf16Reader decodes UTF-16 to UTF-8. An unpaired surrogate becomes
// U+FFFD, which the cell check then reports.
type utf16Reader struct {
	r      *bufio.Reader
	little bool
	out    []byte // decoded, not yet returned
	err    error
}

func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	if _, err := io.ReadFull(u.r, b[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return 0, fmt.Errorf("the file ends in the middle of a UTF-16 character")
		}
		return 0, err
	}
	if u.little {
		return uint16(b[0]) | uint16(b[1])<<8, nil
	}
	return uint16(b[1]) | uint16(b[0])<<8, nil
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) < len(p) && u.err == nil {
		c, err := u.unit()
		if err != nil {
			u.err = err
			break
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			c2, err := u.unit()
			if err != nil {
				u.err = err
				r = utf8.RuneError
			} else {
				r = utf16.DecodeRune(r, rune(c2))
			}
		}
		u.out = utf8.AppendRune(u.out, r)
	}
	n := copy(p, u.out)
	u.out = u.out[:copy(u.out, u.out[n:])]
	if n > 0 {
		return n, nil
	}
	return 0, u.err
}

// singleByteReader decodes Windows-1252 or ISO-8859-1 to UTF-8.
type singleByteReader struct {
	r     *bufio.Reader
	table Encoding
	out   []byte
}

// cp1252 maps the bytes 0x80-0x9F of Windows-1252 to their characters;
// the other bytes are the Unicode code point of the same number, as in
// ISO-8859-1. The five bytes Windows-1252 leaves undefined keep their
// ISO-8859-1 meaning (C1 controls).
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

func (s *singleByteReader) Read(p []byte) (int, error) {
	var err error
	for len(s.out) < len(p) {
		var b byte
		if b, err = s.r.ReadByte(); err != nil {
			break
		}
		r := rune(b)
		if s.table == Windows1252 && b >= 0x80 && b <= 0x9F {
			r = cp1252[b-0x80]
		}
		s.out = utf8.AppendRune(s.out, r)
	}
	n := copy(p, s.out)
	s.out = s.out[:copy(s.out, s.out[n:])]
	if n > 0 {
		return n, nil
	}
	return 0, err
}

// invalidUTF8 describes the first byte of s that is not UTF-8, with what
// it would be in Windows-1252 (the usual culprit), for the message.
func invalidUTF8(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b := s[i]
			guess := rune(b)
			if b >= 0x80 && b <= 0x9F {
				guess = cp1252[b-0x80]
			}
			hint := ""
			if guess >= 0xA0 || (b >= 0x80 && b <= 0x9F && guess > 0xFF) {
				hint = fmt.Sprintf(" (%q in Windows-1252)", string(guess))
			}
			return fmt.Sprintf("byte 0x%02X at position %d%s", b, utf8.RuneCountInString(s[:i])+1, hint)
		}
		i += size
	}
	return ""
}

// encodingHint is how to fix a file that is not UTF-8.
const encodingHint = `the file is not UTF-8 text; in Excel, save it as "CSV UTF-8 (Comma delimited)", or name its encoding in the block (encoding = "windows-1252")`
