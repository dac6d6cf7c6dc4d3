// Headless Chromium checks of the heat map under the on-CPU flame graph, on a
// bundle of `phases 2` (2 s in phase_one_spin, then 2 s in phase_two_spin).
// A crafted copy of the page (its first heat map's data replaced) goes to
// ARTIFACTS_DIR/heat-crafted.html.
// usage: node check_heat.js INDEX.html ARTIFACTS_DIR USER_DATA_DIR
// Prints "ok NAME" / "not ok NAME: why" lines; exits 1 when one failed.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [indexPath, artifacts, userDataDir] = process.argv.slice(2);
const url = 'file://' + path.resolve(indexPath);
const tap = require('./tap.js');
const { ok, notOk, check } = tap;

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

    // ---- the whole window redrawn is the static graph ----
    // The redraw lays frames out, sizes the image, cuts the depth and words
    // each tooltip as the static graph does (svg_flame.c): selecting every
    // second must give back the same frames, the same height and the same
    // tooltips ("1 sample", never "1 samples"; times scaled, never "523,146,000 us").
    const graphOf = (p) => p.evaluate(() => {
        const svg = document.querySelector('figure.heat').previousElementSibling.querySelector('svg.flamegraph');
        return {
            height: svg.getAttribute('height'),
            viewBox: svg.getAttribute('viewBox'),
            frames: Array.from(svg.querySelectorAll('.fg-frames > g'), (g) => {
                const r = g.querySelector('rect');
                return { title: g.querySelector('title').textContent.split('\n')[0],
                         x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'),
                         h: +r.getAttribute('height') };
            }),
        };
    });
    const page3 = await context.newPage();
    watch(page3);
    await page3.goto(url);
    await unfold(page3);
    const stat = await graphOf(page3);
    await page3.evaluate((h) => { location.hash = h; }, `#${info.key}=0-${info.total.length - 1}`);
    await page3.waitForFunction(() => document.querySelector('.heat-status').textContent !== '');
    const redrawn = await graphOf(page3);
    await check('heat_whole_window_redraw_is_static_graph', async () => {
        if (redrawn.height !== stat.height || redrawn.viewBox !== stat.viewBox)
            return `height ${redrawn.height} (${redrawn.viewBox}), static ${stat.height} (${stat.viewBox})`;
        if (redrawn.frames.length !== stat.frames.length)
            return `${redrawn.frames.length} frames, static ${stat.frames.length}`;
        const key = (f) => f.y + '|' + f.x.toFixed(1);
        const byPos = new Map(stat.frames.map((f) => [key(f), f]));
        for (const f of redrawn.frames) {
            const g = byPos.get(key(f));
            if (!g || g.title !== f.title || Math.abs(g.w - f.w) > 0.02)
                return `redrawn "${f.title}" at ${f.x},${f.y} w ${f.w}; static: ${g ? `"${g.title}" w ${g.w}` : 'none there'}`;
        }
        return null;
    });
    await check('heat_redraw_tooltips_formatted', async () => {
        const raw = redrawn.frames.filter((f) => / \(1 samples,|\d,\d{3} us,/.test(f.title));
        const one = redrawn.frames.filter((f) => / \(1 sample,/.test(f.title)).length;
        return raw.length ? 'raw units: ' + raw.slice(0, 3).map((f) => f.title).join(' | ')
            : one === stat.frames.filter((f) => / \(1 sample,/.test(f.title)).length ? null
            : `${one} frames of 1 sample redrawn`;
    });

    // ---- a crafted range: folded run, depth cut, height, units ----
    // The page's data as heat_html writes it for a broken walk (the run
    // already folded, "[heap]+0x6966df \u00d7134") beside a rare stack 40
    // levels deep (0.2 %), in microseconds.  The redraw must cut where the
    // static graph's rule cuts (level 3: below it 0.20 % reaches deeper, and
    // says so), be as tall as the 4 levels it draws, and word times as the
    // static graph does ("900 ms", not "900,000 us").
    const names = ['all', 'app', 'work', 'perfreport', '[truncated]', '[heap]+0x6966df \u00d7134'];
    const nodes = [-1, 0, 0, 0, 1, 0, 1, 2, 0, 0, 3, 0, 3, 4, 0, 4, 5, 0];
    for (let k = 0; k < 40; k++) {
        names.push('deep' + k);
        nodes.push(k ? 5 + k : 1, 6 + k, 0);
    }
    const crafted = { unit: 'us', bucket_s: 1, total: [549000, 452000], unstacked: [0, 0], names, nodes,
        cells: [2, 0, 450000, 2, 1, 450000, 5, 0, 99000, 45, 1, 2000] };
    const html = fs.readFileSync(indexPath, 'utf8');
    const open = '<script type="application/json" class="heat-data">';
    const da = html.indexOf(open), db = html.indexOf('</script>', da);
    const craftedPath = path.join(artifacts, 'heat-crafted.html');
    fs.writeFileSync(craftedPath, html.slice(0, da + open.length) + JSON.stringify(crafted) + html.slice(db));
    const page4 = await context.newPage();
    watch(page4);
    const craftedUrl = 'file://' + path.resolve(craftedPath);
    await page4.goto(craftedUrl);
    await unfold(page4);
    const before = await graphOf(page4);
    await page4.evaluate((h) => { location.hash = h; }, `#${info.key}=0-1`);
    await page4.waitForFunction(() => document.querySelector('.heat-status').textContent !== '');
    const cut = await graphOf(page4);
    const status = await page4.evaluate(() => document.querySelector('.heat-status').textContent);
    await check('heat_redraw_cuts_depth_as_static_graph', async () => {
        const titles = cut.frames.map((f) => f.title.split(' (')[0]);
        const ys = [...new Set(cut.frames.map((f) => f.y))];
        if (!titles.includes('deep1') || titles.includes('deep2') || ys.length !== 4)
            return `${ys.length} levels: ${titles.join(',')}`;
        if (!/levels below 3 not drawn \(0\.20% reaches deeper\)/.test(status))
            return 'status: ' + status;
        return null;
    });
    await check('heat_redraw_height_fits_levels', async () => {
        // the static graph's margins above and below its frames, 4 levels between
        const sy = before.frames.map((f) => f.y), fh = before.frames[0].h + 1;
        const top = Math.min(...sy), bottom = Math.max(...sy);
        const want = Math.round(top + 4 * fh + (+before.height - bottom - fh));
        const ry = cut.frames.map((f) => f.y);
        return +cut.height === want && cut.viewBox.endsWith(' ' + want) &&
            Math.min(...ry) === top && +cut.height - Math.max(...ry) === +before.height - bottom
            ? null : `height ${cut.height} (${cut.viewBox}), want ${want}; frames at ${Math.min(...ry)}..${Math.max(...ry)}`;
    });
    await check('heat_redraw_units_as_static_graph', async () => {
        const work = cut.frames.find((f) => f.title.startsWith('work ('));
        const all = cut.frames.find((f) => f.title.startsWith('all ('));
        const raw = cut.frames.filter((f) => /\d us\b/.test(f.title));
        return work && work.title === 'work (900 ms, 89.91%)' && all && all.title === 'all (1 s, 100.00%)' &&
            !raw.length ? null : `work "${work && work.title}", all "${all && all.title}", raw ${raw.length}`;
    });
    await check('heat_redraw_names_folded_run', async () =>
        cut.frames.some((f) => f.title.startsWith('[heap]+0x6966df \u00d7134 (99 ms,')) ? null
            : 'frames: ' + cut.frames.map((f) => f.title).join(' | '));

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
    process.exit(tap.failed ? 1 : 0);
}

main().catch((e) => { console.log('not ok heat_browser: ' + (e.message || e)); process.exit(2); });
