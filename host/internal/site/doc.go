// Package site fetches public web pages that users name (their brand's
// website) and extracts what Herald needs from them: the main text for
// brand voices and the site facts (title, description, headings,
// schema.org entities, robots.txt rules, sitemap, llms.txt) for visibility
// reports.
//
// Every request goes through the SSRF guard of sdk.GuardedHTTPClient (only
// public addresses, checked on the dialled address, on every redirect too),
// only over https, with size and time caps, and under Herald's own
// User-Agent. Pages beyond the one the user gave are fetched only when
// robots.txt allows HeraldBot to.
//
// Errors are *Error values whose Reason says why a page could not be used
// (http refused, private address, not HTML, too large, unreachable), and
// whose message is safe to show to the user, so callers map them to a 400.
//
// Fetches the pages users name (brand sites) for visibility reports and
// brand voices: `site.New(Deps)`, `Fetch(ctx, url)` one page, `Crawl(ctx,
// url)` the home page, robots.txt, the sitemap, `/llms.txt`, then the about
// page and up to three posts where robots.txt lets HeraldBot in (at most 5
// pages). Every request goes through `sdk.GuardedHTTPClient` (public
// addresses only, checked on the dialled address, redirects included), https
// only (a redirect to http is refused too), with a size cap (2 MiB per page)
// and a time cap per request (15 s) inside one deadline for the whole crawl
// or file fetch (`Deps.CrawlDeadline`, 45 s; visibility reports and voices
// alike), as `HeraldBot/<version> (+public_url)`. It extracts the main text
// (goquery) and the site `Facts` (title, description, H1s, og:site_name,
// schema.org JSON-LD entities, blocked AI crawlers). Errors are
// `*site.Error` with a `Reason` (not https, private address, not HTML, too
// large, HTTP status, unreachable) and a message fit for a 400.
package site
