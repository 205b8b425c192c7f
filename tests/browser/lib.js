// SPDX-License-Identifier: GPL-2.0-only
// What the browser tests share: TAP lines, and a page of Debian's chromium
// (headless, driven by puppeteer-core) that records every console error and
// lets nothing but file: and data: URLs load.
'use strict';
const puppeteer = require('puppeteer-core');

let failed = 0, n = 0;
function ok(cond, what) {
  n++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${what}`);
  if (!cond) failed++;
}

// run(async (page, errors) => ...): opens file in a fresh browser, prints the plan, exits 1 on a failure
function run(file, viewport, body) {
  (async () => {
    const browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      const errors = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(String(e)));
      // a name that ran as script would most likely say so
      page.on('dialog', (d) => { errors.push(`a dialog: ${d.message()}`); d.dismiss(); });
      // the file itself and the data: URLs inside it; anything else is a request to the network
      await page.setRequestInterception(true);
      page.on('request', (r) => (/^(file|data):/.test(r.url()) ? r.continue() : (errors.push('request ' + r.url().slice(0, 80)), r.abort())));
      await page.setViewport(viewport);
      await page.goto('file://' + file, { waitUntil: 'load' });
      await body(page, errors);
    } finally {
      await browser.close();
    }
    console.log(`1..${n}`);
    process.exit(failed ? 1 : 0);
  })().catch((e) => { console.log(`not ok - ${e}`); process.exit(1); });
}

// rendered(page, selector, min, png): it holds at least min of selector, and its screenshot is not blank
async function rendered(page, selector, min, png) {
  const count = (await page.$$(selector)).length;
  ok(count >= +min, `it holds ${count} of ${selector} (at least ${min})`);
  const shot = await page.screenshot({ path: png });
  ok(shot.length > 10000, `the screenshot is not blank (${shot.length} bytes)`);
}

// the last check of every page: whatever was done to it, nothing erred or left it
function clean(errors) {
  ok(errors.length === 0, `no errors in the console, no requests (${errors.join('; ')})`);
}

module.exports = { ok, run, rendered, clean };
