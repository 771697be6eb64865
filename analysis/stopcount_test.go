package analysis

import (
	"math/bits"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// refCountStopWords is CountStopWords as it was before its ASCII fast
// path: every character decoded, tested and lowercased through unicode.
func refCountStopWords(text string) StopWordCounts {
	var counts [numLanguages + 1]int
	var buf [16]byte
	words, cyrillic := 0, 0
	for i := 0; i < len(text) && words < detectWords; {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += size
			continue
		}
		j, n := i, 0
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) {
				break
			}
			if n >= 0 && n+utf8.RuneLen(unicode.ToLower(r)) <= len(buf) {
				n += utf8.EncodeRune(buf[n:], unicode.ToLower(r))
			} else {
				n = -1
			}
			j += size
		}
		if unicode.Is(unicode.Cyrillic, r) {
			cyrillic++
		}
		if n > 0 {
			for m := stopLangs[string(buf[:n])]; m != 0; m &= m - 1 {
				counts[bits.TrailingZeros16(m)]++
			}
		}
		words++
		i = j
	}
	return StopWordCounts{counts: counts, words: words, cyrillic: cyrillic}
}

// stopCountTexts are texts whose words mix ASCII and other letters at
// every position, with invalid UTF-8, digits and the ASCII neighbours of
// letters ('@', '[', '`', '{').
func stopCountTexts(t *testing.T) []string {
	out := []string{"", "The and OF der DIE Él était já ЭТО и не", "café Straße ÜBER naïve façade", "@[`{ A@Z[a`z{ 09",
		"x\xffthe\xc3 und\x80DER", strings.Repeat("sehr ", 200), "ÀÉÎÕÜ thé éthe", "abcdefghijklmnopq ABCDEFGHIJKLMNOP éééééééé"}
	for _, m := range readManpages(t) {
		out = append(out, m.text, m.query)
	}
	for _, s := range readSamples(t) {
		out = append(out, s.Text)
	}
	return out
}

// refDetect is Detect from every word counted, before it could stop early.
func refDetect(text string) Language {
	c := refCountStopWords(text)
	return decide(c.counts, c.words, c.cyrillic)
}

// TestCountStopWordsMatchesReference: the ASCII fast path counts what
// decoding every character counted, and Detect, which may stop reading
// early, answers what counting every word answered.
func TestCountStopWordsMatchesReference(t *testing.T) {
	texts := stopCountTexts(t)
	// Near the early stop: English stop words, then another language's.
	for _, n := range []int{20, 25, 30, 40, 60, 72, 80, 88, 96} {
		texts = append(texts, strings.Repeat("the ", n)+strings.Repeat("der die und ", 40),
			strings.Repeat("the cat ", n/2)+strings.Repeat("это и не ", 40))
	}
	for _, text := range texts {
		if got, want := CountStopWords(text), refCountStopWords(text); got != want {
			t.Errorf("CountStopWords(%.60q) = %+v, want %+v", text, got, want)
		}
		if got, want := Detect(text), refDetect(text); got != want {
			t.Errorf("Detect(%.60q) = %s, want %s", text, got, want)
		}
	}
}

func FuzzCountStopWords(f *testing.F) {
	for _, s := range []string{"The and OF", "café Straße", "x\xffthe\xc3 und", "ЭТО и не", "@[`{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := CountStopWords(text), refCountStopWords(text); got != want {
			t.Errorf("CountStopWords(%q) = %+v, want %+v", text, got, want)
		}
		if got, want := Detect(text), refDetect(text); got != want {
			t.Errorf("Detect(%q) = %s, want %s", text, got, want)
		}
	})
}

// BenchmarkDetect compares Detect on a passage of English prose with the
// reference that decodes every character and reads every word.
func BenchmarkDetect(b *testing.B) {
	text := strings.Repeat("The results suggest that vitamin D deficiency is associated with the risk of disease. ", 12)
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			refDetect(text)
		}
	})
	b.Run("detect", func(b *testing.B) {
		for b.Loop() {
			Detect(text)
		}
	})
}
