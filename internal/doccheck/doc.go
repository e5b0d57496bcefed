// Package doccheck holds the repository's documentation tests: every
// link in README.md and docs/ resolves (relative files and their
// anchors), and no code comment points at a document outside the
// repository or at an issue number, so that what a reader finds in a
// comment or a page is in the checkout. It has no code of its own.
package doccheck
