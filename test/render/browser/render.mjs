// Renders Mermaid charts with the real Mermaid library in headless
// Chromium, and reports what each drew. Run as `node render.mjs IN.json`,
// IN.json being:
//
//   {"charts": [{"id": "...", "text": "gantt\n..."}],
//    "page": {"html": "<html>...", "out": "shot.png", "width": 1000}}
//
// and written to stdout as JSON: per chart, Mermaid's parse error and
// render error if any, the kind of diagram, the bars it drew (a gantt's
// task rectangles, an xychart's bars by series), their labels and the
// section titles. With "page", the page is also rendered (each
// <pre class="mermaid"> drawn) and a screenshot of it written to "out".
//
// Nothing is fetched: Mermaid comes from node_modules, Chromium is
// Debian's, and the page is set from memory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import puppeteer from 'puppeteer-core';

const require = createRequire(import.meta.url);
const mermaidJS = require.resolve('mermaid/dist/mermaid.min.js');

const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cursor-otel-render-'));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  userDataDir: profile,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
  await page.addScriptTag({ path: mermaidJS });
  const results = await page.evaluate(async (charts) => {
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    const out = document.getElementById('out');
    const texts = (svg, sel) => [...svg.querySelectorAll(sel)].map((e) => e.textContent);
    const results = [];
    for (const [i, c] of charts.entries()) {
      const r = { id: c.id };
      try {
        await mermaid.parse(c.text);
      } catch (e) {
        r.parseError = String(e.message || e);
      }
      try {
        const { svg } = await mermaid.render('chart' + i, c.text);
        out.innerHTML = svg;
        const el = out.querySelector('svg');
        r.kind = el.getAttribute('aria-roledescription');
        if (r.kind === 'gantt') {
          r.bars = el.querySelectorAll('rect.task').length;
          r.labels = texts(el, 'text[id$="-text"]');
          r.sections = texts(el, 'text.sectionTitle');
        } else {
          r.series = [...el.querySelectorAll('g.bar-plot-0, g.bar-plot-1')].map((g) =>
            [...g.querySelectorAll('rect')].filter((b) => Number(b.getAttribute('height')) > 0).length);
          r.labels = texts(el, 'g.bottom-axis g.label text');
        }
      } catch (e) {
        r.renderError = String(e.message || e);
      }
      out.innerHTML = '';
      results.push(r);
    }
    return results;
  }, input.charts || []);

  if (input.page) {
    const shot = await browser.newPage();
    await shot.setViewport({ width: input.page.width || 1000, height: 600, deviceScaleFactor: 1 });
    await shot.setContent(input.page.html);
    await shot.addScriptTag({ path: mermaidJS });
    await shot.evaluate(async () => {
      mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
      await mermaid.run({ querySelector: 'pre.mermaid' });
    });
    await shot.screenshot({ path: input.page.out, fullPage: true });
  }
  process.stdout.write(JSON.stringify({ results }) + '\n');
} finally {
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
