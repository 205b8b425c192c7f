// SPDX-License-Identifier: GPL-2.0-only
// A report in a real browser: it renders with its pictures, each picture's
// document loads inside it, the whole opens within a second of the
// navigation (and 5 times the load of a page of as many tiny pictures, on
// a slower machine), the flame graph's own script draws its frames inside the
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
  // the pace of this browser on this machine now: a page of as many tiny pictures, in a page of its own
  const base = await page.browser().newPage();
  const svg = encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>');
  const tiny = 'data:text/html,' + encodeURIComponent('<!doctype html>' +
    pics.map(() => `<object type="image/svg+xml" data="data:image/svg+xml,${svg}"></object>`).join(''));
  let paced = Infinity;
  // the least of three loads: the first pays for a renderer of its own
  for (let i = 0; i < 3; i++) {
    await base.goto(tiny + '%3C!--' + i + '--%3E', { waitUntil: 'load' });
    paced = Math.min(paced, await base.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd));
  }
  await base.close();
  const limit = LIMIT_MS + 5 * paced;
  ok(ms > 0 && ms < limit, `it opens in ${Math.round(ms)} ms, pictures and all (under ${Math.round(limit)}: 1 s and ` +
    `5 x the ${Math.round(paced)} ms of a page of as many tiny pictures)`);
  const flame = pics.find((p) => p.alt === 'the flame graph' && p.frame);
  const drawn = flame && await flame.frame.evaluate(() => ({
    frames: document.querySelectorAll('g.f').length,
    scripted: window.tractFlame ? window.tractFlame.frames.length : -1,
  }));
  ok(drawn && drawn.frames > 10 && drawn.scripted === drawn.frames,
    `the flame graph inside it has its frames (${drawn && drawn.frames}), and its script ran over them (${drawn && drawn.scripted})`);
  clean(errors);
});
