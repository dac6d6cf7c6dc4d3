// Headless Chromium checks of the heat map under the on-CPU flame graph, on a
// bundle of `phases 2` (2 s in phase_one_spin, then 2 s in phase_two_spin).
// usage: node check_heat.js INDEX.html ARTIFACTS_DIR USER_DATA_DIR
// Prints "ok NAME" / "not ok NAME: why" lines; exits 1 when one failed.
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');

const [indexPath, artifacts, userDataDir] = process.argv.slice(2);
const url = 'file://' + path.resolve(indexPath);
let failed = 0;
function ok(name) { console.log('ok ' + name); }
function notOk(name, why) { failed++; console.log('not ok ' + name + ': ' + String(why).replace(/\n/g, ' ')); }
async function check(name, fn) {
    try {
        const why = await fn();
        if (why) notOk(name, why); else ok(name);
    } catch (e) {
        notOk(name, e.message || e);
    }
}

// The names of the frames the on-CPU graph draws now.
function frames(page) {
    return page.evaluate(() => {
        const svg = document.querySelector('figure.heat').previousElementSibling.querySelector('svg.flamegraph');
        return Array.from(svg.querySelectorAll('.fg-frames > g title'), (t) => t.textContent.split(' (')[0]);
    });
}

async function main() {
    const context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: '/usr/bin/chromium',
        headless: true,
        viewport: { width: 1280, height: 900 },
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const requests = [];
    context.on('request', (r) => { if (!r.url().startsWith('file://')) requests.push(r.url()); });
    await context.route('**/*', (route) => (route.request().url().startsWith('file://') ? route.continue() : route.abort()));
    const errors = [];
    function watch(page) {
        page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
        page.on('pageerror', (e) => errors.push(e.message));
    }
    // The profile's section may be folded (the appendix): a reader opens it.
    const unfold = (p) => p.evaluate(() => {
        for (let d = document.querySelector('figure.heat'); d; d = d.parentElement) if (d.tagName === 'DETAILS') d.open = true;
    });
    const page = await context.newPage();
    watch(page);
    await page.goto(url);
    await unfold(page);

    // The data: each second's total; phase one begins in the first second
    // with samples and lasts 2 s, so that second and the next hold it alone,
    // and the fourth second from there holds phase two alone.
    const info = await page.evaluate(() => {
        const fig = document.querySelector('figure.heat');
        if (!fig) return null;
        const d = JSON.parse(fig.querySelector('script.heat-data').textContent);
        return { total: d.total, cells: fig.querySelectorAll('.heat-cell').length, key: fig.getAttribute('data-heat-for') };
    });
    if (!info) {
        notOk('heat_present', 'no figure.heat under the on-CPU flame graph');
        await context.close();
        process.exit(1);
    }
    const first = info.total.findIndex((v) => v > 0);
    await check('heat_cells_one_per_second', async () =>
        info.cells === info.total.length && info.total.length >= 4 && first >= 0 && first + 3 < info.total.length
            ? null : `cells ${info.cells}, seconds ${info.total.length}, first busy second ${first}`);
    const whole = await frames(page);
    await check('heat_whole_window_has_both_phases', async () =>
        whole.includes('phase_one_spin') && whole.includes('phase_two_spin') ? null : 'frames: ' + whole.join(','));
    await page.locator('figure.heat').first().screenshot({ path: path.join(artifacts, 'heat-whole.png') });

    // ---- mouse: drag across the first phase's two seconds ----
    const strip = page.locator('svg.heat-strip').first();
    const cellBox = async (i) => page.locator('svg.heat-strip').first().locator('rect.heat-cell').nth(i).boundingBox();
    const a = await cellBox(first), b = await cellBox(first + 1);
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 4 });
    const t0 = Date.now();
    await page.mouse.up();
    const redrawMs = Date.now() - t0;
    const dragged = await frames(page);
    await check('heat_drag_first_phase_only', async () =>
        dragged.includes('phase_one_spin') && !dragged.includes('phase_two_spin') ? null : 'frames: ' + dragged.join(','));
    const hash = await page.evaluate(() => location.hash);
    await check('heat_fragment_names_range', async () =>
        hash === `#${info.key}=${first}-${first + 1}` ? null : 'hash ' + hash);
    await check('heat_charts_mark_range', async () => {
        const n = await page.locator('svg[data-t1] rect.heat-mark').count();
        const charts = await page.locator('svg[data-t1]').count();
        return charts > 0 && n === charts ? null : `${n} marks on ${charts} charts`;
    });
    await check('heat_graph_still_interactive', async () => {
        // the redrawn graph is wired again: hovering a frame fills the details line
        const svg = page.locator('figure.heat').first().locator('xpath=preceding-sibling::figure[1]//*[local-name()="svg"]').first();
        const g = svg.locator('.fg-frames > g', { has: page.locator('title', { hasText: /^phase_one_spin \(/ }) }).first();
        await g.locator('rect').hover();
        const d = await svg.locator('.fg-details').textContent();
        return d.indexOf('phase_one_spin') >= 0 ? null : 'details: ' + d;
    });
    await page.locator('figure.heat').first().screenshot({ path: path.join(artifacts, 'heat-range.png') });
    const flameFig = page.locator('figure.heat').first().locator('xpath=preceding-sibling::figure[1]');
    await flameFig.screenshot({ path: path.join(artifacts, 'heat-range-flame.png') });

    // ---- the fragment restores the view in a fresh page ----
    const page2 = await context.newPage();
    watch(page2);
    await page2.goto(url + hash);
    const restored = await frames(page2);
    await check('heat_fragment_restores_view', async () =>
        restored.includes('phase_one_spin') && !restored.includes('phase_two_spin') ? null : 'frames: ' + restored.join(','));

    // ---- keyboard: Home, Right to the first busy second, Shift+Right ----
    await page2.goto(url);
    await unfold(page2);
    await page2.locator('svg.heat-strip').first().focus();
    await page2.keyboard.press('Home');
    for (let i = 0; i < first + 3; i++) await page2.keyboard.press('ArrowRight');
    await page2.keyboard.press('Enter'); // the fourth second: phase two alone
    const second = await frames(page2);
    await check('heat_keyboard_enter_selects_second', async () =>
        second.includes('phase_two_spin') && !second.includes('phase_one_spin') ? null : 'frames: ' + second.join(','));
    await page2.keyboard.press('Escape');
    await page2.keyboard.press('Home');
    for (let i = 0; i < first; i++) await page2.keyboard.press('ArrowRight');
    await page2.keyboard.press('Shift+ArrowRight');
    const keyed = await frames(page2);
    const khash = await page2.evaluate(() => location.hash);
    await check('heat_keyboard_shift_selects_range', async () =>
        keyed.includes('phase_one_spin') && !keyed.includes('phase_two_spin') && khash === hash
            ? null : `hash ${khash}; frames: ${keyed.join(',')}`);
    await page2.keyboard.press('Escape');
    const back = await frames(page2);
    const bhash = await page2.evaluate(() => location.hash);
    await check('heat_escape_restores_whole_window', async () =>
        back.includes('phase_one_spin') && back.includes('phase_two_spin') && bhash === '' &&
        (await page2.locator('rect.heat-mark').count()) === 0 ? null : `hash ${bhash}; frames: ${back.join(',')}`);

    // ---- a phone, dark ----
    const phone = await context.newPage();
    watch(phone);
    await phone.setViewportSize({ width: 400, height: 800 });
    await phone.emulateMedia({ colorScheme: 'dark' });
    await phone.goto(url + hash);
    await check('heat_fits_phone', async () => {
        const w = await phone.locator('svg.heat-strip').first().evaluate((e) => e.getBoundingClientRect().width);
        const sw = await phone.evaluate(() => document.documentElement.scrollWidth);
        return w > 0 && w <= 400 && sw <= 400 ? null : `strip ${w} px, page ${sw} px wide`;
    });
    await phone.locator('figure.heat').first().screenshot({ path: path.join(artifacts, 'heat-phone-dark.png') });

    await check('heat_no_console_error', async () => (errors.length ? errors.slice(0, 3).join(' | ') : null));
    await check('heat_no_request', async () => (requests.length ? requests.slice(0, 3).join(' ') : null));
    console.error(`redraw after mouse up: ${redrawMs} ms`);
    await context.close();
    process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.log('not ok heat_browser: ' + (e.message || e)); process.exit(2); });
