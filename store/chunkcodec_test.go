package store

import "testing"

func FuzzDecodeChunk(f *testing.F) {
	f.Add(encodeChunk(&Chunk{DocID: "abc", Index: 3, Text: "text", Start: 10, End: 14, PageStart: 2, PageEnd: 2}))
	f.Add([]byte{1, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeChunk(1, b)
		text, terr := chunkText(b)
		if (err == nil) != (terr == nil) {
			t.Fatalf("decodeChunk err %v, chunkText err %v", err, terr)
		}
		if err == nil {
			if c.Text != string(text) {
				t.Fatalf("text %q vs %q", c.Text, text)
			}
			if again, err := decodeChunk(1, encodeChunk(c)); err != nil || *again != *c {
				t.Fatalf("round trip: %+v vs %+v (%v)", again, c, err)
			}
		}
	})
}
