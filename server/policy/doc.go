// Package policy is mcpvec's allow-list: who may read or write which
// library, kept in a plain text file the owner edits (`serve --allow FILE`).
// A List implements identity.Policy.
//
// The file has one rule a line, three fields separated by spaces or tabs,
// and '#' comments:
//
//	# LIBRARY  RIGHT  WHO
//	papers     read   @example.com
//	papers     write  alice@example.com
//	*          read   group:staff
//	notes      write  https://id.example.com#248289761001
//
// LIBRARY is a library's name as `serve` names it (its --library NAME, or
// the file name without its extension for --db) or "*" for every library.
// RIGHT is "read" (search and fetch) or "write" (web uploads and
// removals); write implies read. WHO is an e-mail address, "@domain" (every
// address of that domain, not its subdomains), "group:NAME" (a value of
// the provider's groups claim) or "ISSUER#SUBJECT" (one account, for
// providers that verify no e-mail). E-mail and domain rules match only
// addresses the provider marked verified; case does not matter in
// addresses. There are no deny rules: nobody may do anything not granted.
//
// Caveats: a List answers from the file's current contents. It looks at
// the file at most once per Options.Every (a stat; the file is read again
// only when its size or modification time changed), so an edit takes
// effect on the next request after that. A broken edit, or a missing
// file, keeps the last good rules and is logged once. The zero Person (the
// owner) may do everything. A List is safe for concurrent use.
package policy
