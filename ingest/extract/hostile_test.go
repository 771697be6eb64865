package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
	"github.com/mcpvec/mcpvec/internal/golden"
)

// billionLaughs is the classic entity-expansion bomb: 10^9 "lol"s if a
// parser expanded it.
const billionLaughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">` +
	`<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
	`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">` +
	`<!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>`

// zipBomb is a DOCX whose document.xml inflates to size bytes of spaces
// from a few hundred KiB.
func zipBomb(tb testing.TB, size int) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err != nil {
		tb.Fatal(err)
	}
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for written := 0; written < size; written += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func TestExtractHostile(t *testing.T) {
	wdoc := extracttest.WordDocument
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"bomb.docx", zipBomb(t, 300<<20), ErrTooLarge},
		{"laughs.docx", extracttest.Zip(t, "word/document.xml", billionLaughs+`<w:document><w:t>&lol9;</w:t></w:document>`), ErrMalformed},
		{"undeclared-entity.docx", extracttest.Zip(t, "word/document.xml", wdoc(`<w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>`)), ErrMalformed},
		{"deep.docx", extracttest.Zip(t, "word/document.xml", strings.Repeat("<a>", 100000)), ErrMalformed},
		{"not-a-zip.docx", []byte("PK\x03\x04 not really"), ErrMalformed},
		{"empty-zip.pptx", extracttest.Zip(t), ErrMalformed},
		{"unbalanced.xlsx", extracttest.Zip(t, "xl/workbook.xml", "</sheets>"), ErrMalformed},
		{"dotdot.docx", extracttest.Zip(t, "../word/document.xml", wdoc(extracttest.WordPara("", "outside"))), ErrMalformed},
		{"deep.rtf", []byte(`{\rtf1` + strings.Repeat("{", 5000)), ErrMalformed},
		{"nortf.rtf", []byte("plain text"), ErrMalformed},
	} {
		start := time.Now()
		_, err := mustExtractor(t).Extract(context.Background(), tc.name, tc.data)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %s", tc.name, d)
		}
	}
}

// TestXMLNoEntityExpansion pins the property walkXML's safety rests on:
// encoding/xml, even without our DOCTYPE check, refuses an entity defined
// in the DTD rather than expanding it.
func TestXMLNoEntityExpansion(t *testing.T) {
	d := xml.NewDecoder(strings.NewReader(billionLaughs + `<r>&lol9;</r>`))
	d.Strict = true
	var err error
	for err == nil {
		_, err = d.Token()
	}
	if err == io.EOF || !strings.Contains(err.Error(), "entity") {
		t.Errorf("err = %v, want an invalid entity error", err)
	}
}

// hostileCases are the committed hostile archives under testdata/hostile,
// small enough to keep in the repository, with the error each must give.
func hostileCases(tb testing.TB) map[string]struct {
	data []byte
	want error
} {
	type c = struct {
		data []byte
		want error
	}
	return map[string]c{
		// 16 MiB of spaces in 16 KiB: refused by its compression ratio.
		"bomb.docx":   {zipBomb(tb, 16<<20), ErrTooLarge},
		"laughs.docx": {extracttest.Zip(tb, "word/document.xml", billionLaughs+`<w:document><w:t>&lol9;</w:t></w:document>`), ErrMalformed},
		// The only chapter is reachable through "../": nothing is read.
		"dotdot.epub": {extracttest.Zip(tb, "META-INF/container.xml", extracttest.XMLHead+`<container><rootfiles><rootfile full-path="../content.opf"/></rootfiles></container>`,
			"../content.opf", `<package><manifest><item id="c" href="../../etc/passwd"/></manifest><spine><itemref idref="c"/></spine></package>`), ErrMalformed},
	}
}

// TestHostileFixtures extracts the committed hostile archives (rewritten
// with -update).
func TestHostileFixtures(t *testing.T) {
	for name, tc := range hostileCases(t) {
		data := golden.Fixture(t, filepath.Join("testdata", "hostile", name), func() []byte { return tc.data })
		if _, err := mustExtractor(t).Extract(context.Background(), name, data); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}
}
