// Package apierr builds the errors that area packages return from API
// methods. They are Connect errors, so the Connect face sends them as they
// are; the REST face turns the code into an HTTP status through one table
// and merges the extra fields (strings, and lists of strings) into the JSON
// body beside "message".
//
// Constructors for API errors (code, client message, extra body fields).
package apierr
