// SPDX-License-Identifier: Apache-2.0

// Package studio is the Studio, the web console of spec 10: an
// [http.Handler] serving the console's files from the binary, mounted by
// the Station after the API routes (09 §13).
//
// The console is written as build-free ES modules: the files under web/
// are exactly what the browser runs. There is no bundler, no Node step at
// run time or in go build, and no committed build output to drift from its
// source (spec 10 §14.1 resolved that way): a reviewer reads the code the
// browser executes, and go:embed is the whole build. The price is a few
// more requests on first load, which HTTP/1.1 keep-alive and the immutable
// caching below make cheap; the page stays small because it vendors no
// framework.
//
// Serving rules (09 §13): assets live under /assets/<digest>/, where the
// digest hashes every embedded asset, so they are cached forever; the
// shell (index.html) is answered for "/" and for any other GET whose
// Accept names text/html, with Cache-Control: no-cache; a missing asset
// stays a 404, and /v1 never falls through to the shell. The host sets the
// Content-Security-Policy; its script hashes come from [Shell], the
// embedded page, so they are computed at startup and never by hand.
//
// Where things live: web/index.html is the shell, with the one inline
// script (the theme, applied before first paint); web/assets/app.js the
// doors, the rail and the console table (10 §2); router.js the only
// owner of the address (10 §3); dom.js and markdown.js the only ways text
// reaches the page (10 §8); consoles/<key>.js one module per console,
// loaded when first opened; locales/<namespace>/<lang>.json the
// catalogues, checked complete by this package's tests. Adding a console
// is a module exporting render(ctx), a row in app.js's table and its
// catalogue keys in three languages.
//
// The console is a client like any other: it calls only documented REST
// routes with the person's own key, so it can show nothing the key could
// not fetch itself.
package studio
