package web

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/server/internal/client"
)

// Limits on uploads.
const (
	uploadsPerClient = 2    // uploads one client may send at once
	uploadsInAll     = 4    // uploads everyone together may send at once
	maxUploadFiles   = 1000 // files in one upload
	uploadMinRate    = 128 << 10
)

var errCSRF = errors.New("missing or wrong CSRF token (reload the page)")

// upload receives the form's files and runs them through Options.Ingest.
// Nothing of the body is read before admit and the CSRF check passed, and
// the files are streamed to disk, never held in memory.
func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	if h.opts.Ingest == nil {
		h.message(w, r, http.StatusNotImplemented, "Uploads are off", "This server was started without an ingest pipeline.")
		return
	}
	key := client.Key(r)
	if !h.uploads.Acquire(key) {
		refuse(w, http.StatusTooManyRequests, "too many uploads at once: wait for the others to finish")
		return
	}
	defer h.uploads.Release(key)
	files, dir, err := h.receive(w, r)
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	if errors.Is(err, errCSRF) {
		h.log.Warn("web: upload without a valid csrf token")
		refuse(w, http.StatusForbidden, "forbidden: "+err.Error())
		return
	}
	if err != nil || len(files) == 0 {
		msg := "Choose at least one file."
		if err != nil {
			msg = err.Error()
			w.Header().Set("Connection", "close")
			http.NewResponseController(w).SetReadDeadline(time.Now())
		}
		h.render(w, r, http.StatusBadRequest, "add", "Add documents", h.addData(map[string]any{"CanWrite": true, "Error": msg}))
		return
	}
	ups, err := h.opts.Ingest(r.Context(), files)
	sum, failed := uploadSummary(ups)
	data := map[string]any{"CanWrite": true, "Uploads": ups, "Summary": sum, "Failed": failed, "Error": ""}
	status := http.StatusOK
	if failed {
		status = http.StatusUnprocessableEntity
	}
	if err != nil {
		h.log.Warn("web: ingest upload", "files", len(files), "err", err)
		data["Error"], status = "The upload did not finish: "+err.Error(), http.StatusUnprocessableEntity
	}
	h.render(w, r, status, "add", "Add documents", h.addData(data))
}

// receive streams the multipart body's "files" parts into a new folder
// under UploadDir, which it returns for removal ("" when none was made).
// The CSRF token comes from the X-CSRF-Token header, the csrf query
// parameter or, as the page's form sends it, the body's first part; no
// file is read before it is checked.
func (h *Handler) receive(w http.ResponseWriter, r *http.Request) (files []File, dir string, err error) {
	sess := sessionOf(r)
	tok := r.Header.Get("X-CSRF-Token")
	if tok == "" {
		tok = r.URL.Query().Get("csrf")
	}
	checked := tok != "" && sess.validCSRF(tok)
	if tok != "" && !checked {
		return nil, "", errCSRF
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, "", fmt.Errorf("not a file upload: %w", err)
	}
	if checked {
		h.extendDeadline(w, r)
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return files, dir, fmt.Errorf("upload cut short: %w", err)
		}
		if !checked {
			b, _ := io.ReadAll(io.LimitReader(p, 256))
			if p.FormName() != "csrf" || !sess.validCSRF(string(b)) {
				return nil, dir, errCSRF
			}
			checked = true
			h.extendDeadline(w, r)
			continue
		}
		if p.FormName() != "files" || p.FileName() == "" {
			continue // NextPart skips what is left of it
		}
		if len(files) == maxUploadFiles {
			return files, dir, fmt.Errorf("too many files in one upload (the limit is %d)", maxUploadFiles)
		}
		if dir == "" {
			if dir, err = h.uploadFolder(); err != nil {
				return nil, "", err
			}
		}
		f, err := saveUpload(dir, p.FileName(), p)
		if err != nil {
			return files, dir, err
		}
		files = append(files, f)
	}
	if !checked {
		return nil, dir, errCSRF
	}
	bodyRead(w)
	return files, dir, nil
}

