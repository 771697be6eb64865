package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/library"
)

// maxInstructions bounds the instructions; clients show or keep only the
// start, so the first 512 bytes say everything essential.
const maxInstructions = 2000

// instructionsTTL is how long a library summary is reused for the
// instructions of new sessions, so a burst of connections costs one Summary.
const instructionsTTL = 5 * time.Second

// instructionCache holds the last instructions and when they were made.
type instructionCache struct {
	mu   sync.Mutex
	text string
	at   time.Time
	ttl  time.Duration
}

// instructions returns instructions describing the library as it is now (at
// most ttl old), so documents ingested while serving are named to new
// sessions. On a Summary error the last instructions stay.
func (s *Server) instructions(ctx context.Context) string {
	c := &s.intro
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) < c.ttl {
		return c.text
	}
	sum, err := s.summary(ctx)
	if err != nil {
		s.log.Warn("library summary for instructions", "err", err)
		return c.text
	}
	c.text, c.at = Instructions(sum), time.Now()
	return c.text
}

// summary calls Library.Summary, turning a panic into an error: it runs in
// mcp-go hooks, which do not recover.
func (s *Server) summary(ctx context.Context) (sum library.Summary, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("library summary panicked: %v", v)
		}
	}()
	return s.lib.Summary(ctx)
}

// Instructions returns the MCP server instructions for a library: what it
// holds and how to use the two tools, self-contained in the first 512
// characters, then a list of document titles.
func Instructions(sum library.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpvec: a private local document library (%s). ", libraryBlurb(sum))
	b.WriteString("Use search(query) with a question or key words to find passages; each result has an id, title, url and snippet. ")
	b.WriteString("Then call fetch(id) to read a whole passage. Cite the url of each passage you use; it opens the document at that page. ")
	b.WriteString("Search again with other words when results are off-topic.")
	if len(sum.Titles) > 0 {
		b.WriteString("\n\nDocuments include:")
		for _, t := range sum.Titles {
			line := "\n- " + oneLine(t)
			if b.Len()+len(line) > maxInstructions {
				b.WriteString("\n- …")
				break
			}
			b.WriteString(line)
		}
	}
	return b.String()
}

// libraryBlurb is a short description of the library's size and, when
// small, its first titles.
func libraryBlurb(sum library.Summary) string {
	s := fmt.Sprintf("%d documents, %d passages", sum.Documents, sum.Chunks)
	if sum.Documents == 1 {
		s = fmt.Sprintf("1 document, %d passages", sum.Chunks)
	}
	if len(sum.Titles) > 0 {
		first := sum.Titles[:min(3, len(sum.Titles))]
		names := make([]string, len(first))
		for i, t := range first {
			names[i] = truncateRunes(oneLine(t), 60)
		}
		s += " such as " + strings.Join(names, "; ")
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncateRunes(s string, n int) string {
	t, _ := library.CutText(s, n)
	return t
}
