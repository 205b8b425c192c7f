// SPDX-License-Identifier: GPL-2.0-only
// A flame graph SVG in a real browser: it renders, its script raises no
// error, hover tells a frame's time, a click zooms into the frame, and
// search highlights a known function.
// usage: node flame.js FILE.svg FUNCTION PNG; prints TAP lines, exits 1 on a failure.
'use strict';
const { ok, run, clean } = require('./lib.js');

const [svg, fn, png] = process.argv.slice(2);
run(svg, { width: 1200, height: 900 }, async (page, errors) => {
  const frames = await page.$$('g.f');
  ok(frames.length > 10, `it draws frames (${frames.length})`);
  const shot = await page.screenshot({ path: png });
  ok(shot.length > 20000, `the screenshot is not blank (${shot.length} bytes)`);
  const index = await page.evaluate((f) => window.tractFlame.frames.findIndex((g) => g.firstChild.textContent === f), fn);
  ok(index > 0, `a frame of ${fn} is drawn`);
  if (index > 0) {
    await frames[index].hover();
    const details = await page.$eval('#details', (e) => e.textContent);
    ok(details.includes(fn) && /% of the selection/.test(details), `hover tells its time: "${details}"`);
    const width = (i) => page.evaluate((j) => +window.tractFlame.frames[j].childNodes[1].getAttribute('width'), i);
    const before = await width(index);
    await frames[index].click();
    const after = await width(index);
    const full = await page.evaluate(() => +document.documentElement.getAttribute('data-width'));
    ok(after > before && Math.abs(after - full) < 2, `a click zooms it to the full width (${before} -> ${after} of ${full})`);
    const hidden = await page.evaluate(() => window.tractFlame.frames.filter((g) => g.style.display === 'none').length);
    ok(hidden > 0, `frames outside it are hidden (${hidden})`);
    await page.evaluate(() => window.tractFlame.zoom(0));
  } else {
    for (let i = 0; i < 3; i++) ok(false, 'no frame to hover and zoom');
  }
  const covered = await page.evaluate((f) => window.tractFlame.search(new RegExp('^' + f + '$')), fn);
  const matched = await page.$eval('#matched', (e) => e.textContent);
  const pink = await page.evaluate(() => window.tractFlame.frames.filter((g) => g.childNodes[1].getAttribute('fill') === 'rgb(230,0,230)').length);
  ok(covered > 0 && pink > 0 && /^Matched: [0-9.]+%/.test(matched), `search highlights it (${pink} frames, "${matched}")`);
  clean(errors);
});