// uploadFolder makes a new folder to receive one upload in.
func (h *Handler) uploadFolder() (string, error) {
	if h.opts.UploadDir != "" {
		if err := os.MkdirAll(h.opts.UploadDir, 0o700); err != nil {
			return "", fmt.Errorf("upload folder: %w", err)
		}
	}
	dir, err := os.MkdirTemp(h.opts.UploadDir, ".upload-")
	if err != nil {
		return "", fmt.Errorf("upload folder: %w", err)
	}
	return dir, nil
}

// extendDeadline gives a checked upload time to send the rest of its
// body: BodyTimeout plus the rest at uploadMinRate.
func (h *Handler) extendDeadline(w http.ResponseWriter, r *http.Request) {
	rest := r.ContentLength
	if rest <= 0 {
		rest = h.opts.MaxUpload
	}
	d := h.opts.BodyTimeout + time.Duration(rest/uploadMinRate)*time.Second
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
}

// saveUpload streams one part into a new file in dir.
func saveUpload(dir, filename string, src io.Reader) (File, error) {
	name := filepath.Base(filepath.Clean("/" + filepath.FromSlash(filename)))
	if name == "/" || name == "." || name == ".." || strings.HasPrefix(name, ".upload-") {
		return File{}, fmt.Errorf("bad file name %q", filename)
	}
	f, err := os.CreateTemp(dir, "part-*")
	if err != nil {
		return File{}, fmt.Errorf("receive %s: %w", name, err)
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return File{}, fmt.Errorf("upload too large (the limit is %d bytes)", tooBig.Limit)
		}
		return File{}, fmt.Errorf("receive %s: %w", name, err)
	}
	return File{Name: name, Path: f.Name()}, nil
}

// Saved is where SaveUploads put an uploaded file.
type Saved struct {
	Name string // as uploaded
	Path string // in the upload folder: Name, or "stem (n).ext"
	// Note is one line when the file was saved under another name.
	Note string
}

// SaveUploads moves received files into dir and returns where each went,
// in order and without repeats (a path once), with a Note for each file
// saved under another name. An upload never replaces another file: a file
// whose name is taken by different content is kept beside it as
// "name (2).ext" (the next free number), as a browser's downloads or a
// file manager's "keep both" do, so nothing a user added before is lost;
// a file whose bytes are already there under that name is the same
// document, and is ingested again (a no-op) rather than doubled. Two files
// of one upload with the same name are handled the same way, in order.
// Errors name the file; files moved before one are still in dir. Calls for
// one dir must not overlap (cmd runs uploads one at a time).
func SaveUploads(dir string, files []File) ([]Saved, error) {
	var out []Saved
	seen := map[string]bool{}
	for _, f := range files {
		dst, err := freeName(dir, f)
		if err != nil {
			return out, err
		}
		sv := Saved{Name: f.Name, Path: dst}
		if base := filepath.Base(dst); base != f.Name {
			sv.Note = fmt.Sprintf("%s saved as %q: a different file of that name was uploaded before", f.Name, base)
		}
		if err := moveFile(f.Path, dst); err != nil {
			return out, fmt.Errorf("save %s: %w", f.Name, err)
		}
		if !seen[dst] {
			seen[dst] = true
			out = append(out, sv)
		}
	}
	return out, nil
}

// freeName returns where f goes in dir: its own name, or "stem (n).ext",
// the first that is free or already holds f's exact bytes.
func freeName(dir string, f File) (string, error) {
	ext := filepath.Ext(f.Name)
	stem := strings.TrimSuffix(f.Name, ext)
	for n := 1; n <= 10000; n++ {
		name := f.Name
		if n > 1 {
			name = fmt.Sprintf("%s (%d)%s", stem, n, ext)
		}
		p := filepath.Join(dir, name)
		same, err := sameBytes(p, f.Path)
		if errors.Is(err, os.ErrNotExist) || same {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("save %s: %w", f.Name, err)
		}
	}
	return "", fmt.Errorf("save %s: too many files of that name", f.Name)
}

// sameBytes reports whether files a and b hold the same bytes; its error
// wraps os.ErrNotExist when a does not exist.
func sameBytes(a, b string) (bool, error) {
	ha, err := fileSum(a)
	if err != nil {
		return false, err
	}
	hb, err := fileSum(b)
	return err == nil && bytes.Equal(ha, hb), err
}

func fileSum(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// moveFile renames src to dst, copying across file systems.
func moveFile(src, dst string) error {
	if os.Rename(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
