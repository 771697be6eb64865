// Package corpus is an offline embedder trained on the library's own
// passages: latent semantic analysis (LSA). Passages become sublinear
// tf-idf vectors over the library's index terms (analysis.Tokenize, the
// terms BM25 matches), a truncated SVD of the term–passage matrix (a
// randomized range finder, Halko, Martinsson & Tropp 2011, on gonum's
// dense linear algebra) gives the k strongest term directions, and a
// passage or a query is folded in: its tf-idf vector projected onto those
// directions and normalised. Words that occur in the same passages land
// near each other, so a query can find a passage that paraphrases it.
//
// Fit builds a Model from passages (a bounded sample of a large library);
// Model.MarshalBinary and Unmarshal keep it in the library; New wraps a
// model as an embed.Embedder. A Model is immutable and safe for
// concurrent use.
package corpus
