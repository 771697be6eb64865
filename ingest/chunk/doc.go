// Package chunk splits extracted document text into overlapping passages
// sized in estimated tokens (analysis.EstimateTokens).
//
// Split cuts text into atoms (runs of letters, runs of digits, single
// punctuation marks, single CJK characters: analysis.Atomize), prices each
// atom with the analysis.EstimateTokens rule and grows each passage up to
// Options.Size tokens. It then cuts at the best boundary that leaves the passage at least half full,
// ranked paragraph break > sentence end > line break > space or CJK
// character > inside a word (only when one word alone exceeds Size). Above
// them all ranks the break before a question line (FAQ style: a line ending
// in "?" after a sentence end, "Q:", "Question 3.") or a short **bold**
// line, taken once the passage is a quarter full and followed by no
// overlap, while the break right after a question line ranks as a space:
// a question and its answer share a passage. The next passage starts up
// to Options.Overlap tokens back, preferring the start of a sentence. Each Chunk carries byte offsets into the text and the
// 1-based pages it spans, computed from the page start offsets the extractor
// reports. SplitHeadings also takes the text's headings: a cut just before a
// heading ranks above every other boundary (and is taken once the passage is
// a quarter full), the passage after it repeats nothing of the previous
// section, and each Chunk carries its heading path: the one in force over
// most of the passage's new text.
//
// # Sizes
//
// Sizes are in tokens as analysis.EstimateTokens counts them (an
// approximation of cl100k_base; package analysis has its measured error).
//
// Passages from Split, measured against gpt-tokenizer's cl100k_base
// (1,500 documents of each corpus of ../shared/eval concatenated, Overlap =
// Size/8): with Size 256 the real cl100k count is median 191 and at most
// 262 (SciFact), median 196 and at most 233 (Cranfield); with Size 128 at
// most 138; with Size 512 at most 488. So real passages run about
// 0.8-0.85 x Size, and exceed Size by at most ~8%.
//
// # Caveats
//
//   - Sizes are estimates, not tokenizer counts: a passage of Size estimated
//     tokens is usually 0.8-0.95 x Size real cl100k tokens, rarely up to
//     1.1 x (number-dense text) or 1.15 x (German compounds).
//     Other tokenizers (BERT WordPiece, o200k) differ further.
//   - The cut never splits a UTF-8 sequence but may split a grapheme cluster
//     (a letter and its combining mark) when a single word exceeds Size.
//   - Sentence detection is a heuristic: a period after a single letter or a
//     common abbreviation (Fig., e.g., et al.) is not a sentence end, and a
//     sentence must not start with a lowercase letter.
//   - Offsets are bytes into the exact string passed to Split; normalising the
//     text afterwards invalidates them.
//   - The last passage, and one just before a very long word (over about half
//     of Size), may be small; all others hold at least half of Size, except
//     that a passage ends at a heading (SplitHeadings) or a question line
//     once it holds a quarter.
//   - A question line is recognised by its text alone: a heading that ends
//     in "?" counts as one, and a wrapped PDF line ending in "?" after a
//     sentence end may too.
//   - Split is a pure function and safe for concurrent use;
//     Split holds 10-25 bytes of working memory per byte of text (a
//     49-byte record per word or mark) while it runs, plus the chunks, whose
//     Text fields share the input string's memory.
package chunk
