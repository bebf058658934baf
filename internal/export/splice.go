package export

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
)

// How a data sheet gets into the workbook: excelize's StreamWriter writes the
// sheet with its header row only (sheet view, frozen pane, column widths,
// table part), and encodeRows has compressed the data rows beforehand. When
// excelize writes the package, spliceZip catches that sheet's zip entry and
// stores it as head + rows + tail, where head ends just before
// </sheetData>. The three pieces are DEFLATE data that may follow one another
// (only the tail carries the final block), and the entry's CRC-32 is combined
// from the pieces' CRCs, so the rows are compressed once and never read back.

// spillMemory is how much compressed row data a sheet keeps in memory before
// it moves to a temporary file (a variable for the tests).
var spillMemory = 8 << 20

// spillBuffer keeps written bytes in memory, and in a temporary file in the
// system temp folder once they grow past spillMemory.
type spillBuffer struct {
	mem  bytes.Buffer
	file *os.File
}

func (s *spillBuffer) Write(p []byte) (int, error) {
	if s.file == nil && s.mem.Len()+len(p) > spillMemory {
		f, err := os.CreateTemp("", "leadsync-rows-*")
		if err != nil {
			return 0, fmt.Errorf("a temporary file for the rows of a large sheet: %w", err)
		}
		s.file = f
		if _, err := s.mem.WriteTo(f); err != nil {
			return 0, err
		}
	}
	if s.file != nil {
		return s.file.Write(p)
	}
	return s.mem.Write(p)
}

// reader returns the bytes written, from the start.
func (s *spillBuffer) reader() (io.Reader, error) {
	if s.file == nil {
		return bytes.NewReader(s.mem.Bytes()), nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return s.file, nil
}

// Close removes the temporary file, if any.
func (s *spillBuffer) Close() {
	s.mem = bytes.Buffer{}
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
		s.file = nil
	}
}

// spliceZip is the zip writer given to excelize: entries pass through to zw,
// except the worksheets in rows, which are completed with their data rows.
type spliceZip struct {
	zw      *zip.Writer
	rows    map[string]*sheetRowsXML // by the sheet's part name, e.g. xl/worksheets/sheet2.xml
	name    string                   // the pending worksheet, whose XML excelize is writing into pending
	pending bytes.Buffer
	done    map[string]bool
}

func newSpliceZip(zw *zip.Writer, rows map[string]*sheetRowsXML) *spliceZip {
	return &spliceZip{zw: zw, rows: rows, done: map[string]bool{}}
}

// Create starts an entry; a worksheet with rows is held until it is complete.
func (z *spliceZip) Create(name string) (io.Writer, error) {
	if err := z.flushPending(); err != nil {
		return nil, err
	}
	if _, ok := z.rows[name]; ok {
		z.name = name
		z.pending.Reset()
		return &z.pending, nil
	}
	return z.zw.Create(name)
}

// AddFS is part of excelize.ZipWriter.
func (z *spliceZip) AddFS(fsys fs.FS) error {
	if err := z.flushPending(); err != nil {
		return err
	}
	return z.zw.AddFS(fsys)
}

// Close completes the last entry and the zip. Every worksheet with rows must
// have been written.
func (z *spliceZip) Close() error {
	if err := z.flushPending(); err != nil {
		return err
	}
	for name := range z.rows {
		if !z.done[name] {
			return fmt.Errorf("internal error: worksheet %s was not written", name)
		}
	}
	return z.zw.Close()
}

