package identity

import (
	"context"
	"testing"
)

func TestLabelAndKey(t *testing.T) {
	for _, c := range []struct {
		p          Person
		label, key string
	}{
		{Person{}, "owner", ""},
		{Person{Issuer: "https://id.example", Subject: "42", Email: "Ann@Example.com", EmailVerified: true}, "ann@example.com", "https://id.example#42"},
		{Person{Issuer: "https://id.example", Subject: "42", Email: "ann@example.com"}, "42", "https://id.example#42"},
	} {
		if got := c.p.Label(); got != c.label {
			t.Errorf("%+v: Label = %q, want %q", c.p, got, c.label)
		}
		if got := c.p.Key(); got != c.key {
			t.Errorf("%+v: Key = %q, want %q", c.p, got, c.key)
		}
	}
}

func TestContext(t *testing.T) {
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("an empty context carries a person")
	}
	want := Person{Issuer: "https://id.example", Subject: "7"}
	got, ok := FromContext(NewContext(context.Background(), want))
	if !ok || got.Key() != want.Key() {
		t.Fatalf("FromContext = %+v, %v; want %+v", got, ok, want)
	}
}
