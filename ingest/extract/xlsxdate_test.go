package extract

import (
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestExtractXLSXDates: numbers in a date or time format are indexed as
// dates, in the workbook's date system, not as serial numbers; other
// numbers stay as stored.
func TestExtractXLSXDates(t *testing.T) {
	for _, tc := range []struct {
		date1904 bool
		want     string
	}{
		{true, "Dates\n\nBorn | 1952-10-11 14:24\nFiled | 1952-10-11 14:24\nAlarm | 18:00\nPlain | 17816.6\nSpan | 12.5\nElapsed | 36:00:00"},
		{false, "Dates\n\nBorn | 1948-10-10 14:24\nFiled | 1948-10-10 14:24\nAlarm | 18:00\nPlain | 17816.6\nSpan | 12.5\nElapsed | 36:00:00"},
	} {
		doc := mustExtract(t, "dates.xlsx", extracttest.DatesXLSX(t, tc.date1904))
		if got := strings.Join(doc.Pages, "|"); got != tc.want {
			t.Errorf("date1904=%v:\n got %q\nwant %q", tc.date1904, got, tc.want)
		}
	}
}
