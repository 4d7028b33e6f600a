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

  // captionTrack finds the first caption track's address in the watch
  // page's own player data (a script the page ships), English first.
  function captionTrack() {
    for (const sc of document.querySelectorAll('script')) {
      const txt = sc.textContent;
      const at = txt.indexOf('"captionTracks":');
      if (at < 0) continue;
      const start = txt.indexOf('[', at);
      let depth = 0;
      for (let i = start; i < txt.length; i++) {
        if (txt[i] === '[') depth++;
        if (txt[i] === ']' && --depth === 0) {
          try {
            const tracks = JSON.parse(txt.slice(start, i + 1));
            const pick = tracks.find((tr) => /^en/.test(tr.languageCode || '')) || tracks[0];
            return pick && pick.baseUrl ? new URL(pick.baseUrl, location.href).href : '';
          } catch { return ''; }
        }
      }
    }
    return '';
  }

  // transcript reads a caption track (timed-text XML) as plain lines;
  // best effort: any failure is no transcript.
  async function transcript() {
    const url = captionTrack();
    if (!url) return '';
    try {
      const r = await fetch(url, { credentials: 'include' });
      if (!r.ok) return '';
      const xml = new DOMParser().parseFromString(await r.text(), 'text/xml');
      return [...xml.querySelectorAll('text')].map((n) => n.textContent.replace(/\s+/g, ' ').trim()).filter(Boolean).join('\n');
    } catch {
      return '';
    }
  }

  // youtube clips a watch page as its title, channel, description and,
  // when a caption track is reachable, its transcript.
  async function youtube() {
    const pick = (...sels) => {
      for (const sel of sels) {
        const el = document.querySelector(sel);
        const v = el && (el.getAttribute('content') || el.textContent || '').trim();
        if (v) return v;
      }
      return '';
    };
    const title = pick('h1.ytd-watch-metadata', 'h1 yt-formatted-string', 'meta[name="title"]', 'meta[property="og:title"]') || document.title;
    const channel = pick('#owner #channel-name a', 'ytd-channel-name a', 'link[itemprop="name"]', 'span[itemprop="author"] link[itemprop="name"]');
    const description = pick('#description-inline-expander', '#description', 'meta[name="description"]', 'meta[property="og:description"]');
    const parts = ['# ' + title];
    if (channel) parts.push('Channel: ' + channel);
    if (description) parts.push('## Description\n\n' + description);
    const words = await transcript();
    if (words) parts.push('## Transcript\n\n' + words);
    return { title, url: location.href, markdown: parts.join('\n\n') };
  }

  globalThis.__monkeyClip = { page, selection, youtube };
})();
