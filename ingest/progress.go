package ingest

// Progress is where an ingest run (one Run or Files call) stands, as
// Options.Progress is told it: once when the run starts (no file done),
// after each file, and once more when it ends (Done).
type Progress struct {
	Files, Total    int  // files done, of the Total the run was given
	Pages, Passages int  // of the files done
	Done            bool // the run has ended: the last report of the run
}

// progress counts a run's files for Options.Progress; with a nil func it
// does nothing. Its callers serialise add and stop.
type progress struct {
	report func(Progress)
	at     Progress
}

// newProgress reports the start of a run of total files.
func newProgress(report func(Progress), total int) *progress {
	p := &progress{report: report, at: Progress{Total: total}}
	if report != nil {
		report(p.at)
	}
	return p
}

// add counts a file done, with its pages and passages.
func (p *progress) add(pages, chunks int) {
	p.at.Files++
	p.at.Pages += pages
	p.at.Passages += chunks
	if p.report != nil {
		p.report(p.at)
	}
}

// stop reports the end of the run.
func (p *progress) stop() {
	p.at.Done = true
	if p.report != nil {
		p.report(p.at)
	}
}