// flushPending writes the pending worksheet as head, rows, tail.
func (z *spliceZip) flushPending() error {
	if z.name == "" {
		return nil
	}
	name, rows := z.name, z.rows[z.name]
	z.name = ""
	sheet := z.pending.Bytes()
	end := bytes.LastIndex(sheet, []byte("</sheetData>"))
	if end < 0 {
		return fmt.Errorf("internal error: worksheet %s has no </sheetData>", name)
	}
	head, tail := sheet[:end], sheet[end:]
	zhead, err := deflateBytes(head, false, rows.level)
	if err != nil {
		return err
	}
	ztail, err := deflateBytes(tail, true, rows.level)
	if err != nil {
		return err
	}
	crc := crc32.ChecksumIEEE(head)
	crc = crc32Combine(crc, rows.crc, rows.size)
	crc = crc32Combine(crc, crc32.ChecksumIEEE(tail), int64(len(tail)))
	compressed, err := rows.compressedSize()
	if err != nil {
		return err
	}
	fh := &zip.FileHeader{
		Name:               name,
		Method:             zip.Deflate,
		Flags:              0x8, // sizes and CRC in a data descriptor, as zip.Writer.Create does
		CreatorVersion:     20,
		ReaderVersion:      20,
		CRC32:              crc,
		CompressedSize64:   uint64(len(zhead)) + uint64(compressed) + uint64(len(ztail)),
		UncompressedSize64: uint64(len(head)) + uint64(rows.size) + uint64(len(tail)),
	}
	const uint32max = 1<<32 - 1
	if fh.CompressedSize64 >= uint32max || fh.UncompressedSize64 >= uint32max {
		fh.ReaderVersion = 45 // ZIP64
	}
	w, err := z.zw.CreateRaw(fh)
	if err != nil {
		return err
	}
	if _, err := w.Write(zhead); err != nil {
		return err
	}
	if err := rows.writeTo(w); err != nil {
		return fmt.Errorf("copying the rows of %s: %w", name, err)
	}
	if _, err := w.Write(ztail); err != nil {
		return err
	}
	z.done[name] = true
	return nil
}

// compressedSize is the size of the compressed rows.
func (x *sheetRowsXML) compressedSize() (int64, error) {
	if x.data.file == nil {
		return int64(x.data.mem.Len()), nil
	}
	fi, err := x.data.file.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// deflateBytes compresses b; with final it ends the DEFLATE stream, else it
// ends with a sync flush so that more DEFLATE data may follow.
func deflateBytes(b []byte, final bool, level int) ([]byte, error) {
	var out bytes.Buffer
	fw, err := flate.NewWriter(&out, level)
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(b); err != nil {
		return nil, err
	}
	if final {
		err = fw.Close()
	} else {
		err = fw.Flush()
	}
	return out.Bytes(), err
}

// crc32Combine returns the CRC-32 (IEEE) of a followed by b, given the CRC of
// a, the CRC of b and the length of b. The CRC register is linear over GF(2):
// crc(a‖b) = crc(b) xor Z(crc(a)), where Z is the effect of feeding len(b)
// zero bytes through the register. Z is a 32×32 bit matrix, raised to the
// power len(b) by repeated squaring, so this costs O(log len(b)).
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	// one is the operator for one zero bit: shift right, and xor the
	// (reflected) polynomial when the bit shifted out is set.
	var one, op gf2Matrix
	one[0] = crc32.IEEE
	for n := 1; n < 32; n++ {
		one[n] = 1 << (n - 1)
	}
	op = one.square().square().square() // one zero byte: 8 bits
	for lenB > 0 {
		if lenB&1 != 0 {
			crcA = op.times(crcA)
		}
		lenB >>= 1
		if lenB > 0 {
			op = op.square()
		}
	}
	return crcA ^ crcB
}

// gf2Matrix is a 32×32 bit matrix over GF(2): column n is the image of bit n.
type gf2Matrix [32]uint32

func (m *gf2Matrix) times(v uint32) uint32 {
	var sum uint32
	for n := 0; v != 0; n, v = n+1, v>>1 {
		if v&1 != 0 {
			sum ^= m[n]
		}
	}
	return sum
}

func (m gf2Matrix) square() gf2Matrix {
	var sq gf2Matrix
	for n := range m {
		sq[n] = m.times(m[n])
	}
	return sq
}
