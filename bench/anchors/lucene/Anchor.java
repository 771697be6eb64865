// Anchor is bench/anchors' Lucene driver (issue 41): it indexes the
// passages of passages.tsv with EnglishAnalyzer and BM25Similarity
// (k1 1.2, b 0.75) on one thread, merges to one segment, then runs every
// query once to warm up and ROUNDS times measured, each on one thread,
// top 10, timing QueryParser.parse plus IndexSearcher.search by the
// thread's CPU clock. Compiled by bench/anchors with javac at run time
// against Debian's liblucene8-java.
//
//   java -cp ... Anchor PASSAGES QUERIES INDEXDIR ROUNDS POSITIONS OUT
//
// QUERIES holds one query a line; OUT gets "build_wall_ns build_cpu_ns
// size_bytes" and then, per query, "cpu_ns<TAB>n1 n2 ..." (passage
// numbers: lines of PASSAGES, 0-based). POSITIONS true indexes term
// positions (Lucene's TextField default), false frequencies only.
import java.io.*;
import java.lang.management.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.*;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;

public class Anchor {
    public static void main(String[] a) throws Exception {
        Path dir = Paths.get(a[2]);
        int rounds = Integer.parseInt(a[3]);
        boolean positions = Boolean.parseBoolean(a[4]);
        EnglishAnalyzer an = new EnglishAnalyzer();
        ThreadMXBean tm = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long w0 = System.nanoTime(), c0 = os.getProcessCpuTime();
        try (FSDirectory d = FSDirectory.open(dir)) {
            build(d, an, a[0], positions);
        }
        long buildWall = System.nanoTime() - w0, buildCPU = os.getProcessCpuTime() - c0;
        long size = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) size += Files.size(p);
        }
        List<String> qs = Files.readAllLines(Paths.get(a[1]), StandardCharsets.UTF_8);
        try (FSDirectory d = FSDirectory.open(dir); DirectoryReader r = DirectoryReader.open(d);
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(a[5]), StandardCharsets.UTF_8))) {
            IndexSearcher s = new IndexSearcher(r);
            s.setSimilarity(new BM25Similarity());
            QueryParser qp = new QueryParser("text", an);
            long[][] t = new long[qs.size()][rounds];
            TopDocs[] top = new TopDocs[qs.size()];
            for (int round = -1; round < rounds; round++) {
                for (int i = 0; i < qs.size(); i++) {
                    long t0 = tm.getCurrentThreadCpuTime();
                    // Lower case: the analyzer folds case anyway, and the
                    // parser would read a word AND, OR or NOT as an operator.
                    String q = qs.get(i).trim();
                    TopDocs td = q.isEmpty() ? null : s.search(qp.parse(QueryParser.escape(q.toLowerCase(Locale.ROOT))), 10);
                    long dt = tm.getCurrentThreadCpuTime() - t0;
                    if (round >= 0) t[i][round] = dt;
                    top[i] = td;
                }
            }
            out.println(buildWall + " " + buildCPU + " " + size);
            for (int i = 0; i < qs.size(); i++) {
                Arrays.sort(t[i]);
                StringBuilder b = new StringBuilder().append(t[i][rounds / 2]).append('\t');
                if (top[i] != null) {
                    for (ScoreDoc sd : top[i].scoreDocs) {
                        b.append(s.doc(sd.doc).getField("n").numericValue().intValue()).append(' ');
                    }
                }
                out.println(b.toString().trim());
            }
        }
    }

    static void build(FSDirectory d, EnglishAnalyzer an, String passages, boolean positions) throws IOException {
        IndexWriterConfig c = new IndexWriterConfig(an);
        c.setSimilarity(new BM25Similarity());
        c.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
        c.setRAMBufferSizeMB(256);
        c.setMergeScheduler(new SerialMergeScheduler());
        FieldType ft = new FieldType(TextField.TYPE_NOT_STORED);
        ft.setIndexOptions(positions ? IndexOptions.DOCS_AND_FREQS_AND_POSITIONS : IndexOptions.DOCS_AND_FREQS);
        ft.freeze();
        try (IndexWriter w = new IndexWriter(d, c);
             BufferedReader in = Files.newBufferedReader(Paths.get(passages), StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                String[] f = line.split("\t", 3);
                Document doc = new Document();
                doc.add(new StoredField("n", n++));
                doc.add(new Field("text", unescape(f[2]), ft));
                w.addDocument(doc);
            }
            w.forceMerge(1);
            w.commit();
        }
    }

    // unescape undoes passages.tsv's \\ \t \n \r.
    static String unescape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                b.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }
}
