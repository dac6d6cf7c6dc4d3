// Opens a bundle's index.html in headless Chromium and prints one protocol
// line per check ("ok NAME" / "not ok NAME: why").
// usage: node check_html.js INDEX_HTML SHOT_DIR USER_DATA_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [file, shotDir, userDir] = process.argv.slice(2);
if (!file || !shotDir || !userDir) {
  console.log('not ok browser_html_args: usage: check_html.js INDEX_HTML SHOT_DIR USER_DATA_DIR');
  process.exit(1);
}
const url = 'file://' + path.resolve(file);
let failed = 0;
const ok = (name) => console.log(`ok ${name}`);
const notOk = (name, why) => { failed++; console.log(`not ok ${name}: ${String(why).replace(/\s+/g, ' ').slice(0, 400)}`); };
const check = (name, cond, why) => (cond ? ok(name) : notOk(name, why));
const skip = (name, why) => console.log(`skip ${name}: ${why}`);

(async () => {
  let ctx;
  try {
    ctx = await chromium.launchPersistentContext(userDir, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      timeout: 60000,
      viewport: { width: 1280, height: 800 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
             '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (e) {
    notOk('browser_html_launch', e.message);
    process.exit(1);
  }
  const errors = [];
  const requests = [];
  const page = ctx.pages()[0] || await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  const responses = [];
  ctx.on('request', (r) => requests.push(r.url()));
  ctx.on('response', (r) => responses.push(r.url()));
  try {
    const resp = await page.goto(url, { waitUntil: 'load', timeout: 30000 });
    check('browser_html_loads', resp === null || resp.ok(), `status ${resp && resp.status()}`);
    await page.waitForTimeout(300); // late console messages (CSP reports are async)

    check('browser_html_no_console_errors', errors.length === 0, errors.join(' | '));
    // ---- the first screen for a stakeholder; the details folded ----
    // Everything after the USE check is a closed <details>; the overview,
    // findings and USE check are not inside one.
    const fold = await page.evaluate(() => {
      const secs = Array.from(document.querySelectorAll('details.section'));
      const front = ['overview', 'findings', 'use-check'].map((id) => document.getElementById(id));
      return { n: secs.length, open: secs.filter((d) => d.open).length,
               frontFolded: front.filter((h) => !h || h.closest('details')).length,
               afterUse: secs.every((d) => front[2] && (front[2].compareDocumentPosition(d) & Node.DOCUMENT_POSITION_FOLLOWING)),
               height: document.documentElement.scrollHeight };
    });
    // The report's own layout (folded appendix, printed order); other pages
    // checked here (the history page) have no USE check and no appendix.
    const isReport = await page.evaluate(() => document.getElementById('use-check') !== null);
    const rcheck = (name, cond, msg) => (isReport ? check(name, cond, msg) : skip(name, 'not a report page (no USE check)'));
    const others = requests.filter((u) => u !== url);
    check('browser_html_no_network', others.length === 0, others.join(' '));

    const banner = page.locator('header.banner').first();
    const visible = await banner.isVisible();
    const text = visible ? (await banner.locator('.banner-headline').innerText()).trim() : '';
    const box = visible ? await banner.boundingBox() : null;
    check('browser_html_banner_visible',
          visible && text.length > 0 && box && box.y >= 0 && box.y + box.height <= 800,
          `visible=${visible} text="${text}" box=${JSON.stringify(box)}`);
    // The banner must be readable: its headline differs from its background.
    const colours = await page.evaluate(() => {
      const b = document.querySelector('header.banner');
      const h = b && b.querySelector('.banner-headline');
      return b && h ? [getComputedStyle(h).color, getComputedStyle(b).backgroundColor] : null;
    });
    check('browser_html_banner_contrast', colours && colours[0] !== colours[1], JSON.stringify(colours));

    // The contents line, the overview and the findings' evidence links: each
    // lands on a heading or on a finding's own anchor (the overview links a
    // row to its first finding), and following one scrolls it into view.
    const links = await page.evaluate(() => Array.from(document.querySelectorAll('a[href^="#"]'))
      .map((a) => a.getAttribute('href').slice(1)));
    // A folded section's anchor is its body (so a link opens it), under a
    // summary that holds its heading; a skip link lands on its flame graph.
    const dangling = await page.evaluate((ids) => ids.filter((id) => {
      const t = document.getElementById(id);
      return !t || !(/^H[1-6]$/.test(t.tagName) ||
                     (id.startsWith('finding-') && t.closest('li') !== null) ||
                     (t.classList.contains('section-body') &&
                      t.parentElement.matches('details.section') &&
                      t.parentElement.querySelector(':scope > summary > h2') !== null) ||
                     (t.matches('figure.flame') && t.querySelector('svg.flamegraph') !== null));
    }), links);
    check('browser_html_toc_links_resolve', links.length >= 5 && dangling.length === 0,
          `${links.length} links, not landing on a heading or a finding: ${dangling.join(' ')}`);
    if (links.length) {
      const last = links[links.length - 1];
      await page.click(`a[href="#${last}"]`);
      await page.waitForTimeout(200);
      const top = await page.evaluate((id) => document.getElementById(id).getBoundingClientRect().top, last);
      check('browser_html_toc_link_scrolls', top >= -1 && top < 200, `#${last} is at ${top}px after its link`);
      await page.evaluate(() => window.scrollTo(0, 0));
    }

    rcheck('browser_html_sections_folded', fold.n >= 3 && fold.open === 0 && fold.frontFolded === 0 && fold.afterUse,
          JSON.stringify(fold));
    // A link into a folded section (the overview's first area) opens it and
    // shows its body under its summary.
    const opened = await page.evaluate(() => {
      const a = document.querySelector('table.overview a[href^="#"]');
      if (!a) return { err: 'no overview link' };
      const t = document.getElementById(a.getAttribute('href').slice(1));
      const d = t && t.closest('details.section');
      const was = d ? d.open : null;
      a.click();
      return { id: t && t.id, was, now: d ? d.open : null };
    });
    await page.waitForTimeout(200);
    const openedTop = opened.id ? await page.evaluate((id) => document.getElementById(id).getBoundingClientRect().top, opened.id) : null;
    rcheck('browser_html_link_opens_section', opened.was === false && opened.now === true && openedTop !== null && openedTop >= 0 && openedTop < 200,
          `${JSON.stringify(opened)} top ${openedTop}`);
    // Long tables there show their first rows; the summary under them shows
    // all, and again only the first (CSS: the same without script, below).
    const rowsToggle = async (pg) => {
      const st = () => pg.evaluate(() => {
        const d = document.querySelector('details.rows');
        if (!d) return null;
        const wrap = d.parentElement;
        const rows = Array.from(wrap.querySelectorAll('tbody tr'));
        return { rows: rows.length, shown: rows.filter((r) => r.getClientRects().length > 0).length,
                 label: d.querySelector('summary').innerText.trim() };
      });
      await pg.evaluate(() => { const d = document.querySelector('details.rows'); if (d) d.closest('details.section').open = true; });
      const a = await st();
      if (!a) return 'no collapsed table';
      await pg.locator('details.rows > summary').first().click();
      const b = await st();
      await pg.locator('details.rows > summary').first().click();
      const c = await st();
      const good = a.shown === 5 && a.rows > 8 && /^Show all [0-9]+ rows$/.test(a.label) &&
                   b.shown === b.rows && /^Show the first 5 rows only$/.test(b.label) && c.shown === 5;
      return good ? null : JSON.stringify([a, b, c]);
    };
    const rt = await rowsToggle(page);
    if (rt === 'no collapsed table') skip('browser_html_rows_show_all', 'no table longer than 8 rows');
    else rcheck('browser_html_rows_show_all', rt === null, rt);
    {
      const nojs = await ctx.newPage();
      const cdp = await ctx.newCDPSession(nojs);
      await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
      await nojs.goto(url, { waitUntil: 'load', timeout: 30000 });
      const ran = await nojs.evaluate(() => document.querySelector('svg.flamegraph[data-fg-ready]') !== null);
      const r2 = await rowsToggle(nojs);
      if (r2 !== 'no collapsed table')
        rcheck('browser_html_rows_show_all_without_script', !ran && r2 === null, `script ran: ${ran}; ${r2}`);
      await nojs.close();
    }

    // Skip links: from the top of the page, Tab reaches the first graph's
    // link at once, Enter follows it (opening its section), and the next Tab
    // is in the graph's frames.
    if (await page.locator('svg.flamegraph').count() > 0) {
      await page.goto(url, { waitUntil: 'load', timeout: 30000 }); // from the top, as a reader starts
      let tabs = 0, onSkip = null;
      for (; tabs < 10 && !onSkip; tabs++) {
        await page.keyboard.press('Tab');
        onSkip = await page.evaluate(() => { const a = document.activeElement; return a && a.matches('a.skip') ? a.getAttribute('href') : null; });
      }
      let landed = null;
      if (onSkip) {
        await page.keyboard.press('Enter');
        await page.waitForTimeout(150);
        await page.keyboard.press('Tab');
        landed = await page.evaluate((href) => {
          const a = document.activeElement;
          const fig = document.getElementById(href.slice(1));
          return { inGraph: !!(a && fig && fig.contains(a)), what: a ? a.tagName + "." + (a.getAttribute("class") || "") : null,
                   top: fig ? fig.getBoundingClientRect().top : null, open: !!(fig && fig.closest('details').open) };
        }, onSkip);
      }
      const nskip = await page.evaluate(() => [document.querySelectorAll('a.skip').length, document.querySelectorAll('svg.flamegraph').length]);
      check('browser_html_skip_links', onSkip && tabs <= 2 && landed && landed.inGraph && landed.open && nskip[0] === nskip[1],
            `first skip link after ${tabs} tabs (${onSkip}), then ${JSON.stringify(landed)}; ${nskip[0]} links for ${nskip[1]} graphs`);
    }

    // Printed: the overview, findings and USE check first, then a page break
    // and every section, open, with all of its rows.
    await page.emulateMedia({ media: 'print' });
    const pr = await page.evaluate(() => {
      const app = document.querySelector('.appendix');
      const hidden = Array.from(document.querySelectorAll('details.section > .section-body, tr.more'))
        .filter((e) => e.getClientRects().length === 0).length;
      return { brk: app ? getComputedStyle(app).breakBefore : null, hidden,
               toggles: Array.from(document.querySelectorAll('details.rows')).filter((d) => d.getClientRects().length > 0).length };
    });
    await page.emulateMedia({ media: null });
    rcheck('browser_html_print_expanded', pr.brk === 'page' && pr.hidden === 0 && pr.toggles === 0, JSON.stringify(pr));
    {
      const pdf = path.join(shotDir, 'index.pdf');
      const printing = await ctx.newPage(); // as loaded: nothing opened by hand
      await printing.goto(url, { waitUntil: 'load', timeout: 30000 });
      await printing.pdf({ path: pdf });
      await printing.close();
      const { spawnSync } = require('child_process');
      const t = spawnSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
      if (t.error) {
        skip('browser_html_print_order', 'no pdftotext (apt-get install poppler-utils)');
      } else {
        const pages = t.stdout.split('\f');
        const at = (re) => pages.findIndex((pg) => re.test(pg));
        const p = { overview: at(/^\s*Overview\s*$/m), findings: at(/^\s*Findings\s*$/m), use: at(/^\s*USE check\s*$/m),
                    appendix: at(/Appendix: the measurements behind the findings/), collectors: at(/^\s*Collectors\s*$/m), pages: pages.length };
        rcheck('browser_html_print_order', p.overview === 0 && p.findings >= 0 && p.use >= p.findings &&
              p.appendix > p.use && p.collectors > p.appendix &&
              !/Overview|USE check/.test(pages[p.appendix].split('Appendix: the measurements')[0]),
              JSON.stringify(p));
      }
    }
    // The rest of the checks read the sections: open them as a reader would.
    for (const s of await page.locator('details.section > summary').all()) {
      if (!(await s.evaluate((e) => e.parentElement.open))) await s.click();
    }

    const charts = await page.evaluate(() => Array.from(document.querySelectorAll('.chart svg'))
      .map((s) => s.getBoundingClientRect().width));
    check('browser_html_charts_rendered', charts.every((w) => w > 100),
          `chart widths ${JSON.stringify(charts)}`);

    // Inline flame graphs (runs with a profile; on-CPU and off-CPU): in each,
    // a click on a frame zooms, Reset restores, the search marks matches,
    // and nothing of it touches the other graph; no CSP violation.
    const nflame = await page.locator('svg.flamegraph').count();
    if (nflame > 0) {
      await page.evaluate(() => { window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.effectiveDirective)); });
      const state = () => page.evaluate(() => Array.from(document.querySelectorAll('svg.flamegraph')).map((svg) => ({
        reset: svg.querySelector('.fg-reset').getAttribute('display'),
        matched: (svg.querySelector('.fg-matched') || {}).textContent || '',
        widths: Array.from(svg.querySelectorAll('.fg-frames > g rect')).slice(0, 50).map((r) => r.getAttribute('width')).join(','),
      })));
      const zoomed = [], searched = [], independent = [];
      let nzoomable = 0; // a graph of one stack (a -p target's few page faults) has nothing to zoom into
      for (let k = 0; k < nflame; k++) {
        const flame = page.locator('svg.flamegraph').nth(k);
        const g = await page.evaluate((kk) => {
          const svg = document.querySelectorAll('svg.flamegraph')[kk];
          const gs = Array.from(svg.querySelectorAll('.fg-frames > g'));
          const full = Math.max(...gs.map((x) => parseFloat(x.querySelector('rect').getAttribute('width'))));
          // the widest frame narrower than the whole graph: zooming changes it
          let best = -1, bw = 0;
          gs.forEach((x, i) => { const w = parseFloat(x.querySelector('rect').getAttribute('width')); if (w < full - 1 && w > bw) { bw = w; best = i; } });
          const name = best >= 0 ? gs[best].querySelector('title').textContent : '';
          return { best, bw, full, name };
        }, k);
        const before = await state();
        if (g.best >= 0) {
          nzoomable++;
          const rect = flame.locator('.fg-frames > g').nth(g.best).locator('rect');
          await rect.scrollIntoViewIfNeeded();
          await rect.click();
          const after = await page.evaluate(([kk, i]) => {
            const svg = document.querySelectorAll('svg.flamegraph')[kk];
            const r = svg.querySelectorAll('.fg-frames > g')[i].querySelector('rect');
            return { w: parseFloat(r.getAttribute('width')), reset: svg.querySelector('.fg-reset').getAttribute('display') };
          }, [k, g.best]);
          if (!(Math.abs(after.w - g.full) < 1 && after.reset !== 'none'))
            zoomed.push(`graph ${k}: clicked "${g.name}" width ${g.bw} -> ${after.w} (full ${g.full}), reset ${after.reset}`);
          const mid = await state();
          for (let o = 0; o < nflame; o++)
            if (o !== k && JSON.stringify(mid[o]) !== JSON.stringify(before[o]))
              independent.push(`zooming graph ${k} changed graph ${o}`);
          await flame.locator('.fg-reset').click();
          const reset = await state();
          if (reset[k].widths !== before[k].widths) zoomed.push(`graph ${k}: Reset did not restore the widths`);
        }
        const fn = g.name.split(' (')[0];
        await flame.locator('.fg-search input').fill(fn.slice(0, 6) || 'a');
        const now = await state();
        if (!/^Matched: [0-9.]+%$/.test(now[k].matched)) searched.push(`graph ${k}: search "${fn.slice(0, 6)}" shows "${now[k].matched}"`);
        for (let o = 0; o < nflame; o++)
          if (o !== k && now[o].matched !== before[o].matched)
            independent.push(`searching graph ${k} changed graph ${o}'s match line`);
        await flame.locator('.fg-search input').fill('');
      }
      // Keyboard only: Tab reaches the graph's one tab stop, an arrow moves to
      // a frame above, Enter zooms on it, Esc resets; the controls are buttons.
      const kb = [];
      const flame0 = page.locator('svg.flamegraph').first();
      const a11y = await page.evaluate(() => {
        const svg = document.querySelector('svg.flamegraph');
        return { label: svg.getAttribute('aria-label') || '',
                 stops: svg.querySelectorAll('.fg-frames > g[tabindex="0"]').length,
                 reset: svg.querySelector('.fg-reset').getAttribute('role'),
                 search: svg.querySelector('.fg-search-btn').getAttribute('role') };
      });
      if (!a11y.label || a11y.stops !== 1 || a11y.reset !== 'button' || a11y.search !== 'button')
        kb.push(`name "${a11y.label}", ${a11y.stops} tab stops, reset ${a11y.reset}, search ${a11y.search}`);
      await flame0.locator('.fg-frames > g[tabindex="0"]').focus();
      await page.keyboard.press('ArrowUp');
      const moved = await page.evaluate(() => {
        const svg = document.querySelector('svg.flamegraph');
        const f = document.activeElement;
        return { inFrames: !!(f && f.parentNode === svg.querySelector('.fg-frames')),
                 details: svg.querySelector('.fg-details').textContent };
      });
      if (!moved.inFrames) kb.push('ArrowUp left the frames');
      await page.keyboard.press('Enter');
      const kzoom = await page.evaluate(() => document.querySelector('svg.flamegraph .fg-reset').getAttribute('display'));
      if (kzoom === 'none') kb.push('Enter did not zoom');
      await page.keyboard.press('Escape');
      const kreset = await page.evaluate(() => document.querySelector('svg.flamegraph .fg-reset').getAttribute('display'));
      if (kreset !== 'none') kb.push('Esc did not reset');
      check('browser_html_flame_keyboard', kb.length === 0, kb.join('; '));
      if (nzoomable === 0) zoomed.push(`none of the ${nflame} graphs has a frame narrower than the graph`);
      check('browser_html_flame_click_zooms', zoomed.length === 0, zoomed.join('; '));
      check('browser_html_flame_search', searched.length === 0, searched.join('; '));
      if (nflame > 1)
        check('browser_html_flames_independent', independent.length === 0, independent.join('; '));
      await page.waitForTimeout(200);
      const csp = await page.evaluate(() => window.__csp);
      check('browser_html_flame_no_csp_violation', csp.length === 0 && errors.length === 0,
            `violations ${JSON.stringify(csp)} console ${errors.join(' | ')}`);
    }

    // On screen the flame graphs fit the column (the search box in view).
    if (nflame > 0) {
      const fit = await page.evaluate(() => Array.from(document.querySelectorAll('svg.flamegraph'))
        .map((s) => [s.getBoundingClientRect().right, s.closest('main').getBoundingClientRect().right]));
      check('browser_html_flame_fits_column', fit.every(([r, m]) => r <= m + 1), JSON.stringify(fit));
    }
    // Printed on Letter paper: each flame graph within the page's width, no
    // search box; tables within the width too.
    await page.setViewportSize({ width: 710, height: 900 });
    await page.emulateMedia({ media: 'print' });
    const printed = await page.evaluate(() => ({
      flames: Array.from(document.querySelectorAll('svg.flamegraph')).map((s) => s.getBoundingClientRect().right),
      search: Array.from(document.querySelectorAll('.fg-search')).map((e) => getComputedStyle(e).display),
      tables: Array.from(document.querySelectorAll('main table')).map((t) => t.getBoundingClientRect().right),
      width: document.documentElement.clientWidth,
    }));
    check('browser_html_print_fits_page',
          printed.flames.every((r) => r <= printed.width + 1) && printed.tables.every((r) => r <= printed.width + 1) &&
          printed.search.every((d) => d === 'none'),
          JSON.stringify(printed).slice(0, 300));
    await page.emulateMedia({ media: 'screen', colorScheme: 'dark' });
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const rgb = (dark.match(/[0-9]+/g) || []).map(Number);
    check('browser_html_dark_palette', rgb.length >= 3 && rgb[0] + rgb[1] + rgb[2] < 120, dark);
    await page.emulateMedia({ media: 'screen', colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => window.scrollTo(0, 0));

    await page.screenshot({ path: path.join(shotDir, 'index-first-screen.png') });
    await page.screenshot({ path: path.join(shotDir, 'index-full.png'), fullPage: true });

    // Narrow screen: wide tables scroll inside their wrapper, the page does not.
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    check('browser_html_no_horizontal_overflow_mobile', overflow <= 0, `page is ${overflow}px wider than the viewport`);
    await page.screenshot({ path: path.join(shotDir, 'index-mobile.png') });
    await page.setViewportSize({ width: 1280, height: 800 });

    // The CSP is in force: an external image added now must be refused.
    const before = responses.length;
    const violated = await page.evaluate(() => new Promise((resolve) => {
      document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective));
      const i = document.createElement('img');
      i.src = 'https://example.invalid/probe.png';
      document.body.appendChild(i);
      setTimeout(() => resolve(null), 2000);
    }));
    await page.waitForTimeout(200);
    // A refused load still shows up as a request event; it must get no response.
    const leaked = responses.slice(before).filter((u) => u.startsWith('http'));
    check('browser_html_csp_blocks_external', violated === 'img-src' && leaked.length === 0,
          `violation=${violated} requests=${leaked.join(' ')}`);
    const shot = path.join(shotDir, 'index-full.png');
    const size = fs.existsSync(shot) ? fs.statSync(shot).size : 0;
    check('browser_html_screenshot', size > 10000, `${shot} is ${size} bytes`);
    console.error(`screenshots in ${shotDir}`);
  } catch (e) {
    notOk('browser_html_run', e.message);
  } finally {
    await ctx.close();
  }
  process.exit(failed ? 1 : 0);
})();
