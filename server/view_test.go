package server

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

const (
	typePPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	typeXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// viewDocs are documents whose citations open the text view: a deck whose
// text and title try to inject markup, a workbook and an unpaged text.
var viewDocs = []testDoc{
	{id: "deck", title: `Deck <b>bold</b> "quoted"`, path: "/lib/deck.pptx", mediaType: typePPTX, units: true,
		original: []byte("PK fake pptx"),
		passages: []string{
			`Welcome <script>alert("x")</script> to the quarterly deck.`,
			"Revenue grew strongly in March thanks to the harbour contract.",
			`Closing remarks </section><h1>injected</h1> and questions.`,
		}},
	{id: "book", title: "book.xlsx", path: "/lib/book.xlsx", mediaType: typeXLSX, units: true,
		original: []byte("PK fake xlsx"),
		passages: []string{"Revenue\n\nQ1 | 10", "Costs\n\nQ1 | lighthouse maintenance"}},
	{id: "notes", title: "notes.txt", path: "/lib/notes.txt", mediaType: "text/plain",
		original: []byte("plain notes"),
		passages: []string{"The ferry leaves at noon.", "Tickets are sold at the kiosk by the pier.", "Bring a coat."}},
	realDocs[0],
}

var sectionRE = regexp.MustCompile(`(?s)<section class="page" id="([^"]+)">(.*?)</section>`)

// viewSections returns the text of each unit of a rendered view by anchor,
// unescaped and without tags.
func viewSections(body string) map[string]string {
	tags := regexp.MustCompile(`<[^>]*>`)
	out := map[string]string{}
	for _, m := range sectionRE.FindAllStringSubmatch(body, -1) {
		out[m[1]] = html.UnescapeString(tags.ReplaceAllString(m[2], ""))
	}
	return out
}

func TestDocumentViewCitations(t *testing.T) {
	const public = "https://quiet-lake-1234.trycloudflare.com"
	lib := realLib{MustRealLibrary(t, hashEmbedder{Dims: 64}, viewDocs)}
	s := MustNew(t, lib, Options{PublicURL: public, Token: "tok"})
	base := MustServe(t, s)
	tr, err := transport.NewStreamableHTTP(base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok"}))
	if err != nil {
		t.Fatal(err)
	}
	c := clientOn(t, tr, mcp.ProtocolVersion20250618)
	sig := signatureFor(testLinkKey, "deck")
	for _, tc := range []struct{ query, id, url string }{
		{"revenue grew march harbour contract", "deck:1", "/docs/deck/" + sig + "/view#slide-2"},
		{"lighthouse maintenance costs", "book:1", "/docs/book/" + signatureFor(testLinkKey, "book") + "/view#sheet-2"},
		{"tickets sold kiosk pier", "notes:1", "/docs/notes/" + signatureFor(testLinkKey, "notes") + "/view#passage-1"},
		{"replace the impeller bolts", "manual:1", "/docs/manual/" + signatureFor(testLinkKey, "manual") + "#page=2"},
	} {
		var sr library.SearchResponse
		decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": tc.query}), &sr)
		if len(sr.Results) == 0 || sr.Results[0].ID != tc.id || sr.Results[0].URL != public+tc.url {
			t.Errorf("search %q: %+v, want %s at %s", tc.query, sr.Results, tc.id, public+tc.url)
		}
	}
	var fr library.FetchResponse
	decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "deck:2"}), &fr)
	if want := public + "/docs/deck/" + sig + "/view#slide-3"; fr.URL != want {
		t.Errorf("fetch deck:2 url = %q, want %q", fr.URL, want)
	}
	decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "deck"}), &fr)
	if want := public + "/docs/deck/" + sig + "/view#slide-1"; fr.URL != want {
		t.Errorf("fetch deck url = %q, want %q", fr.URL, want)
	}
	checkDeckView(t, base, public)
}

