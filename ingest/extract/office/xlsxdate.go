package office

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// cellStyles is what a workbook says about showing numbers as dates: for
// each cell style index (a cell's s attribute, into cellXfs) whether its
// number format is a date or time, and the workbook's date system.
type cellStyles struct {
	kind     []dateKind // by cellXfs index
	date1904 bool       // serial 0 is 1904-01-01, not 1899-12-31
}

// dateKind is how a number format shows a number.
type dateKind uint8

const (
	notDate  dateKind = iota
	dateTime          // a date, a time of day, or both
	elapsed           // a duration in hours ([h]:mm:ss)
)

// stylesXMLHandler reads the numFmts and cellXfs of xl/styles.xml.
type stylesXMLHandler struct {
	custom map[string]string // numFmtId to format code
	xfs    []string          // numFmtId of each cellXfs entry
	inXfs  bool
}

func (h *stylesXMLHandler) start(e xml.StartElement) bool {
	switch e.Name.Local {
	case "numFmt":
		h.custom[xmlAttr(e, "numFmtId")] = xmlAttr(e, "formatCode")
	case "cellXfs":
		h.inXfs = true
	case "xf":
		if h.inXfs {
			h.xfs = append(h.xfs, xmlAttr(e, "numFmtId"))
		}
	}
	return false
}

func (h *stylesXMLHandler) end(e xml.EndElement) {
	if e.Name.Local == "cellXfs" {
		h.inXfs = false
	}
}
func (h *stylesXMLHandler) chars(string) {}

// workbookPrHandler reads workbookPr's date1904 in xl/workbook.xml.
type workbookPrHandler struct{ date1904 bool }

func (h *workbookPrHandler) start(e xml.StartElement) bool {
	if e.Name.Local == "workbookPr" {
		v := xmlAttr(e, "date1904")
		h.date1904 = v == "1" || v == "true"
	}
	return false
}
func (h *workbookPrHandler) end(xml.EndElement) {}
func (h *workbookPrHandler) chars(string)       {}

// readCellStyles reads the date formats of xl/styles.xml and the date
// system of workbook. Styles are never worth failing a workbook for: a
// missing or broken styles part leaves every number a number.
func readCellStyles(a *archive, workbook string) *cellStyles {
	s := &cellStyles{}
	wb := &workbookPrHandler{}
	if a.walk(workbook, wb) == nil {
		s.date1904 = wb.date1904
	}
	h := &stylesXMLHandler{custom: map[string]string{}}
	if !a.has("xl/styles.xml") || a.walk("xl/styles.xml", h) != nil {
		return s
	}
	s.kind = make([]dateKind, len(h.xfs))
	for i, id := range h.xfs {
		code, ok := h.custom[id]
		switch {
		case ok:
			s.kind[i] = dateFormatCode(code)
		case id == "46":
			s.kind[i] = elapsed
		case builtinDateFormat(id):
			s.kind[i] = dateTime
		}
	}
	return s
}

// builtinDateFormat reports whether a built-in number format id is a date
// or time: 14–22 and 45–47 in every locale, 27–36 and 50–58 the East
// Asian date formats.
func builtinDateFormat(id string) bool {
	n, err := strconv.Atoi(id)
	return err == nil && (n >= 14 && n <= 22 || n >= 45 && n <= 47 || n >= 27 && n <= 36 || n >= 50 && n <= 58)
}

// dateFormatCode tells how a custom format code shows a number: elapsed
// with a bracketed [h], [m] or [s]; a date or time with a d, m, y, h or s
// token outside quoted text, escaped characters and other bracketed parts
// (colours, locales).
func dateFormatCode(code string) dateKind {
	kind := notDate
	code, _, _ = strings.Cut(code, ";") // the positive-number section
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		case '\\', '_', '*':
			i++
		case '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				return kind
			}
			if inner := strings.ToLower(code[i+1 : i+j]); strings.Trim(inner, "hms") == "" && inner != "" {
				return elapsed
			}
			i += j
		case 'd', 'D', 'm', 'M', 'y', 'Y', 'h', 'H', 's', 'S':
			kind = dateTime
		}
	}
	return kind
}

// format renders the number v of a cell of style index s (the c
// element's s attribute) as its format shows it when that is a date, a
// time or a duration; other numbers are returned as they stand.
func (cs *cellStyles) format(s, v string) string {
	i, err := strconv.Atoi(s)
	if err != nil || cs == nil || i < 0 || i >= len(cs.kind) {
		return v
	}
	switch cs.kind[i] {
	case dateTime:
		return cs.formatSerial(v)
	case elapsed:
		return formatElapsed(v)
	}
	return v
}

// formatElapsed renders a number of days as hours:minutes:seconds.
func formatElapsed(v string) string {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 1e6 {
		return v
	}
	secs := int64(math.Round(f * 86400))
	return fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
}

// formatSerial renders an Excel date serial number ISO-like: 2006-01-02,
// then the time (15:04, or 15:04:05 with seconds) when it is not
// midnight; a serial under 1 is a time of day only. It returns v as it
// stands when it is no number or out of range.
func (cs *cellStyles) formatSerial(v string) string {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 2958465 || math.IsNaN(f) {
		return v
	}
	secs := int64(math.Round(f * 86400))
	days, rest := secs/86400, time.Duration(secs%86400)*time.Second
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	switch {
	case cs.date1904:
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	case days < 61:
		base = base.AddDate(0, 0, 1) // Excel counts a 29 February 1900 that never was
	}
	t := base.AddDate(0, 0, int(days)).Add(rest)
	clock := "15:04"
	if secs%60 != 0 {
		clock = "15:04:05"
	}
	switch {
	case f < 1:
		return t.Format(clock)
	case rest == 0:
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 " + clock)
}
