package export_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/export"
)

// TestRoundTrip: documents written are read back equal, an original
// larger than a part in several lines, a document without one as none.
func TestRoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789"), export.PartSize/4) // 2.5 parts
	docs := []export.Document{
		{Doc: &store.Document{ID: "a", Title: "A", SourcePath: "/a.pdf", Pages: 2, PageStarts: []int{0, 5},
			IngestedAt: time.Date(2026, 12, 5, 1, 2, 3, 0, time.UTC), Text: "page1page2"},
			Passages: []store.Chunk{{DocID: "a", Index: 0, Text: "page1", End: 5, PageStart: 1, PageEnd: 1, Headings: []string{"H"}},
				{DocID: "a", Index: 1, Text: "page2", Start: 5, End: 10, PageStart: 2, PageEnd: 2}},
			Vectors: [][]float32{{1, -2.5, 3}, {0, 0.125, -1}}, Original: big},
		{Doc: &store.Document{ID: "b", Text: "no passages"}},
	}
	var buf bytes.Buffer
	w, err := export.NewWriter(&buf, export.Header{Embedder: &store.EmbedderInfo{Provider: "hash", Dimensions: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := w.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(buf.String(), `"type":"original"`), 3; got != want {
		t.Errorf("%d original lines, want %d", got, want)
	}
	r, err := export.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.Format != export.Format || h.Version != export.Version || h.Embedder.Dimensions != 3 {
		t.Errorf("header %+v", h)
	}
	for i, want := range docs {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("document %d:\n got %+v\nwant %+v", i, got.Doc, want.Doc)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last document: %v", err)
	}
}

// TestRefusals: not an export, a newer version, a truncated one.
func TestRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		in   string
		want error
	}{
		"not an export": {`{"hello":1}` + "\n", export.ErrFormat},
		"empty":         {"", export.ErrFormat},
		"newer":         {`{"format":"mcpvec-export","version":99}` + "\n", export.ErrVersion},
		"truncated":     {`{"format":"mcpvec-export","version":1}` + "\n" + `{"type":"document","id":"a","passages":1}` + "\n", export.ErrFormat},
	} {
		r, err := export.NewReader(strings.NewReader(c.in))
		if err == nil {
			_, err = r.Next()
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}
