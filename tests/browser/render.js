// SPDX-License-Identifier: GPL-2.0-only
// A picture in a real browser: it renders (not a blank screenshot), holds
// the elements it should, raises no error and asks the network for nothing.
// usage: node render.js FILE SELECTOR MIN PNG; prints TAP lines, exits 1 on a failure.
'use strict';
const { run, rendered, clean } = require('./lib.js');

const [file, selector, min, png] = process.argv.slice(2);
run(file, { width: 1200, height: 800 }, async (page, errors) => {
  await rendered(page, selector, min, png);
  clean(errors);
});
