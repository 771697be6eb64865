// Package analysis is mcpvec's one home for reading words out of text: the
// rules that decide what a word, a term and a token are, shared by the BM25
// index (index/lexical), the offline hash embedder (ingest/embed), the
// chunker (ingest/chunk), the OpenAI embedder's input splitter
// (ingest/embed/openai) and the search snippets and highlights (library).
// It is a leaf: it imports no mcpvec package.
//
//   - Tokenize makes BM25 index terms (below); TokenizerVersion and
//     AnalyzerName name its rules where terms are stored.
//   - Words makes the hash embedder's words (CJK runs as bigrams; WordsWhole
//     is the hash-v2 rule), Stem stems a plain word like Tokenize does
//     (through a cache both share).
//   - Detect and CountStopWords tell a text's language,
//     CountQueryStopWords a short query's, TokenizeAs tokenises it as a
//     given one.
//   - EstimateTokens and TruncateTokens count and cut text in approximate
//     cl100k_base tokens; Atomize, RuneCost and AtomCost expose the atoms the
//     estimate prices, so the chunker cuts where the estimate counts.
//
// Every function is pure (the stem cache only remembers answers) and safe
// for concurrent use. Changing a rule changes what is stored: BM25 terms
// (bump TokenizerVersion and AnalyzerName), hash vectors (change the hash
// embedder's model name) or passage boundaries.
//
// # Tokens
//
// Tokenize reads a text in its language (Detect: stop-word counts over its
// first 120 words; English unless another language is clear), folds case,
// splits on Unicode letters and digits, drops the language's stop words and
// stems: English with the Snowball English stemmer
// (github.com/kljensen/snowball) on plain ASCII words, exactly as before
// languages were told apart; German, French, Spanish, Italian, Portuguese,
// Dutch and Russian with their Snowball stemmers
// (github.com/blevesearch/snowballstem), giving the word beside its stem
// where they differ. Runs of Han, Hiragana, Katakana, Hangul, Thai, Lao,
// Khmer and Myanmar give their overlapping character bigrams and each
// character (東京都 → 東 東京 京 京都 都). A compound span such as
// BZ2_bzDecompressInit, --leak-check=full, v1.2.3, IL-6 or errno=ENOENT
// yields its parts (split at punctuation and camelCase, stemmed) plus the
// whole span and each sub-span between '_', '.', '=', ':', '/', '@', '+',
// '#' (hyphens removed, so IL-6 meets IL6 and cross-linking meets
// crosslinking). Numbers keep their decimal point (0.05) and lose thousands
// separators (1,000 → 1000).
//
// # Token estimates
//
// EstimateTokens approximates cl100k_base (OpenAI's text-embedding-3-* and
// GPT-4 tokenizer) without its 100k-entry vocabulary; the rule is on
// EstimateTokens. Measured against gpt-tokenizer's cl100k_base on every
// document of ../shared/eval (counts in testdata/cl100k_eval_counts.tsv,
// checked by TestEstimateTokensEvalCorpora):
//
//	corpus     docs  total est/real  min   p1    median  p99   max
//	SciFact    5183  1.188           0.934 1.035 1.188   1.392 1.517
//	Cranfield  1398  1.246           1.071 1.124 1.247   1.412 1.508
//
// and on hand-written samples (testdata/cl100k_samples.jsonl): Chinese 1.15,
// Japanese 1.27, Korean 1.24, Russian 0.98, Greek 0.97, French 1.02,
// German 0.86, Go code 1.49, shell flags 1.08, tables 1.02. So it
// overestimates English prose by about 20% and underestimates by at most
// about 15% (German compounds); budget that margin when packing inputs for
// a model's limit (e.g. send at most 8191/1.2 estimated tokens).
package analysis
