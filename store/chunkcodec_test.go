package store

import (
	"bytes"
	"reflect"
	"testing"
)

func FuzzDecodeChunk(f *testing.F) {
	f.Add(encodeChunk(&Chunk{DocID: "abc", Index: 3, Text: "text", Start: 10, End: 14, PageStart: 2, PageEnd: 2}))
	f.Add(encodeChunk(&Chunk{DocID: "abc", Index: 1, Text: "text", Headings: []string{"4 Memcheck", "4.2 Options"}}))
	f.Add([]byte{1, 0xff, 0xff})
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 5, 3, 'a'})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeChunk(1, b)
		text, terr := chunkText(b)
		if (err == nil) != (terr == nil) {
			t.Fatalf("decodeChunk err %v, chunkText err %v", err, terr)
		}
		if err == nil {
			if c.IndexText() != string(text) {
				t.Fatalf("index text %q vs %q", c.IndexText(), text)
			}
			if again, err := decodeChunk(1, encodeChunk(c)); err != nil || !reflect.DeepEqual(again, c) {
				t.Fatalf("round trip: %+v vs %+v (%v)", again, c, err)
			}
		}
	})
}

// TestChunkRecordVersions pins the record layout: a passage without
// headings is written exactly as before headings existed (version 1), so
// older binaries read such libraries, and one with headings is version 2.
func TestChunkRecordVersions(t *testing.T) {
	plain := &Chunk{DocID: "ab", Index: 3, Start: 10, End: 14, PageStart: 2, PageEnd: 2, Text: "text"}
	if got, want := encodeChunk(plain), []byte("\x01\x03\x0a\x0e\x02\x02\x02abtext"); !bytes.Equal(got, want) {
		t.Errorf("v1 record %q, want %q", got, want)
	}
	headed := *plain
	headed.Headings = []string{"4 Memcheck", "4.2 Options"}
	rec := encodeChunk(&headed)
	if want := []byte("\x02\x03\x0a\x0e\x02\x02\x02\x17ab\x0a4 Memcheck\x0b4.2 Optionstext"); !bytes.Equal(rec, want) {
		t.Errorf("v2 record %q, want %q", rec, want)
	}
	got, err := decodeChunk(7, rec)
	if err != nil {
		t.Fatal(err)
	}
	headed.Seq = 7
	if !reflect.DeepEqual(got, &headed) {
		t.Errorf("decoded %+v, want %+v", got, &headed)
	}
	if text, _ := chunkText(rec); string(text) != "4 Memcheck › 4.2 Options\n\ntext" {
		t.Errorf("index text %q", text)
	}
}
