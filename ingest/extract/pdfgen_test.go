package extract

import (
	"bytes"
	"cmp"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
)

// testPDF describes a small text PDF written by hand for tests: Helvetica
// in WinAnsiEncoding, one text line per string, a page break per page.
type testPDF struct {
	Title    string
	Created  string // the Info dictionary's CreationDate as written (a PDF date string); none when ""
	Pages    [][]string
	Password string // when set, the file is encrypted (RC4 40-bit, revision 2) with this user password
	Owner    string // when set, the owner password (else Password); with Password "" the file opens without one
	FontSize int    // in points; 0 = 11
	Outline  []testBookmark
}

// pdfPadding is the password padding string of the standard security handler.
var pdfPadding = []byte{0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A}

// Bytes renders the PDF with a correct cross-reference table.
func (p testPDF) Bytes(tb testing.TB) []byte {
	tb.Helper()
	w := &pdfWriter{}
	if p.Password != "" || p.Owner != "" {
		w.setupEncryption(tb, p.Password, cmp.Or(p.Owner, p.Password))
	}
	nPages := len(p.Pages)
	// Object numbers: 1 catalog, 2 page tree, 3 font, 4 info, 5 encrypt,
	// then a page and its content stream per page.
	kids := make([]string, nPages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", 6+2*i)
	}
	outlines := ""
	if len(p.Outline) > 0 {
		outlines = fmt.Sprintf(" /Outlines %d 0 R", 6+2*nPages)
	}
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R"+outlines+" >>")
	w.obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), nPages))
	w.obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	created := ""
	if p.Created != "" {
		created = " /CreationDate " + w.str(tb, 4, p.Created)
	}
	w.obj(4, fmt.Sprintf("<< /Title %s /Producer %s%s >>", w.str(tb, 4, p.Title), w.str(tb, 4, "mcpvec test generator"), created))
	if w.key != nil {
		w.obj(5, fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%x> /U <%x> /P %d >>", w.o, w.u, w.perm))
	} else {
		w.obj(5, "null")
	}
	for i, lines := range p.Pages {
		n := 6 + 2*i
		w.obj(n, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", n+1))
		var c bytes.Buffer
		size := cmp.Or(p.FontSize, 11)
		fmt.Fprintf(&c, "BT /F1 %d Tf %d TL 72 740 Td\n", size, size*14/11)
		for _, ln := range lines {
			fmt.Fprintf(&c, "%s Tj T*\n", pdfLiteral(tb, ln))
		}
		c.WriteString("ET\n")
		w.stream(n+1, w.crypt(n+1, c.Bytes()))
	}
	return w.finish(w.outline(tb, 6+2*nPages, p.Outline) - 1)
}

type pdfWriter struct {
	buf     bytes.Buffer
	offsets map[int]int
	key     []byte
	o, u    []byte
	perm    int32
	id      []byte
}

func (w *pdfWriter) obj(n int, body string) {
	w.start(n)
	fmt.Fprintf(&w.buf, "%s\nendobj\n", body)
}

func (w *pdfWriter) start(n int) {
	if w.offsets == nil {
		w.buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
		w.offsets = map[int]int{}
	}
	w.offsets[n] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n", n)
}

func (w *pdfWriter) stream(n int, data []byte) {
	w.start(n)
	fmt.Fprintf(&w.buf, "<< /Length %d >>\nstream\n", len(data))
	w.buf.Write(data)
	w.buf.WriteString("\nendstream\nendobj\n")
}

func (w *pdfWriter) finish(last int) []byte {
	xref := w.buf.Len()
	fmt.Fprintf(&w.buf, "xref\n0 %d\n0000000000 65535 f \n", last+1)
	for n := 1; n <= last; n++ {
		fmt.Fprintf(&w.buf, "%010d 00000 n \n", w.offsets[n])
	}
	enc := ""
	if w.key != nil {
		enc = fmt.Sprintf(" /Encrypt 5 0 R /ID [<%x> <%x>]", w.id, w.id)
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", last+1, enc, xref)
	return w.buf.Bytes()
}

// str renders s as a PDF string of object n, encrypted when needed.
func (w *pdfWriter) str(tb testing.TB, n int, s string) string {
	if w.key == nil {
		return pdfLiteral(tb, s)
	}
	return fmt.Sprintf("<%x>", w.crypt(n, winAnsi(tb, s)))
}

// setupEncryption computes the revision 2 standard security handler values
// (PDF 1.7 reference, algorithms 3.2 to 3.4) for user password pw and
// owner password owner.
func (w *pdfWriter) setupEncryption(tb testing.TB, pw, owner string) {
	w.id = []byte("mcpvec-test-id-0")
	w.perm = -4
	padded := append([]byte(pw), pdfPadding...)[:32]
	okey := md5.Sum(append([]byte(owner), pdfPadding...)[:32])
	w.o = rc4Crypt(tb, okey[:5], padded)
	h := md5.New()
	h.Write(padded)
	h.Write(w.o)
	binary.Write(h, binary.LittleEndian, w.perm)
	h.Write(w.id)
	w.key = h.Sum(nil)[:5]
	w.u = rc4Crypt(tb, w.key, pdfPadding)
}

func (w *pdfWriter) crypt(n int, data []byte) []byte {
	if w.key == nil {
		return data
	}
	k := append(append([]byte{}, w.key...), byte(n), byte(n>>8), byte(n>>16), 0, 0)
	sum := md5.Sum(k)
	return rc4Crypt(nil, sum[:len(w.key)+5], data)
}

func rc4Crypt(tb testing.TB, key, data []byte) []byte {
	c, err := rc4.NewCipher(key)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

func winAnsi(tb testing.TB, s string) []byte {
	b, err := charmap.Windows1252.NewEncoder().Bytes([]byte(s))
	if err != nil {
		tb.Fatalf("text %q not in WinAnsiEncoding: %v", s, err)
	}
	return b
}

// pdfLiteral renders s as a (...) string with escapes.
func pdfLiteral(tb testing.TB, s string) string {
	var b strings.Builder
	b.WriteByte('(')
	for _, c := range winAnsi(tb, s) {
		switch c {
		case '(', ')', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(')')
	return b.String()
}
