package office

import "testing"

func TestFormatSerial(t *testing.T) {
	cs := &cellStyles{}
	for _, c := range []struct{ in, want string }{
		{"1", "1900-01-01"}, {"59", "1900-02-28"}, {"61", "1900-03-01"}, {"45000", "2023-03-15"},
		{"45000.000011574", "2023-03-15 00:00:01"}, {"0.5", "12:00"}, {"-1", "-1"}, {"x", "x"}, {"1e300", "1e300"},
	} {
		if got := cs.formatSerial(c.in); got != c.want {
			t.Errorf("formatSerial(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for code, want := range map[string]dateKind{
		"d-mmm-yy": dateTime, `yyyy\-mm\-dd`: dateTime, "h:mm AM/PM": dateTime, "[h]:mm:ss": elapsed, "[$-409]mmmm d, yyyy": dateTime,
		"General": notDate, `0.00 "days"`: notDate, "#,##0.00_);[Red](#,##0.00)": notDate, "[Red]0.0": notDate, `0\d`: notDate,
	} {
		if got := dateFormatCode(code); got != want {
			t.Errorf("dateFormatCode(%q) = %v, want %v", code, got, want)
		}
	}
}
