package query

import (
	"fmt"
	"testing"
	"time"
)

// TestParse: operators, phrases and negations are taken out of the text
// the retrievers rank by; unknown name:value terms, URLs, flags, operators
// without a value and a lone '-' stay as written.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // fmt of the parsed fields below
	}{
		{"plain words", `text="plain words" in=[] notin=[] path=[] notpath=[] type=[] nottype=[] after= before= phrases=[] not=[]`},
		{`valgrind in:"My Report*" -in:old PATH:Docs/ -path:tmp type:pdf|DOCX,.md -type:txt`,
			`text="valgrind" in=[my report*] notin=[old] path=[docs/] notpath=[tmp] type=[pdf docx md] nottype=[txt] after= before= phrases=[] not=[]`},
		{`after:2024-03 before:2024-03-15 leaks`, `text="leaks" in=[] notin=[] path=[] notpath=[] type=[] nottype=[] after=2024-03-01 before=2024-03-15 phrases=[] not=[]`},
		{`after:2024 "exact phrase" -word -"bad phrase"`, `text="exact phrase" in=[] notin=[] path=[] notpath=[] type=[] nottype=[] after=2024-01-01 before= phrases=[exact phrase] not=[word bad phrase]`},
		{`http://x.org/a foo:bar 10:30 in: - --leak-check=full after:soon`, `text="http://x.org/a foo:bar 10:30 in: - --leak-check=full after:soon" in=[] notin=[] path=[] notpath=[] type=[] nottype=[] after= before= phrases=[] not=[]`},
		{`"unterminated phrase`, `text="unterminated phrase" in=[] notin=[] path=[] notpath=[] type=[] nottype=[] after= before= phrases=[unterminated phrase] not=[]`},
		{`path:C:\Users\me\docs`, `text="" in=[] notin=[] path=[c:/users/me/docs] notpath=[] type=[] nottype=[] after= before= phrases=[] not=[]`},
	} {
		q := Parse(c.in)
		date := func(d time.Time) string {
			if d.IsZero() {
				return ""
			}
			return d.Format(time.DateOnly)
		}
		got := fmt.Sprintf("text=%q in=%v notin=%v path=%v notpath=%v type=%v nottype=%v after=%s before=%s phrases=%v not=%v",
			q.Text, q.In, q.NotIn, q.Path, q.NotPath, q.Type, q.NotType, date(q.After), date(q.Before), q.Phrases, q.Not)
		if got != c.want {
			t.Errorf("Parse(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
	if q := Parse("after:2024-02-30"); !q.After.IsZero() || q.Text != "after:2024-02-30" {
		t.Errorf("an impossible date must stay text: %+v", q)
	}
}
