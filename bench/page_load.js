// Loads a bundle's index.html in headless Chromium RUNS times (a fresh page
// each time, cache off) and prints the median and range of the time from
// navigation start to the load event, and the page's DOM node count.
// usage: node bench/page_load.js INDEX_HTML USER_DATA_DIR [RUNS]
'use strict';
const path = require('path');
const { chromium } = require(path.join(__dirname, '../tests/browser/node_modules/playwright-core'));

const [file, userDir, runsArg] = process.argv.slice(2);
const runs = parseInt(runsArg || '9', 10);
(async () => {
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1366, height: 768 },
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  const url = 'file://' + path.resolve(file);
  const times = [];
  let nodes = 0;
  for (let i = 0; i < runs; i++) {
    const page = await ctx.newPage();
    await page.route('**/*', (r) => r.continue());
    await page.goto(url, { waitUntil: 'load' });
    const t = await page.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0];
      return n.loadEventEnd - n.startTime;
    });
    nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
    times.push(t);
    await page.close();
  }
  await ctx.close();
  times.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)];
  console.log(`load ${(med / 1000).toFixed(3)} s median of ${runs} (${(times[0] / 1000).toFixed(3)}-` +
              `${(times[times.length - 1] / 1000).toFixed(3)}), ${nodes} elements`);
})().catch((e) => { console.log(`page_load failed: ${e.message}`); process.exit(1); });
