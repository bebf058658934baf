package listfile

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// A workbook's sheet of 100,000 rows is some 50 MB of XML; encoding/xml
// reads it in seconds, a tenth of that is the budget. xmlScan reads the
// little of XML that the cells of a sheet and its shared strings use:
// elements (by local name, any namespace prefix), attributes, character
// data, entity and character references, CDATA sections; comments,
// processing instructions and a DOCTYPE are skipped, and no entity is
// defined or expanded beyond the five of XML.

// maxToken bounds one tag or one run of character data, so that a damaged
// file cannot make a reader grow a buffer without end.
const maxToken = 64 << 20

// errDamaged is the error of XML that is not what a workbook holds.
var errDamaged = errors.New("damaged XML")

// xmlScan reads tags and text from an XML stream.
type xmlScan struct {
	r   *bufio.Reader
	acc []byte // a token that did not fit in the reader's buffer
}

func newXMLScan(r io.Reader) *xmlScan {
	return &xmlScan{r: bufio.NewReaderSize(r, 64<<10)}
}

// Kinds of xmlTag.
const (
	tagStart = iota // <name ...> or <name .../>
	tagEnd          // </name>
	tagCDATA        // <![CDATA[...]]>
	tagOther        // comment, processing instruction, DOCTYPE
)

// xmlTag is one tag. Its slices are valid until the scanner's next call.
type xmlTag struct {
	kind      int
	name      []byte // the local name (after a prefix's colon)
	prefix    []byte // the prefix and its colon ("x:"), or nothing
	attrs     []byte // the raw attribute text of a start tag
	selfClose bool   // <name/>
	cdata     []byte // the content of a CDATA section
}

// is reports whether the tag is a start (or end) tag of the local name.
func (t *xmlTag) is(kind int, name string) bool {
	return t.kind == kind && string(t.name) == name
}

// readUntil reads through the delimiter byte; the slice is valid until the
// next call.
func (s *xmlScan) readUntil(delim byte) ([]byte, error) {
	b, err := s.r.ReadSlice(delim)
	if err != bufio.ErrBufferFull {
		return b, err
	}
	s.acc = append(s.acc[:0], b...)
	for {
		b, err = s.r.ReadSlice(delim)
		s.acc = append(s.acc, b...)
		if err != bufio.ErrBufferFull {
			return s.acc, err
		}
		if len(s.acc) > maxToken {
			return nil, errDamaged
		}
	}
}

// text reads the character data before the next tag and the tag's "<".
// At the end of the stream it returns what is left and io.EOF.
func (s *xmlScan) text() ([]byte, error) {
	b, err := s.readUntil('<')
	if err != nil {
		return b, err
	}
	return b[:len(b)-1], nil
}

// readThrough reads up to and including the terminator (a comment's
// "-->", a CDATA section's "]]>"); the slice is valid until the next call.
func (s *xmlScan) readThrough(term string) ([]byte, error) {
	last := term[len(term)-1]
	var acc []byte
	for {
		b, err := s.r.ReadSlice(last)
		if err != nil && err != bufio.ErrBufferFull {
			if err == io.EOF {
				err = errDamaged
			}
			return nil, err
		}
		acc = append(acc, b...)
		if err == nil && bytes.HasSuffix(acc, []byte(term)) {
			return acc, nil
		}
		if len(acc) > maxToken {
			return nil, errDamaged
		}
	}
}

// tag reads the tag whose "<" text consumed.
func (s *xmlScan) tag() (xmlTag, error) {
	if first, _ := s.r.Peek(1); len(first) == 1 && first[0] != '!' && first[0] != '?' {
		return s.element()
	}
	head, _ := s.r.Peek(9)
	switch {
	case bytes.HasPrefix(head, []byte("!--")):
		_, err := s.readThrough("-->")
		return xmlTag{kind: tagOther}, err
	case bytes.HasPrefix(head, []byte("![CDATA[")):
		b, err := s.readThrough("]]>")
		if err != nil {
			return xmlTag{}, err
		}
		return xmlTag{kind: tagCDATA, cdata: b[len("![CDATA[") : len(b)-len("]]>")]}, nil
	case bytes.HasPrefix(head, []byte("?")):
		_, err := s.readThrough("?>")
		return xmlTag{kind: tagOther}, err
	case bytes.HasPrefix(head, []byte("!")):
		_, err := s.readUntil('>')
		return xmlTag{kind: tagOther}, err
	}
	return s.element()
}

// element reads a start or end tag.
func (s *xmlScan) element() (xmlTag, error) {
	b, err := s.readUntil('>')
	if err != nil {
		if err == io.EOF {
			err = errDamaged
		}
		return xmlTag{}, err
	}
	// A ">" inside a quoted attribute value does not end the tag.
	if quotesOpen(b) {
		acc := append([]byte(nil), b...)
		for quotesOpen(acc) {
			more, err := s.readUntil('>')
			if err != nil {
				return xmlTag{}, errDamaged
			}
			acc = append(acc, more...)
			if len(acc) > maxToken {
				return xmlTag{}, errDamaged
			}
		}
		b = acc
	}
	b = b[:len(b)-1] // the ">"
	t := xmlTag{kind: tagStart}
	if len(b) > 0 && b[0] == '/' {
		t.kind = tagEnd
		b = b[1:]
	} else if len(b) > 0 && b[len(b)-1] == '/' {
		t.selfClose = true
		b = b[:len(b)-1]
	}
	n := 0
	for n < len(b) && !isXMLSpace(b[n]) {
		n++
	}
	t.name, t.attrs = b[:n], b[n:]
	if i := bytes.LastIndexByte(t.name, ':'); i >= 0 {
		t.prefix, t.name = t.name[:i+1], t.name[i+1:]
	}
	if len(t.name) == 0 {
		return xmlTag{}, errDamaged
	}
	return t, nil
}

