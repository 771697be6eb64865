package pdf

import "testing"

// TestSASLPrep checks the preparation of AES-256 PDF passwords.
func TestSASLPrep(t *testing.T) {
	for in, want := range map[string]string{
		"S\u00aaSL\u00adprep": "SaSLprep", // the example of RFC 4013 and pdf.js's saslprep-r6.pdf
		"a\u00a0b":            "a b",
		"\u2168":              "IX",
		"plain":               "plain",
	} {
		if got := saslPrep(in); got != want {
			t.Errorf("saslPrep(%q) = %q, want %q", in, got, want)
		}
	}
}
