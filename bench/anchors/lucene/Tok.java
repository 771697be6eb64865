// Tok prints, for each line of standard input, the terms Lucene's
// EnglishAnalyzer makes of it, space-separated: what
// scripts/known-item-causes.py compares mcpvec's query terms with.
//
//   javac -cp CORE:ANALYZERS -d DIR Tok.java && java -cp CORE:ANALYZERS:DIR Tok < queries
import java.io.*;
import java.nio.charset.StandardCharsets;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.*;
public class Tok {
  public static void main(String[] a) throws Exception {
    EnglishAnalyzer an = new EnglishAnalyzer();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      StringBuilder b = new StringBuilder();
      try (TokenStream ts = an.tokenStream("text", line)) {
        CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
        ts.reset();
        while (ts.incrementToken()) b.append(t.toString()).append(' ');
        ts.end();
      }
      out.println(b.toString().trim());
    }
  }
}
