package markup

import (
	"regexp"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

var (
	mdATX      = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	mdSetext   = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	mdFence    = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	mdRule     = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	mdRefDef   = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*\S+`)
	mdListItem = regexp.MustCompile(`^(\s*)(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?`)
	mdQuote    = regexp.MustCompile(`^ {0,3}(?:>[ \t]?)+`)
	mdTableSep = regexp.MustCompile(`^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$`)
	mdImage    = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	mdLink     = regexp.MustCompile(`\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])`)
	mdAutolink = regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`)
	mdTag      = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<!--.*?-->`)
	mdCode     = regexp.MustCompile("`+([^`]*)`+")
	mdEmphasis = []*regexp.Regexp{
		regexp.MustCompile(`\*\*\*(\S(?:.*?\S)?)\*\*\*`),
		regexp.MustCompile(`\*\*(\S(?:.*?\S)?)\*\*`),
		regexp.MustCompile(`\*(\S(?:.*?\S)?)\*`),
		regexp.MustCompile(`__(\S(?:.*?\S)?)__`),
		regexp.MustCompile(`~~(\S(?:.*?\S)?)~~`),
	}
	mdEscape    = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
	mdUnderline = regexp.MustCompile(`(^|[^\w])_(\S(?:.*?\S)?)_([^\w]|$)`)
)

// Markdown strips Markdown markup and returns the text, its ATX and
// setext headings, and the title: the first level-one heading, else the
// first heading of any level. Code
// blocks keep their content (it is often what a reader searches for) but
// lose their fences; front matter, link targets, reference definitions,
// rules, HTML tags and emphasis markers are dropped.
func Markdown(src string) (title, text string, heads []core.Heading) {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	lines = dropFrontMatter(lines)
	var out []string
	var anyHeading string
	fence := ""
	for i, ln := range lines {
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(ln), fence) {
				fence = ""
				out = append(out, "")
				continue
			}
			out = append(out, ln)
			continue
		}
		if m := mdFence.FindStringSubmatch(ln); m != nil {
			fence = m[1]
			out = append(out, "")
			continue
		}
		if m := mdATX.FindStringSubmatch(ln); m != nil {
			h := mdInline(m[2])
			heads = append(heads, core.Heading{Level: len(m[1]), Title: h})
			if title == "" && len(m[1]) == 1 {
				title = h
			}
			if anyHeading == "" {
				anyHeading = h
			}
			out = append(out, "", h, "")
			continue
		}
		if m := mdSetext.FindStringSubmatch(ln); m != nil && i > 0 && len(out) > 0 && out[len(out)-1] != "" {
			h := out[len(out)-1]
			heads = append(heads, core.Heading{Level: setextLevel(m[1]), Title: h})
			if title == "" && m[1][0] == '=' {
				title = h
			}
			if anyHeading == "" {
				anyHeading = h
			}
			out = append(out, "")
			continue
		}
		if mdRule.MatchString(ln) || mdRefDef.MatchString(ln) || mdTableSep.MatchString(ln) {
			out = append(out, "")
			continue
		}
		out = append(out, mdInline(mdLine(ln)))
	}
	if title == "" {
		title = anyHeading
	}
	return core.OneLine(title), strings.Join(out, "\n"), heads
}

// setextLevel is the level of a setext heading underlined with u.
func setextLevel(u string) int {
	if u[0] == '=' {
		return 1
	}
	return 2
}

// dropFrontMatter removes a leading YAML (---) or TOML (+++) block.
func dropFrontMatter(lines []string) []string {
	if len(lines) == 0 || (lines[0] != "---" && lines[0] != "+++") {
		return lines
	}
	for i := 1; i < len(lines) && i < 200; i++ {
		if lines[i] == lines[0] || (lines[0] == "---" && lines[i] == "...") {
			return lines[i+1:]
		}
	}
	return lines
}

// mdLine strips block markers: quotes, list bullets and table pipes.
func mdLine(ln string) string {
	ln = mdQuote.ReplaceAllString(ln, "")
	ln = mdListItem.ReplaceAllString(ln, "$1")
	if t := strings.TrimSpace(ln); strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") {
		ln = strings.ReplaceAll(strings.Trim(t, "|"), "|", "  ")
	}
	return ln
}

// mdInline strips inline markup, keeping link and image text. Escaped
// punctuation is parked in the private-use area while markup is removed.
// Each pattern runs only when its marker character occurs, which keeps
// plain prose fast.
func mdInline(s string) string {
	has := func(chars string) bool { return strings.ContainsAny(s, chars) }
	escaped := has(`\`)
	if escaped {
		s = mdEscape.ReplaceAllStringFunc(s, func(m string) string { return string(rune(0xF0000) + rune(m[1])) })
	}
	if has("[") {
		s = mdImage.ReplaceAllString(s, "$1")
		s = mdLink.ReplaceAllString(s, "$1")
	}
	if has("<") {
		s = mdAutolink.ReplaceAllString(s, "$1")
		s = mdTag.ReplaceAllString(s, "")
	}
	if has("`") {
		s = mdCode.ReplaceAllString(s, "$1")
	}
	for range 3 { // nested emphasis such as **_word_**
		if !has("*_~") {
			break
		}
		before := s
		for _, re := range mdEmphasis {
			s = re.ReplaceAllString(s, "$1")
		}
		s = mdUnderline.ReplaceAllString(s, "$1$2$3")
		if s == before {
			break
		}
	}
	if !escaped {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r >= 0xF0000 && r < 0xF0080 {
			return r - 0xF0000
		}
		return r
	}, s)
}
