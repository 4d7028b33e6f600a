// SPDX-License-Identifier: Apache-2.0
// The one way the console makes elements. Text always enters as text
// nodes (10 §8): no string ever becomes markup here.

// h builds an element: props set attributes (on* add listeners, class,
// dataset), children may be nodes, strings, numbers, arrays or null.
export function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, kids);
  return el;
}

// append adds children as nodes or text.
export function append(el, kids) {
  for (const k of [kids].flat(Infinity)) {
    if (k == null || k === false) continue;
    el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return el;
}

// mount replaces an element's children.
export function mount(el, ...kids) {
  el.replaceChildren();
  return append(el, kids);
}

// uid gives form controls ids their labels can name.
let seq = 0;
export const uid = (p) => `${p}-${++seq}`;

// field is a labelled control.
export function field(label, control, hint) {
  if (!control.id) control.id = uid('f');
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control,
    hint ? h('div', { class: 'hint' }, hint) : null);
}

// download offers text or a Blob as a file without a server round trip.
export function download(name, text, type = 'text/markdown') {
  const url = URL.createObjectURL(text instanceof Blob ? text : new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