// quotesOpen reports whether b ends inside a quoted attribute value.
func quotesOpen(b []byte) bool {
	var q byte
	for _, c := range b {
		switch {
		case q == 0 && (c == '"' || c == '\''):
			q = c
		case c == q:
			q = 0
		}
	}
	return q != 0
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// attr returns the value of the attribute of that exact name (prefix
// included), with references decoded.
func attr(attrs []byte, name string) (string, bool) {
	raw, ok := attrRaw(attrs, name)
	if !ok {
		return "", false
	}
	return string(appendText(nil, raw)), true
}

// attrRaw returns the value of an attribute as written (references not
// decoded), valid as long as attrs.
func attrRaw(attrs []byte, name string) ([]byte, bool) {
	for len(attrs) > 0 {
		i := 0
		for i < len(attrs) && isXMLSpace(attrs[i]) {
			i++
		}
		attrs = attrs[i:]
		eq := bytes.IndexByte(attrs, '=')
		if eq < 0 {
			return nil, false
		}
		key := bytes.TrimSpace(attrs[:eq])
		rest := bytes.TrimLeft(attrs[eq+1:], " \t\r\n")
		if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
			return nil, false
		}
		end := bytes.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return nil, false
		}
		if string(key) == name {
			return rest[1 : 1+end], true
		}
		attrs = rest[end+2:]
	}
	return nil, false
}

// appendText appends character data with its references decoded: the five
// entities of XML and numeric character references. A reference that is
// none of these is kept as written.
func appendText(dst, raw []byte) []byte {
	for {
		amp := bytes.IndexByte(raw, '&')
		if amp < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:amp]...)
		raw = raw[amp:]
		semi := bytes.IndexByte(raw, ';')
		if semi < 0 || semi > 12 {
			dst = append(dst, '&')
			raw = raw[1:]
			continue
		}
		ref := raw[1:semi]
		switch string(ref) {
		case "amp":
			dst = append(dst, '&')
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "quot":
			dst = append(dst, '"')
		case "apos":
			dst = append(dst, '\'')
		default:
			r, ok := charRef(ref)
			if !ok {
				dst = append(dst, raw[:semi+1]...)
				break
			}
			dst = utf8.AppendRune(dst, r)
		}
		raw = raw[semi+1:]
	}
}

// charRef reads "#123" or "#x7B".
func charRef(ref []byte) (rune, bool) {
	if len(ref) < 2 || ref[0] != '#' {
		return 0, false
	}
	base, digits := 10, ref[1:]
	if digits[0] == 'x' {
		base, digits = 16, digits[1:]
	}
	n, err := strconv.ParseUint(string(digits), base, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return 0, false
	}
	return rune(n), true
}

// unescapeOOXML decodes the escapes a workbook writes for characters XML
// cannot hold: "_x000D_" is a carriage return, "_x005F_" a literal "_".
func unescapeOOXML(b []byte) []byte {
	if !bytes.Contains(b, []byte("_x")) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if b[i] == '_' && i+7 <= len(b) && b[i+1] == 'x' && b[i+6] == '_' {
			if n, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16); err == nil {
				out = utf8.AppendRune(out, rune(n))
				i += 7
				continue
			}
		}
		out = append(out, b[i])
		i++
	}
	return out
}

// skipTo reads through the end tag (as "</x:c>") of an element that holds
// no CDATA section and no comment, without looking at what is in between.
// The values of cells that are not read are skipped so: a number, a
// boolean, a shared string's index, a formula (whose "<" would be written
// "&lt;").
func (s *xmlScan) skipTo(end []byte) error {
	for {
		b, err := s.readUntil('>')
		if err != nil {
			return damagedAtEOF(err)
		}
		if bytes.HasSuffix(b, end) {
			return nil
		}
	}
}

// endTag is the end tag of a start tag's element: "</" prefix name ">".
func endTag(t *xmlTag) []byte {
	e := append([]byte("</"), t.prefix...)
	e = append(e, t.name...)
	return append(e, '>')
}

// richText reads the text of a shared string or an inline string, whose
// start tag was read, up to its end tag: the <t> elements, plain or in
// runs (<r>), without phonetic guides (<rPh>).
func (s *xmlScan) richText(end string, dst []byte) ([]byte, error) {
	start, phonetic := len(dst), 0
	for {
		if _, err := s.text(); err != nil {
			return nil, damagedAtEOF(err)
		}
		t, err := s.tag()
		if err != nil {
			return nil, err
		}
		switch {
		case t.is(tagEnd, end):
			return append(dst[:start], unescapeOOXML(dst[start:])...), nil
		case t.is(tagStart, "rPh") && !t.selfClose:
			phonetic++
		case t.is(tagEnd, "rPh"):
			phonetic--
		case t.is(tagStart, "t") && !t.selfClose:
			if phonetic > 0 {
				_, err = s.elementText(nil)
			} else {
				dst, err = s.elementText(dst)
			}
			if err != nil {
				return nil, err
			}
		}
	}
}

// elementText appends the text of an element whose start tag was read, up
// to its end tag; it holds no elements, only text and CDATA sections.
func (s *xmlScan) elementText(dst []byte) ([]byte, error) {
	for {
		raw, err := s.text()
		if err != nil {
			return nil, damagedAtEOF(err)
		}
		dst = appendText(dst, raw)
		t, err := s.tag()
		if err != nil {
			return nil, err
		}
		switch t.kind {
		case tagCDATA:
			dst = append(dst, t.cdata...)
		case tagEnd:
			return dst, nil
		case tagStart:
			return nil, errDamaged
		}
	}
}

func damagedAtEOF(err error) error {
	if err == io.EOF {
		return errDamaged
	}
	return err
}
