package core

import (
	"testing"
	"time"
)

func TestParsePDFDate(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s int) time.Time {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
	}
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"D:20230415103000+02'00'", utc(2023, 4, 15, 8, 30, 0)},
		{"D:20230415103000-05'30'", utc(2023, 4, 15, 16, 0, 0)},
		{"D:20230415103000+02'00", utc(2023, 4, 15, 8, 30, 0)},
		{"D:20230415103000+0200", utc(2023, 4, 15, 8, 30, 0)},
		{"D:20230415103000+02", utc(2023, 4, 15, 8, 30, 0)},
		{"D:20230415103000Z", utc(2023, 4, 15, 10, 30, 0)},
		{"D:20230415103000Z00'00'", utc(2023, 4, 15, 10, 30, 0)},
		{"D:20230415103000", utc(2023, 4, 15, 10, 30, 0)},
		{"20230415103000", utc(2023, 4, 15, 10, 30, 0)},
		{"D:202304151030", utc(2023, 4, 15, 10, 30, 0)},
		{"D:2023041510", utc(2023, 4, 15, 10, 0, 0)},
		{"D:20230415", utc(2023, 4, 15, 0, 0, 0)},
		{"D:202304", utc(2023, 4, 1, 0, 0, 0)},
		{"D:2023", utc(2023, 1, 1, 0, 0, 0)},
		{" D:20230415 ", utc(2023, 4, 15, 0, 0, 0)},
		{"", time.Time{}},
		{"D:", time.Time{}},
		{"garbage", time.Time{}},
		{"D:202", time.Time{}},
		{"D:20231", time.Time{}},
		{"D:20231315", time.Time{}},
		{"D:20230231", time.Time{}},
		{"D:20230415250000", time.Time{}},
		{"D:20230415103000+99'00'", time.Time{}},
		{"D:20230415103000+-1'00'", time.Time{}},
		{"D:20230415103000junk", time.Time{}},
		{"D:202304151030001234", time.Time{}},
		{"D:00000101", time.Time{}},
		{"Sat Apr 15 10:30:00 2023", time.Time{}},
	} {
		if got := ParsePDFDate(c.in); !got.Equal(c.want) || got.Location() != time.UTC && !got.IsZero() {
			t.Errorf("ParsePDFDate(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestParseW3CDate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2021-03-04T05:06:07Z", time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)},
		{"2021-03-04T05:06:07+01:00", time.Date(2021, 3, 4, 4, 6, 7, 0, time.UTC)},
		{"2021-03-04T05:06:07.123", time.Date(2021, 3, 4, 5, 6, 7, 123e6, time.UTC)},
		{"2021-03-04T05:06Z", time.Date(2021, 3, 4, 5, 6, 0, 0, time.UTC)},
		{" 2021-03-04 ", time.Date(2021, 3, 4, 0, 0, 0, 0, time.UTC)},
		{"2021-03", time.Date(2021, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"2021", time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"", time.Time{}},
		{"yesterday", time.Time{}},
		{"2021-13-01", time.Time{}},
	} {
		if got := ParseW3CDate(c.in); !got.Equal(c.want) {
			t.Errorf("ParseW3CDate(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
