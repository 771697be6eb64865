package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// lucenePrefix is where Debian's liblucene8-java puts its jars.
const lucenePrefix = "/usr/share/java/lucene-"

// errNoLucene means java, javac or liblucene8-java is missing.
var errNoLucene = errors.New("lucene anchor needs java, javac and liblucene8-java (apt-get install liblucene8-java default-jdk-headless)")

// luceneClasspath finds the core, analyzers-common and queryparser jars.
func luceneClasspath() (string, error) {
	if _, err := exec.LookPath("javac"); err != nil {
		return "", errNoLucene
	}
	var jars []string
	for _, name := range []string{"core", "analyzers-common", "queryparser"} {
		m, _ := filepath.Glob(lucenePrefix + name + "-8.*.jar")
		if len(m) == 0 {
			return "", errNoLucene
		}
		jars = append(jars, m[len(m)-1])
	}
	return strings.Join(jars, ":"), nil
}

// runLucene compiles lucene/Anchor.java and runs it on passages (a
// passages.tsv path) and qs, in a JVM limited to one processor.
func runLucene(src, passages string, qs []query, dir string, rounds int, positions bool) (result, error) {
	r := result{engine: "Lucene 8.7 (Debian), EnglishAnalyzer, BM25"}
	if positions {
		r.engine += ", with positions"
	}
	cp, err := luceneClasspath()
	if err != nil {
		return r, err
	}
	classes := filepath.Join(dir, "lucene-classes")
	if out, err := exec.Command("javac", "-cp", cp, "-d", classes, filepath.Join(src, "lucene", "Anchor.java")).CombinedOutput(); err != nil {
		return r, fmt.Errorf("javac: %w: %s", err, out)
	}
	qfile, outFile := filepath.Join(dir, "lucene-queries.txt"), filepath.Join(dir, "lucene-out.txt")
	var b strings.Builder
	for _, q := range qs {
		b.WriteString(strings.ReplaceAll(q.text, "\n", " ") + "\n")
	}
	if err := os.WriteFile(qfile, []byte(b.String()), 0o644); err != nil {
		return r, err
	}
	ixDir := filepath.Join(dir, fmt.Sprint("lucene-index-", positions))
	cmd := exec.Command("java", "-Xmx2g", "-XX:+UseSerialGC", "-XX:ActiveProcessorCount=1", "-cp", cp+":"+classes,
		"Anchor", passages, qfile, ixDir, strconv.Itoa(rounds), strconv.FormatBool(positions), outFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		return r, fmt.Errorf("java Anchor: %w: %s", err, out)
	}
	return readLuceneOut(r, outFile, len(qs))
}

func readLuceneOut(r result, path string, n int) (result, error) {
	f, err := os.Open(path)
	if err != nil {
		return r, err
	}
	defer f.Close()
	return parseOut(r, bufio.NewScanner(f), n, path)
}

// parseOut reads "build_wall_ns build_cpu_ns size_bytes" and then a line a
// query, "cpu_ns<TAB>n1 n2 ..."; n < 0 takes any number of queries.
func parseOut(r result, sc *bufio.Scanner, n int, path string) (result, error) {
	if !sc.Scan() {
		return r, fmt.Errorf("%s: empty", path)
	}
	var wall, cpu int64
	if _, err := fmt.Sscan(sc.Text(), &wall, &cpu, &r.size); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	r.buildWall, r.build = time.Duration(wall), time.Duration(cpu)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		ns, _ := strconv.ParseInt(f[0], 10, 64)
		r.cpu = append(r.cpu, time.Duration(ns))
		var top []int
		for _, s := range f[1:] {
			i, _ := strconv.Atoi(s)
			top = append(top, i)
		}
		r.top = append(r.top, top)
	}
	if n >= 0 && len(r.cpu) != n {
		return r, fmt.Errorf("%s: %d queries, want %d", path, len(r.cpu), n)
	}
	return r, sc.Err()
}
