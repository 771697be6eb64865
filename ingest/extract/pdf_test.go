package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestExtractPDFPages(t *testing.T) {
	data := testPDF{
		Title: "Cats and their homes",
		Pages: [][]string{
			{"Cats are territorial animals.", "They are attached to their homes."},
			{"The second page talks about fish and", "exam-", "ple words."},
			{"Ünïcödé façade — 20 €"},
		},
	}.Bytes(t)
	doc, err := mustExtractor(t).Extract(context.Background(), "cats.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Title, "Cats and their homes"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got, want := doc.MediaType, TypePDF; got != want {
		t.Errorf("media type = %q, want %q", got, want)
	}
	if got, want := len(doc.Pages), 3; got != want {
		t.Fatalf("pages = %d, want %d: %q", got, want, doc.Pages)
	}
	for i, want := range []string{
		"Cats are territorial animals.\nThey are attached to their homes.",
		"The second page talks about fish and\nexample words.",
		"Ünïcödé façade — 20 €",
	} {
		if got := doc.Pages[i]; got != want {
			t.Errorf("page %d = %q, want %q", i+1, got, want)
		}
	}
}

func TestExtractPDFEncrypted(t *testing.T) {
	data := testPDF{Title: "Secret", Pages: [][]string{{"The cat sleeps on the secret sofa."}}, Password: "meow"}.Bytes(t)
	ext := mustExtractor(t)
	if _, err := ext.Extract(context.Background(), "secret.pdf", data); !errors.Is(err, ErrEncrypted) {
		t.Fatalf("no password: err = %v, want ErrEncrypted", err)
	}
	if got, want := ErrEncrypted.Error(), "password required"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	opts := testOptions()
	opts.Password = "meow"
	withPW, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer withPW.Close()
	doc, err := withPW.Extract(context.Background(), "secret.pdf", data)
	if err != nil {
		t.Fatalf("with password: %v", err)
	}
	if got, want := strings.Join(doc.Pages, "|"), "The cat sleeps on the secret sofa."; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if got, want := doc.Title, "Secret"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	opts.Password = "woof"
	wrong, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if _, err := wrong.Extract(context.Background(), "secret.pdf", data); !errors.Is(err, ErrEncrypted) {
		t.Fatalf("wrong password: err = %v, want ErrEncrypted", err)
	}
}