// checkDeckView opens the deck's view without the token, like the
// original's link, and checks what it shows and how.
func checkDeckView(t *testing.T, base, public string) {
	t.Helper()
	sig := signatureFor(testLinkKey, "deck")
	code, h, body := getAll(t, base+"/docs/deck/"+sig+"/view")
	if code != 200 || h.Get("Content-Type") != "text/html; charset=utf-8" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("view: %d %v\n%s", code, h, body)
	}
	checkViewCSP(t, h.Get("Content-Security-Policy"), body)
	if strings.Contains(body, "<script") || strings.Contains(body, "<b>") || strings.Contains(body, "<h1>injected") {
		t.Errorf("hostile text reached the page as markup:\n%s", body)
	}
	for _, want := range []string{
		`<title>Deck &lt;b&gt;bold&lt;/b&gt; &#34;quoted&#34;</title>`,
		`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`,
		`<h2>Slide 2</h2>`,
		`<a href="` + public + `/docs/deck/` + sig + `">Download the original file</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("view lacks %s:\n%s", want, body)
		}
	}
	units := viewSections(body)
	if got := units["slide-2"]; !strings.Contains(got, "Revenue grew strongly in March") || strings.Contains(got, "quarterly") {
		t.Errorf("slide-2 = %q (sections %v)", got, units)
	}
	if got := units["slide-3"]; !strings.Contains(got, "</section><h1>injected</h1>") {
		t.Errorf("slide-3 = %q, want the hostile text shown as text", got)
	}
	_, _, book := getAll(t, base+"/docs/book/"+signatureFor(testLinkKey, "book")+"/view")
	if !strings.Contains(book, `<h2>Sheet: Costs</h2>`) || !strings.Contains(viewSections(book)["sheet-2"], "lighthouse") {
		t.Errorf("workbook view:\n%s", book)
	}
	_, _, notes := getAll(t, base+"/docs/notes/"+signatureFor(testLinkKey, "notes")+"/view")
	if !strings.Contains(notes, `<span id="passage-1"></span>Tickets are sold`) || strings.Contains(notes, "<h2>") {
		t.Errorf("text view:\n%s", notes)
	}
}

// getAll GETs url without credentials and reads the whole body.
func getAll(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// checkViewCSP checks that the policy allows no script and exactly the
// page's inline stylesheet.
func checkViewCSP(t *testing.T, csp, body string) {
	t.Helper()
	start, end := strings.Index(body, "<style>"), strings.Index(body, "</style>")
	if start < 0 || end < start {
		t.Fatalf("no stylesheet in the view:\n%s", body)
	}
	sum := sha256.Sum256([]byte(body[start+len("<style>") : end]))
	if !strings.HasPrefix(csp, "default-src 'none'; ") || strings.Contains(csp, "script-src") ||
		!strings.Contains(csp, "style-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
		t.Errorf("CSP = %q", csp)
	}
}

func TestDocumentViewRefusals(t *testing.T) {
	lib := realLib{MustRealLibrary(t, hashEmbedder{Dims: 16}, viewDocs)}
	s := MustNew(t, lib, Options{Token: "tok"})
	base := MustServe(t, s)
	deck, book := signatureFor(testLinkKey, "deck"), signatureFor(testLinkKey, "book")
	for _, p := range []string{
		"/docs/deck/" + book + "/view",                              // another document's signature
		"/docs/deck/" + deck[:len(deck)-1] + "/view",                // truncated
		"/docs/gone/" + signatureFor(testLinkKey, "gone") + "/view", // signed, unknown
		"/docs/deck/" + deck + "/view/x",                            // extra segment
	} {
		if code, _, _ := do(t, "GET", base+p, "", "", nil); code != 404 {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
	if code, _, _ := do(t, "POST", base+"/docs/deck/"+deck+"/view", "", "x", nil); code != 405 {
		t.Errorf("POST view: %d, want 405", code)
	}
	code, h, body := do(t, "HEAD", base+"/docs/deck/"+deck+"/view", "", "", nil)
	if code != 200 || body != "" || h.Get("Content-Length") == "" || h.Get("Content-Security-Policy") == "" {
		t.Errorf("HEAD view: %d %q %v", code, body, h)
	}
	// The original stays where it was, under any other name.
	checkDocLink(t, base+"/docs/deck/"+deck, typePPTX, "PK fake")
	checkDocLink(t, base+"/docs/deck/"+deck+"/deck.pptx", typePPTX, "PK fake")
}

// TestDocumentViewWithOAuth: with sign-in, MCP calls need an access token
// but the view a search cites opens without one, as the original does.
func TestDocumentViewWithOAuth(t *testing.T) {
	lib := realLib{MustRealLibrary(t, hashEmbedder{Dims: 64}, viewDocs)}
	s, base := oauthServe(t, lib, Options{}, "")
	headers := map[string]string{"Authorization": "Bearer " + oauthLogin(t, base)}
	c, _ := MustClient(t, s, streamable, base+"/mcp", headers, mcp.ProtocolVersion20250618)
	var sr library.SearchResponse
	decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "revenue grew march harbour contract"}), &sr)
	want := base + "/docs/deck/" + signatureFor(testLinkKey, "deck") + "/view#slide-2"
	if len(sr.Results) == 0 || sr.Results[0].URL != want {
		t.Fatalf("results = %+v, want %s first", sr.Results, want)
	}
	link, _, _ := strings.Cut(sr.Results[0].URL, "#")
	code, h, body := getAll(t, link)
	if code != 200 || h.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(viewSections(body)["slide-2"], "Revenue grew") {
		t.Errorf("view without a token: %d %v\n%s", code, h, body)
	}
}
