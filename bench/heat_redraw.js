// The heat map's redraw of a range (bench/page_bench.sh): the first heat map
// of INDEX.html gets STACKS synthetic stacks (up to 60 frames deep, each
// sharing all but a few frames with an earlier one, spread over 60 seconds,
// in the page's data form) and a range of seconds is selected by pointer
// events RUNS times; prints the median time from the pointer's release to
// the redrawn graph laid out in the document, the data's size, the frames
// drawn and the console errors.
// usage: node heat_redraw.js INDEX.html WORK_DIR [STACKS] [RUNS]
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('../tests/browser/node_modules/playwright-core');

const [index, work, nStacks = '20000', nRuns = '9'] = process.argv.slice(2);
const STACKS = parseInt(nStacks, 10), RUNS = parseInt(nRuns, 10), SECONDS = 60;

function synth() {
    let seed = 42;
    const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const names = ['all'];
    for (let i = 0; i < 5000; i++) names.push('function_' + i + '_with_a_longish_name');
    const nodes = [-1, 0, 0];
    const paths = [[0]];
    const cells = [];
    const total = new Array(SECONDS).fill(0);
    for (let s = 0; s < STACKS; s++) {
        // what the page carries: at most 60,000 nodes (HEAT_MAX_NODES), so
        // 20,000 stacks share all but about three frames with another
        const base = paths[rnd(paths.length)];
        const p = base.slice(0, Math.max(1, base.length - rnd(3)));
        const depth = Math.min(60, p.length + 1 + rnd(4));
        while (p.length < depth) {
            nodes.push(p[p.length - 1], 1 + rnd(names.length - 1), 0);
            p.push(nodes.length / 3 - 1);
        }
        paths.push(p);
        const leaf = p[p.length - 1];
        for (let k = 0; k < 3; k++) {
            const sec = rnd(SECONDS), v = 1 + rnd(20);
            cells.push(leaf, sec, v);
            total[sec] += v;
        }
    }
    return { unit: 'samples', bucket_s: 1, total, unstacked: new Array(SECONDS).fill(0), names, nodes, cells };
}

async function main() {
    const html = fs.readFileSync(index, 'utf8');
    const open = '<script type="application/json" class="heat-data">';
    const a = html.indexOf(open), b = html.indexOf('</script>', a);
    if (a < 0 || b < 0) { console.log('heat redraw: no heat map in ' + index); return; }
    const d = synth();
    const data = JSON.stringify(d);
    fs.mkdirSync(work, { recursive: true });
    const out = path.join(work, 'heat-bench.html');
    fs.writeFileSync(out, html.slice(0, a + open.length) + data + html.slice(b));
    const ctx = await chromium.launchPersistentContext(path.join(work, 'profile'), {
        executablePath: '/usr/bin/chromium', headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    const page = await ctx.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('file://' + out);
    const times = [];
    let drawn = 0;
    for (let r = 0; r < RUNS; r++) {
        const res = await page.evaluate(([from, to]) => {
            const strip = document.querySelector('svg.heat-strip');
            const cells = strip.querySelectorAll('rect.heat-cell');
            const at = (i) => { const b = cells[i].getBoundingClientRect(); return { clientX: b.x + b.width / 2, clientY: b.y + b.height / 2, pointerId: 1, bubbles: true }; };
            strip.dispatchEvent(new PointerEvent('pointerdown', at(from)));
            strip.dispatchEvent(new PointerEvent('pointermove', at(to)));
            const t0 = performance.now();
            strip.dispatchEvent(new PointerEvent('pointerup', at(to)));
            const svg = document.querySelector('figure.heat').previousElementSibling.querySelector('svg.flamegraph');
            svg.getBoundingClientRect(); // the layout, not only the script
            return { ms: performance.now() - t0, n: svg.querySelectorAll('.fg-frames > g').length };
        }, [r % 20, 20 + (r % 20)]);
        times.push(res.ms);
        drawn = res.n;
    }
    times.sort((x, y) => x - y);
    console.log(`heat redraw: ${STACKS} stacks, ${d.nodes.length / 3} nodes (${(data.length / 1024).toFixed(0)} KiB of data), ` +
        `21 of ${SECONDS} seconds: median ${times[times.length >> 1].toFixed(1)} ms, ` +
        `max ${times[times.length - 1].toFixed(1)} ms over ${RUNS} redraws; ${drawn} frames drawn; ` +
        `${errors.length} console errors`);
    await ctx.close();
}
main().catch((e) => { console.log('heat redraw failed: ' + (e.message || e)); process.exit(1); });
