// SPDX-License-Identifier: GPL-2.0-only
// A report in a real browser: it renders with its pictures, each picture's
// document loads inside it, the whole opens within a second of the
// navigation, the flame graph's own script draws its frames inside the
// page, and nothing errs or asks the network for anything.
// usage: node report.js FILE.html MIN PNG; prints TAP lines, exits 1 on a failure.
'use strict';
const { ok, run, rendered, clean } = require('./lib.js');

const LIMIT_MS = 1000;
const [file, min, png] = process.argv.slice(2);
run(file, { width: 1200, height: 800 }, async (page, errors) => {
  await rendered(page, 'object.pic', min, png);
  // each picture is a document of its own, in the frame its data: URL made
  const pics = await page.$$eval('object.pic', (os) => os.map((o) => ({ url: o.data, alt: o.textContent })));
  const frames = page.mainFrame().childFrames();
  for (const p of pics) {
    p.frame = frames.find((f) => f.url() === p.url);
    if (p.frame)
      Object.assign(p, await p.frame.evaluate(() => ({
        ready: document.readyState,
        loaded: performance.timeOrigin + performance.getEntriesByType('navigation')[0].loadEventEnd,
      })));
  }
  const missing = pics.filter((p) => p.ready !== 'complete').map((p) => p.alt);
  ok(pics.length && !missing.length, `each picture's document loaded in it (${pics.length}; not: ${missing.join(', ')})`);
  // from the navigation to the page's load event and each picture's, as the browser timed them
  const top = await page.evaluate(() => ({
    origin: performance.timeOrigin,
    loaded: performance.getEntriesByType('navigation')[0].loadEventEnd,
  }));
  const ms = Math.max(top.loaded, ...pics.filter((p) => p.loaded).map((p) => p.loaded - top.origin));
  ok(ms > 0 && ms < LIMIT_MS, `it opens in ${Math.round(ms)} ms, pictures and all (under ${LIMIT_MS})`);
  const flame = pics.find((p) => p.alt === 'the flame graph' && p.frame);
  const drawn = flame && await flame.frame.evaluate(() => ({
    frames: document.querySelectorAll('g.f').length,
    scripted: window.tractFlame ? window.tractFlame.frames.length : -1,
  }));
  ok(drawn && drawn.frames > 10 && drawn.scripted === drawn.frames,
    `the flame graph inside it has its frames (${drawn && drawn.frames}), and its script ran over them (${drawn && drawn.scripted})`);
  clean(errors);
});
