// SPDX-License-Identifier: Apache-2.0
// The address is the state (10 §3): this module alone touches history.
// Moving pushes, adjusting replaces; components read the place, never a
// second copy.

const listeners = new Set();

// place reads the address: {forest, console, params}.
export function place() {
  const m = location.pathname.match(/^\/f\/([^/]+)\/([^/]*)\/?$/);
  const params = {};
  for (const [k, v] of new URLSearchParams(location.search)) if (v !== '') params[k] = v;
  return m ? { forest: decodeURIComponent(m[1]), console: decodeURIComponent(m[2]), params } : { forest: '', console: '', params };
}

// href builds an address; empty values are omitted.
export function href(p) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p.params || {})) if (v != null && v !== '') q.set(k, v);
  const qs = q.toString();
  return `/f/${encodeURIComponent(p.forest)}/${encodeURIComponent(p.console)}${qs ? '?' + qs : ''}`;
}

function notify() { for (const fn of listeners) fn(place()); }

// go moves (push) to a place; adjust replaces the current entry.
export function go(p) { history.pushState(null, '', href(p)); notify(); }
export function adjust(p) { history.replaceState(null, '', href(p)); notify(); }
// replaceQuiet corrects the address without re-rendering (a console the
// grant does not permit replaced by the landing one).
export function replaceQuiet(p) { history.replaceState(null, '', href(p)); }

// mark pushes a place the page already shows (a selection made on
// screen), so Back returns to the previous one without a re-render now.
export function mark(p) { history.pushState(null, '', href(p)); }

export function onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }
addEventListener('popstate', notify);

// link is a real anchor (new tab, copy link and middle click work); only
// the plain unmodified left click is handled here.
export function link(p, props, ...kids) {
  const a = document.createElement('a');
  a.href = href(p);
  for (const [k, v] of Object.entries(props || {})) if (v != null && v !== false) a.setAttribute(k, v === true ? '' : v);
  a.addEventListener('click', (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.defaultPrevented) return;
    e.preventDefault();
    go(p);
  });
  for (const k of kids.flat()) if (k != null) a.append(k instanceof Node ? k : String(k));
  return a;
}
