package core

import (
	"strconv"
	"strings"
	"time"
)

// ParsePDFDate parses a PDF date string, "D:YYYYMMDDHHmmSSOHH'mm'" (PDF
// 32000 7.9.4), in UTC. Every part after the year is optional; a missing
// time zone is read as UTC. A prefix without "D:", a trailing apostrophe
// and "Z" are accepted. Garbage, an out-of-range field or a year outside
// 1000-9999 gives the zero time. It is a pure function, safe for concurrent use.
func ParsePDFDate(s string) time.Time {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	if digits < 4 || digits > 14 || digits%2 != 0 {
		return time.Time{}
	}
	f := [6]int{0, 1, 1, 0, 0, 0} // year, month, day, hour, minute, second
	f[0], _ = strconv.Atoi(s[:4])
	for i := 1; 4+2*i <= digits; i++ {
		f[i], _ = strconv.Atoi(s[2+2*i : 4+2*i])
	}
	loc, ok := pdfZone(s[digits:])
	if !ok || f[0] < 1000 || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23 || f[4] > 59 || f[5] > 60 {
		return time.Time{}
	}
	t := time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], 0, loc)
	if t.Day() != f[2] { // 31 February
		return time.Time{}
	}
	return t.UTC()
}

// pdfZone reads a PDF date's time zone: "", "Z", "Z00'00'", "+HH", "+HH'mm"
// or "-HH'mm'" (apostrophes optional); ok is false for anything else.
func pdfZone(z string) (*time.Location, bool) {
	z = strings.TrimRight(strings.ReplaceAll(z, "'", ""), " ")
	if z == "" || z[0] == 'Z' && strings.Trim(z[1:], "0") == "" {
		return time.UTC, true
	}
	sign := map[byte]int{'+': 1, '-': -1}[z[0]]
	if sign == 0 || (len(z) != 3 && len(z) != 5) {
		return nil, false
	}
	hh, err1 := strconv.Atoi(z[1:3])
	mm, err2 := 0, error(nil)
	if len(z) == 5 {
		mm, err2 = strconv.Atoi(z[3:5])
	}
	if err1 != nil || err2 != nil || hh > 23 || mm > 59 || z[1] == '+' || z[1] == '-' {
		return nil, false
	}
	return time.FixedZone("", sign*(hh*3600+mm*60)), true
}

// ParseW3CDate parses a W3C date-time (W3CDTF, as dcterms:created in
// docProps/core.xml, meta:creation-date in ODF meta.xml and dc:date in
// EPUB use): "YYYY", "YYYY-MM", "YYYY-MM-DD" or a full date-time with or
// without a zone (no zone is read as UTC), in UTC. Anything else gives the
// zero time. It is a pure function, safe for concurrent use.
func ParseW3CDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", time.DateOnly, "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
