package pdf

import (
	"os"
	"testing"
	"time"
)

// TestMain turns the test binary into a memory hog or a parent to be
// killed, as the tests that re-run it ask (by environment). The tests here
// run stand-ins as the worker; extract's tests run the real one.
func TestMain(m *testing.M) {
	if os.Getenv(hogEnv) == "1" { // a misbehaving worker for TestWorkerMemoryLimit
		hog := make([]byte, 512<<20)
		for i := range hog {
			hog[i] = byte(i)
		}
		time.Sleep(20 * time.Second)
		os.Exit(int(hog[1]))
	}
	if os.Getenv(orphanParentEnv) == "1" { // a parent for TestWorkerDiesWithParent
		runOrphanParent()
	}
	if os.Getenv(ocrOrphanParentEnv) != "" { // a parent for TestOCRDiesWithParent
		runOCROrphanParent(os.Getenv(ocrOrphanParentEnv))
	}
	os.Exit(m.Run())
}

const hogEnv = "MCPVEC_EXTRACT_TEST_HOG"

// testConfig is a filled-in Config (extract's defaults, OCR off); each
// test sets the worker command it runs.
func testConfig() Config {
	return Config{
		PageTimeout: 30 * time.Second, DocTimeout: 120 * time.Second,
		MemoryLimit: 1 << 30, MaxInstances: 1, OCR: OCRNever, OCRLang: "eng", OCRDPI: DefaultOCRDPI,
		OCRCommand: "tesseract", OCRWorkers: 1,
	}
}
