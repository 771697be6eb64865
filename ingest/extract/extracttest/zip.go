package extracttest

import (
	"archive/zip"
	"bytes"
	"testing"
	"time"
)

// XMLHead is the XML declaration every part starts with.
const XMLHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

// Zip writes a ZIP with the given parts (name, content, name, content, ...)
// in order, deflated, with a fixed time so the bytes are reproducible.
func Zip(tb testing.TB, parts ...string) []byte {
	tb.Helper()
	b, err := zipParts(parts...)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// zipParts is Zip returning its error, for callers without a testing.TB.
func zipParts(parts ...string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(parts); i += 2 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: parts[i], Method: zip.Deflate,
			Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(parts[i+1])); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
