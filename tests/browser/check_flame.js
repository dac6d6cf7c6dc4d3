// Headless Chromium checks of a flamegraph SVG made by `perfreport flamegraph`.
// usage: node flame.js GRAPH.svg USER_DATA_DIR [SCREENSHOT.png]
// Prints "ok NAME" / "not ok NAME: why" lines.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { chromium } = require('playwright-core');

const [svgPath, userDataDir, shot] = process.argv.slice(2);
const tap = require('./tap.js');
const { ok, notOk, check } = tap;

// Everything a frame shows, read from the page.
async function frameInfo(page, root, name) {
    return page.evaluate(([root, name]) => {
        const svg = document.querySelectorAll('svg.flamegraph')[root];
        for (const g of svg.querySelectorAll('.fg-frames > g')) {
            const t = g.querySelector('title').textContent;
            if (t.startsWith(name + ' (')) {
                const r = g.querySelector('rect');
                return { width: parseFloat(r.getAttribute('width')), x: parseFloat(r.getAttribute('x')),
                         display: g.getAttribute('display'), text: g.querySelector('text').textContent };
            }
        }
        return null;
    }, [root, name]);
}

function frameRect(page, root, name) {
    return page.locator('svg.flamegraph').nth(root).locator('.fg-frames > g', {
        has: page.locator('title', { hasText: new RegExp('^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ' \\(') }),
    }).first().locator('rect');
}

async function main() {
    // a fresh profile directory per run (the playwright form of --user-data-dir)
    const context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    // no network at all: every request but our own file fails the test
    const external = [];
    await context.route('**/*', (route) => {
        const u = route.request().url();
        if (u.startsWith('file://')) return route.continue();
        external.push(u);
        return route.abort();
    });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));

    // ---- standalone SVG ----
    await page.goto('file://' + path.resolve(svgPath));
    const full = await page.evaluate(() => {
        const s = document.querySelector('svg.flamegraph');
        return parseFloat(s.getAttribute('width')) - 2 * parseFloat(s.getAttribute('data-fg-xpad'));
    });

    await check('flame_svg_hover_details', async () => {
        await frameRect(page, 0, 'burn_outer').hover();
        const d = await page.locator('.fg-details').textContent();
        // 99 samples of period 10101010: weighted as stackcollapse-perf.pl weights them
        return d.startsWith('burn_outer (999,999,990 samples') ? null : 'details line is "' + d + '"';
    });

    const before = await frameInfo(page, 0, 'burn_outer');
    await check('flame_svg_click_zooms', async () => {
        await frameRect(page, 0, 'burn_outer').click();
        const z = await frameInfo(page, 0, 'burn_outer');
        const child = await frameInfo(page, 0, 'burn_leaf');
        const other = await frameInfo(page, 0, 'dd');
        const reset = await page.locator('.fg-reset').getAttribute('display');
        if (Math.abs(z.width - full) > 0.5) return 'zoomed width ' + z.width + ', want ' + full;
        if (Math.abs(child.width - full) > 0.5) return 'callee width ' + child.width;
        if (other.display !== 'none') return 'a frame outside the zoom is still shown';
        if (reset === 'none') return 'Reset Zoom not shown';
        return null;
    });

    await check('flame_svg_reset_zoom', async () => {
        await page.locator('.fg-reset').click();
        const z = await frameInfo(page, 0, 'burn_outer');
        const other = await frameInfo(page, 0, 'dd');
        if (Math.abs(z.width - before.width) > 0.01) return 'width ' + z.width + ', want ' + before.width;
        if (other.display === 'none') return 'frames stay hidden';
        if ((await page.locator('.fg-reset').getAttribute('display')) !== 'none') return 'Reset Zoom still shown';
        return null;
    });

    await check('flame_svg_search_substring', async () => {
        await page.locator('.fg-search input').fill('burn_');
        const m = await page.locator('.fg-matched').textContent();
        const fill = await frameRect(page, 0, 'burn_leaf').getAttribute('fill');
        if (m !== 'Matched: 91.7%') return 'matched text "' + m + '"'; // 99 of 108
        if (fill !== 'rgb(230,0,230)') return 'match not highlighted';
        return null;
    });

    await check('flame_svg_search_regex', async () => {
        await page.locator('.fg-search input').fill('^(read|vfs_read)$');
        const m = await page.locator('.fg-matched').textContent();
        return m === 'Matched: 5.6%' ? null : 'matched text "' + m + '"'; // 6 of 108, vfs_read nested
    });

    await check('flame_svg_search_clear', async () => {
        await page.locator('.fg-search input').fill('');
        const m = await page.locator('.fg-matched').textContent();
        const fill = await frameRect(page, 0, 'burn_leaf').getAttribute('fill');
        return m === '' && fill !== 'rgb(230,0,230)' ? null : 'search not cleared';
    });

    if (shot) await page.screenshot({ path: shot });
    await check('flame_svg_no_console_errors', async () =>
        errors.length ? errors.join(' | ') : (external.length ? 'external request ' + external[0] : null));

    // ---- two graphs inline in one HTML page, strict CSP (script by hash) ----
    const svg = fs.readFileSync(svgPath, 'utf8');
    const m = svg.match(/<script type="text\/ecmascript"><!\[CDATA\[\n([\s\S]*)\n\]\]><\/script>/);
    const js = m ? m[1] : '';
    const inline = svg.replace(/^<\?xml[^>]*>\n/, '').replace(/<script[\s\S]*<\/script>\n/, '');
    const hash = crypto.createHash('sha256').update(js).digest('base64');
    const html = '<!DOCTYPE html><html><head><meta charset="utf-8">' +
        `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-${hash}'">` +
        '<title>two graphs</title></head><body>' + inline + inline +
        '<script>' + js + '</script></body></html>';
    const htmlPath = path.join(path.dirname(path.resolve(svgPath)), 'two.html');
    fs.writeFileSync(htmlPath, html);
    errors.length = 0;
    await page.goto('file://' + htmlPath);

    await check('flame_html_two_graphs_independent', async () => {
        if (!js) return 'no script in the SVG';
        await frameRect(page, 1, 'burn_outer').click();
        const z2 = await frameInfo(page, 1, 'burn_outer');
        const z1 = await frameInfo(page, 0, 'burn_outer');
        if (Math.abs(z2.width - full) > 0.5) return 'second graph did not zoom: ' + z2.width;
        if (Math.abs(z1.width - before.width) > 0.01) return 'first graph changed too';
        await page.locator('svg.flamegraph').nth(0).locator('.fg-search input').fill('read');
        const m1 = await page.locator('svg.flamegraph').nth(0).locator('.fg-matched').textContent();
        const m2 = await page.locator('svg.flamegraph').nth(1).locator('.fg-matched').textContent();
        if (!m1.startsWith('Matched: ')) return 'first graph search shows "' + m1 + '"';
        if (m2 !== '') return 'search leaked into the second graph';
        return null;
    });
    await check('flame_html_no_console_errors', async () => (errors.length ? errors.join(' | ') : null));

    await context.close();
}

main().then(() => process.exit(tap.failed ? 1 : 0), (e) => {
    console.log('not ok flame_browser: ' + String(e.message || e).split('\n')[0]);
    process.exit(1);
});
