// Package core is what package extract and its readers (pdf, office,
// markup) share: Document and Heading, the media type names, the sentinel
// errors, the expansion Budget, CleanText and the title cleaners,
// PlaceHeadings, and Flow, the page-and-table writer of the structured
// formats. It imports no other mcpvec package, so every reader may import
// it and extract may import every reader without a cycle.
//
// # Caveats
//
//   - Concurrency: the functions are pure and safe for concurrent use; a
//     Budget or a Flow belongs to one document being read and is not.
//   - Panics: nothing here panics on any input or recovers.
//   - The sentinels are documented where extract re-exports them.
package core
