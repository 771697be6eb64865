package lexical

// AnalyzerName names Tokenize's terms where a store outside this package
// keeps them: a Weaviate collection records it when created and refuses to
// be opened with terms of another name, rather than being searched wrongly.
// It is what every mcpvec command opens collections with; a change to the
// rules of Tokenize needs a new name as it needs a new TokenizerVersion.
const AnalyzerName = "mcpvec-lexical-1"
