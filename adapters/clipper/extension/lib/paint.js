// SPDX-License-Identifier: Apache-2.0

// The region's annotations as vectors, painted the same way in the
// picker's preview (injected as a classic script) and onto the crop by
// the worker (imported for its effect): so it sets a global rather than
// exporting.
(() => {
  const RED = '#d93025';

  // paint draws the vectors on a 2D context, k device pixels per CSS pixel.
  function paint(g, shapes, k) {
    g.strokeStyle = RED;
    g.fillStyle = RED;
    g.lineWidth = 3 * k;
    g.lineCap = 'round';
    g.lineJoin = 'round';
    for (const s of shapes) {
      g.beginPath();
      if (s.type === 'box') g.strokeRect(s.x * k, s.y * k, s.w * k, s.h * k);
      if (s.type === 'pen') {
        s.points.forEach(([x, y], i) => (i ? g.lineTo(x * k, y * k) : g.moveTo(x * k, y * k)));
        g.stroke();
      }
      if (s.type === 'arrow') {
        const a = Math.atan2(s.y2 - s.y1, s.x2 - s.x1);
        const head = 14 * k;
        g.moveTo(s.x1 * k, s.y1 * k);
        g.lineTo(s.x2 * k, s.y2 * k);
        g.moveTo(s.x2 * k, s.y2 * k);
        g.lineTo(s.x2 * k - head * Math.cos(a - 0.45), s.y2 * k - head * Math.sin(a - 0.45));
        g.moveTo(s.x2 * k, s.y2 * k);
        g.lineTo(s.x2 * k - head * Math.cos(a + 0.45), s.y2 * k - head * Math.sin(a + 0.45));
        g.stroke();
      }
      if (s.type === 'text') {
        g.font = 'bold ' + Math.round(18 * k) + 'px system-ui, sans-serif';
        g.textBaseline = 'top';
        g.fillText(s.text, s.x * k, s.y * k);
      }
    }
  }

  globalThis.__monkeyPaint = { RED, paint };
})();
