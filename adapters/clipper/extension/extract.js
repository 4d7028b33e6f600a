// SPDX-License-Identifier: Apache-2.0

// Injected (after vendor/Readability.js, turndown.js and
// turndown-plugin-gfm.js) into the extension's isolated world of the
// clipped tab on a gesture; it reads the page and returns markdown, and
// never talks to the Station.
(() => {
  function converter() {
    const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
    td.use([turndownPluginGfm.tables, turndownPluginGfm.strikethrough]);
    td.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button']);
    return td;
  }

  // absolute rewrites relative links and images against the page address,
  // so the markdown still points somewhere once it leaves the tab.
  function absolute(root) {
    for (const a of root.querySelectorAll('a[href]')) a.setAttribute('href', a.href);
    for (const img of root.querySelectorAll('img[src]')) img.setAttribute('src', img.src);
    return root;
  }

  // page runs Readability on a clone of the document (the live page is
  // never changed); without an article it falls back to the body.
  function page() {
    let title = document.title;
    let html = '';
    try {
      const article = new Readability(absolute(document.cloneNode(true))).parse();
      if (article && article.content && article.textContent.trim()) {
        html = article.content;
        title = article.title || title;
      }
    } catch { /* fall back */ }
    if (!html) html = absolute(document.body.cloneNode(true)).innerHTML;
    return { title, url: location.href, markdown: converter().turndown(html) };
  }

  // selection converts the selected ranges' HTML (tables stay tables).
  function selection() {
    const sel = window.getSelection();
    const box = document.createElement('div');
    for (let i = 0; sel && i < sel.rangeCount; i++) {
      const frag = sel.getRangeAt(i).cloneContents();
      const cell = frag.querySelector && frag.firstElementChild && frag.firstElementChild.tagName;
      if (cell === 'TD' || cell === 'TH' || cell === 'TR') {
        const table = document.createElement('table');
        table.appendChild(frag);
        box.appendChild(table);
      } else {
        box.appendChild(frag);
      }
    }
    absolute(box);
    return { title: document.title, url: location.href, markdown: box.textContent.trim() ? converter().turndown(box.innerHTML) : '' };
  }

  globalThis.__monkeyClip = { page, selection };
})();
