/* Heat maps under the flame graphs: one cell per second of the window, its
 * colour the profile's value in that second (from the JSON data block the
 * page carries, never from markup).  Selecting seconds (drag, or
 * Shift+Arrow keys on the focused strip) redraws the flame graph above for
 * them alone, in the page; the selection goes into the URL fragment
 * ("#fg0-=2-3", seconds inclusive) so a link reproduces the view, and the
 * charts above shade the same seconds.  Esc or a click on one cell's empty
 * selection shows the whole window again.  Frame names reach the page only
 * through textContent. */
(function () {
    'use strict';
    /* the SVG namespace, read from the page's own graphs: the page names no
     * address, not even a namespace's (the tests hold it to that) */
    var svgNS = null;
    var MAX_FRAMES = 1000; /* frames a redrawn graph draws at most */

    function el(name, attrs, parent) {
        if (!svgNS) {
            svgNS = document.querySelector('svg').namespaceURI;
        }
        var e = document.createElementNS(svgNS, name);
        for (var k in attrs) {
            if (Object.prototype.hasOwnProperty.call(attrs, k)) {
                e.setAttribute(k, attrs[k]);
            }
        }
        if (parent) {
            parent.appendChild(e);
        }
        return e;
    }

    function num(e, name, dflt) {
        var v = parseFloat(e.getAttribute(name));
        return isNaN(v) ? dflt : v;
    }

    function grouped(n) {
        return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    }

    /* A count as the static graph shows it (render/svg_flame.c's
     * add_quantity, util/fmtnum.c's rules): a time or a size scaled, three
     * significant digits ("523 s"); any other count in full, its noun in the
     * singular for one ("1 sample"). */
    var LADDERS = [[['ns', 'us', 'ms', 's'], 1000], [['us', 'ms', 's'], 1000], [['ms', 's'], 1000],
        [['B', 'KiB', 'MiB', 'GiB', 'TiB'], 1024], [['KiB', 'MiB', 'GiB', 'TiB'], 1024]];
    var SCALED = ['ns', 'us', 'ms', 's', 'B', 'KiB', 'MiB', 'GiB', 'TiB'];

    function sig3(v) {
        var a = Math.abs(v);
        var dec = a === 0 || a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : a >= 0.01 ? 4 : 5;
        var s = v.toFixed(dec);
        if (s.indexOf('.') >= 0) {
            s = s.replace(/0+$/, '').replace(/\.$/, '');
        }
        return s === '-0' ? '0' : s;
    }

    function quantity(v, unit) {
        unit = unit || '';
        if (SCALED.indexOf(unit) >= 0) {
            var d = 1, shown = unit;
            for (var l = 0; l < LADDERS.length; l++) {
                var steps = LADDERS[l][0], div = LADDERS[l][1];
                if (steps[0] !== unit) {
                    continue;
                }
                for (var k = 1; k < steps.length && Math.abs(v) / d >= div; k++) {
                    d *= div;
                    shown = steps[k];
                }
            }
            return sig3(v / d) + ' ' + (shown === 'us' ? '\u00b5s' : shown);
        }
        var n = v > 0 && v < 1.8e19 ? Math.round(v) : 0;
        var one = n === 1 && unit.length > 1 && unit.charAt(unit.length - 1) === 's';
        return grouped(n) + ' ' + (one ? unit.slice(0, -1) : unit);
    }

    /* The fragment's selections: {"fg0-": [2, 3]} */
    function readHash() {
        var out = {};
        var h = location.hash.replace(/^#/, '');
        h.split('&').forEach(function (part) {
            var m = /^(fg\d+-)=(\d+)-(\d+)$/.exec(part);
            if (m) {
                out[m[1]] = [parseInt(m[2], 10), parseInt(m[3], 10)];
            }
        });
        return out;
    }

    function writeHash(key, range) {
        var sel = readHash();
        if (range) {
            sel[key] = range;
        } else {
            delete sel[key];
        }
        var parts = Object.keys(sel).sort().map(function (k) {
            return k + '=' + sel[k][0] + '-' + sel[k][1];
        });
        var h = parts.length ? '#' + parts.join('&') : '';
        if (h !== location.hash && (h || location.hash)) {
            history.replaceState(null, '', h || location.pathname + location.search);
        }
    }

    /* Rebuilds the frames of `svg` for counts per page node; returns the new
     * svg (a fresh clone, so flamegraph.js wires it again from scratch).
     * The page nodes are the static graph's frames (runs folded as it folds
     * them), and the height follows the static graph's rule: levels below
     * the deepest one still holding 0.5 % of the width are not drawn (the
     * root's tooltip and the status line say how much reaches deeper), and
     * the image is as tall as the levels drawn. */
    function drawFlame(orig, data, counts, fills, label) {
        var svg = orig.cloneNode(true);
        svg.removeAttribute('data-fg-ready');
        var framesG = svg.querySelector('.fg-frames');
        var old = framesG.querySelectorAll('g');
        var rootRect = null, top = Infinity, bottom = -Infinity;
        for (var i = 0; i < old.length; i++) {
            var t = old[i].querySelector('title'), rr = old[i].querySelector('rect');
            if (t && /^all \(/.test(t.textContent)) {
                rootRect = rr;
            }
            if (rr) {
                top = Math.min(top, num(rr, 'y', 0));
                bottom = Math.max(bottom, num(rr, 'y', 0));
            }
        }
        if (!rootRect) {
            return null;
        }
        var width = num(svg, 'width', 1200);
        var height = num(svg, 'height', 0);
        var xpad = num(svg, 'data-fg-xpad', 10);
        var fs = num(svg, 'font-size', 12);
        var fw = num(svg, 'data-fg-fontwidth', 0.59);
        var inverted = svg.getAttribute('data-fg-inverted') === '1';
        var fh = num(rootRect, 'height', 15) + 1;
        var y0 = num(rootRect, 'y', 0);
        /* the static graph's margins above and below its frames */
        var ypad1 = top, ypad2 = height - bottom - fh;
        while (framesG.firstChild) {
            framesG.removeChild(framesG.firstChild);
        }
        var nodes = data.nodes;
        var n = nodes.length / 3;
        var total = counts[0];
        var full = width - 2 * xpad;
        var per = total > 0 ? full / total : 0;
        var x = new Float64Array(n);
        var cursor = new Float64Array(n);
        var depth = new Int32Array(n);
        var below = new Float64Array(n);
        var atDepth = [0];
        /* as svg_flame.c lays out: a frame's own time first, then its
         * callees wide enough to draw (a narrower one's count joins the own
         * time); children come after their parent in nodes */
        for (i = n - 1; i > 0; i--) {
            if (counts[i] > 0 && counts[i] * per >= 0.1) {
                below[nodes[3 * i]] += counts[i];
            }
        }
        x[0] = 0;
        cursor[0] = counts[0] - below[0];
        var unit = data.unit;
        for (i = 1; i < n; i++) {
            var parent = nodes[3 * i];
            x[i] = cursor[parent];
            if (counts[i] > 0 && counts[i] * per >= 0.1) {
                cursor[parent] += counts[i];
            }
            cursor[i] = x[i] + counts[i] - below[i];
            depth[i] = depth[parent] + 1;
            if (counts[i] > 0 && counts[i] * per >= 0.1) {
                atDepth[depth[i]] = (atDepth[depth[i]] || 0) + counts[i];
            }
        }
        /* svg_flame.c's cut_depth: the deepest level holding 0.5 % */
        var keep = 0;
        for (var dd = 1; dd < atDepth.length; dd++) {
            if ((atDepth[dd] || 0) >= 0.005 * total) {
                keep = dd;
            }
        }
        var hidden = atDepth[keep + 1] || 0;
        var wide = [];
        for (i = 0; i < n; i++) {
            if (counts[i] > 0 && counts[i] * per >= 0.1 && depth[i] <= keep) {
                wide.push(counts[i]);
            }
        }
        /* At most MAX_FRAMES frames, the widest: the DOM, not the sums, is
         * what a redraw costs (a child is never wider than its parent, so no
         * frame is drawn without its caller). */
        var minCount = 0;
        if (wide.length > MAX_FRAMES) {
            var ws = Float64Array.from(wide).sort();
            minCount = ws[ws.length - MAX_FRAMES];
        }
        var show = [], maxDepth = 0;
        for (i = 0; i < n; i++) {
            if (counts[i] <= 0 || counts[i] * per < 0.1 || depth[i] > keep || counts[i] < minCount ||
                show.length >= MAX_FRAMES) {
                continue;
            }
            show.push(i);
            maxDepth = Math.max(maxDepth, depth[i]);
        }
        /* as tall as the levels drawn: the frames, the margins, the details line */
        var newHeight = Math.round(ypad1 + (maxDepth + 1) * fh + ypad2);
        if (height > 0 && newHeight !== height) {
            var shift = newHeight - height;
            svg.setAttribute('height', newHeight.toFixed(0));
            svg.setAttribute('viewBox', '0 0 ' + width.toFixed(0) + ' ' + newHeight.toFixed(0));
            for (var c = svg.firstElementChild; c; c = c.nextElementSibling) {
                if (c.localName === 'rect' && num(c, 'height', 0) === height) {
                    c.setAttribute('height', newHeight.toFixed(0));
                }
            }
            ['.fg-details', '.fg-matched'].forEach(function (sel) {
                var e = svg.querySelector(sel);
                if (e) {
                    e.setAttribute('y', (num(e, 'y', 0) + shift).toFixed(1));
                }
            });
            if (!inverted) {
                y0 += shift;
            }
        }
        for (var s = 0; s < show.length; s++) {
            i = show[s];
            var w = counts[i] * per;
            var name = data.names[nodes[3 * i + 1]];
            var y = inverted ? y0 + depth[i] * fh : y0 - depth[i] * fh;
            var g = el('g', {}, framesG);
            var title = el('title', {}, g);
            title.textContent = name + ' (' + quantity(counts[i], unit) + ', ' +
                (100 * counts[i] / total).toFixed(2) + '%)' +
                (i === 0 && hidden ? '\nNot drawn: frames below level ' + keep + ', where ' +
                    (100 * hidden / total).toFixed(2) + '% of these seconds reaches deeper' : '');
            el('rect', {
                x: (xpad + x[i] * per).toFixed(2), y: y.toFixed(1), width: w.toFixed(2),
                height: (fh - 1).toFixed(1), fill: fills[name] || 'rgb(225,140,60)', rx: 2, ry: 2
            }, g);
            var text = el('text', { x: (xpad + x[i] * per + 3).toFixed(2),
                y: (y + fh / 2 + fs / 3 + 0.5).toFixed(1) }, g);
            var fit = Math.floor((w - 3) / (fs * fw));
            var chars = Array.from(name);
            text.textContent = fit < 3 ? '' : chars.length > fit ? chars.slice(0, fit - 2).join('') + '..' : name;
        }
        svg.setAttribute('data-heat-left-out', String(wide.length - show.length));
        svg.setAttribute('data-heat-below', hidden ? String(keep) : '');
        svg.setAttribute('data-heat-below-pct', hidden ? (100 * hidden / total).toFixed(2) : '');
        var sub = svg.querySelector('.fg-subtitle');
        var titleEl = svg.querySelector('.fg-title');
        if (titleEl) {
            var base = titleEl.getAttribute('data-heat-title') || titleEl.textContent;
            titleEl.setAttribute('data-heat-title', base);
            titleEl.textContent = label ? base + ' \u2014 ' + label : base;
        }
        if (sub && !label) {
            sub.removeAttribute('display');
        }
        return svg;
    }

    function chartsMark(range, bucketS) {
        /* The charts' plot maps seconds to x: data-t0/data-t1 and the plot's
         * x0/x1 (svg_series.c).  A chart without them is left alone. */
        var charts = document.querySelectorAll('svg[data-t1]');
        for (var i = 0; i < charts.length; i++) {
            var ch = charts[i];
            var mark = ch.querySelector('.heat-mark');
            if (mark) {
                mark.parentNode.removeChild(mark);
            }
            if (!range) {
                continue;
            }
            var t0 = num(ch, 'data-t0', 0), t1 = num(ch, 'data-t1', 0);
            var px0 = num(ch, 'data-x0', 0), px1 = num(ch, 'data-x1', 0);
            var py0 = num(ch, 'data-y0', 0), py1 = num(ch, 'data-y1', 0);
            if (!(t1 > t0) || !(px1 > px0)) {
                continue;
            }
            var a = Math.max(t0, range[0] * bucketS), b = Math.min(t1, (range[1] + 1) * bucketS);
            if (!(b > a)) {
                continue;
            }
            var xa = px0 + (a - t0) / (t1 - t0) * (px1 - px0);
            var xb = px0 + (b - t0) / (t1 - t0) * (px1 - px0);
            el('rect', { 'class': 'heat-mark', x: xa.toFixed(1), y: Math.min(py0, py1).toFixed(1),
                width: (xb - xa).toFixed(1), height: Math.abs(py1 - py0).toFixed(1) }, ch);
        }
    }

    function init(fig) {
        var dataEl = fig.querySelector('script.heat-data');
        var flameFig = fig.previousElementSibling;
        var orig = flameFig ? flameFig.querySelector('svg.flamegraph') : null;
        if (!dataEl || !orig) {
            return;
        }
        var data;
        try {
            data = JSON.parse(dataEl.textContent);
        } catch (e) {
            return;
        }
        if (!data || !Array.isArray(data.total) || !Array.isArray(data.nodes) ||
            !Array.isArray(data.cells) || !Array.isArray(data.names) || data.nodes.length % 3 ||
            data.cells.length % 3) {
            return;
        }
        var key = fig.getAttribute('data-heat-for') || '';
        var n = data.total.length;
        var nnodes = data.nodes.length / 3;
        var bucketS = data.bucket_s > 0 ? data.bucket_s : 1;
        /* buckets a..b in words: a cell is bucketS seconds (-i over 1 s) */
        function span(a, b) {
            if (bucketS === 1) {
                return a === b ? 'second ' + a : 'seconds ' + a + '\u2013' + b;
            }
            return 'seconds ' + a * bucketS + '\u2013' + ((b + 1) * bucketS - 1);
        }
        /* the colours of the full graph's frames, by name */
        var fills = {};
        orig.querySelectorAll('.fg-frames > g').forEach(function (g) {
            var t = g.querySelector('title'), r = g.querySelector('rect');
            if (t && r) {
                var first = t.textContent.split('\n')[0];
                var cut = first.lastIndexOf(' (');
                fills[cut >= 0 ? first.slice(0, cut) : first] = r.getAttribute('fill');
            }
        });
        var current = orig; /* the graph now shown */

        var max = 0;
        for (var i = 0; i < n; i++) {
            max = Math.max(max, data.total[i]);
        }
        /* about 600 units across, whatever the window's length */
        var cw = Math.max(4, Math.min(40, Math.floor(600 / Math.max(n, 1)))), ch = 28, pad = 4;
        var W = n * cw;
        var strip = el('svg', {
            'class': 'heat-strip', viewBox: '0 0 ' + (W + 2 * pad) + ' ' + (ch + 18 + pad),
            width: W + 2 * pad, tabindex: '0', role: 'group', preserveAspectRatio: 'xMinYMin meet',
            height: ch + 18 + pad,
            'aria-label': 'Seconds of the window: Left and Right move, Shift+Left and ' +
                'Shift+Right select, Esc shows the whole window'
        });
        var cells = [];
        for (i = 0; i < n; i++) {
            var v = data.total[i];
            var r = el('rect', {
                'class': v ? 'heat-cell' : 'heat-cell heat-empty', x: pad + i * cw, y: pad,
                width: cw - 1, height: ch,
                'fill-opacity': max ? (0.08 + 0.92 * v / max).toFixed(3) : '0'
            }, strip);
            el('title', {}, r).textContent = span(i, i) + ': ' + quantity(v, data.unit);
            cells.push(r);
        }
        var step = Math.max(1, Math.ceil(32 / cw)); /* labels 32 units apart at least */
        for (i = 0; i < n; i += step) {
            el('text', { 'class': 'heat-axis', x: pad + i * cw + 1, y: pad + ch + 13 },
                strip).textContent = i * bucketS + ' s';
        }
        var selRect = el('rect', { 'class': 'heat-sel', x: 0, y: pad - 2, width: 0,
            height: ch + 4, display: 'none' }, strip);
        var cur = el('rect', { 'class': 'heat-cursor', x: pad, y: pad - 2, width: cw - 1,
            height: ch + 4, display: 'none' }, strip);
        var status = document.createElement('p');
        status.className = 'heat-status';
        status.setAttribute('aria-live', 'polite');
        fig.insertBefore(strip, dataEl);
        fig.insertBefore(status, dataEl);

        var range = null, cursorAt = 0, anchor = null;

        function sums(a, b) {
            var counts = new Float64Array(nnodes);
            var c = data.cells;
            for (var k = 0; k < c.length; k += 3) {
                if (c[k + 1] >= a && c[k + 1] <= b && c[k] < nnodes) {
                    counts[c[k]] += c[k + 2];
                }
            }
            /* parents come first: children add up into them from the end */
            for (k = nnodes - 1; k > 0; k--) {
                var p = data.nodes[3 * k];
                if (p >= 0 && p < k) {
                    counts[p] += counts[k];
                }
            }
            return counts;
        }

        function show(r, fromHash) {
            if (r) {
                r = [Math.max(0, Math.min(r[0], r[1])), Math.min(n - 1, Math.max(r[0], r[1]))];
                if (r[0] > r[1]) {
                    r = null;
                }
            }
            range = r;
            var svg;
            if (r) {
                var label = span(r[0], r[1]);
                svg = drawFlame(orig, data, sums(r[0], r[1]), fills, label);
                selRect.setAttribute('x', pad + r[0] * cw - 1);
                selRect.setAttribute('width', (r[1] - r[0] + 1) * cw + 1);
                selRect.removeAttribute('display');
                var uns = 0, tot = 0;
                for (var k = r[0]; k <= r[1]; k++) {
                    uns += data.unstacked[k] || 0;
                    tot += data.total[k];
                }
                status.textContent = 'Flame graph above: ' + label + ' (' + quantity(tot, data.unit) +
                    (uns ? ', of which ' + quantity(uns, data.unit) + ' without a stack' : '') +
                    ')' + (svg && svg.getAttribute('data-heat-left-out') > 0
                        ? '; ' + grouped(svg.getAttribute('data-heat-left-out')) +
                          ' narrower frames not drawn' : '') +
                    (svg && svg.getAttribute('data-heat-below')
                        ? '; levels below ' + svg.getAttribute('data-heat-below') + ' not drawn (' +
                          svg.getAttribute('data-heat-below-pct') + '% reaches deeper)' : '') +
                    '. Esc: the whole window.';
            } else {
                svg = orig;
                selRect.setAttribute('display', 'none');
                status.textContent = '';
            }
            if (svg && svg !== current) {
                current.parentNode.replaceChild(svg, current);
                current = svg;
                if (svg !== orig) {
                    svg.dispatchEvent(new CustomEvent('fg-init', { bubbles: true }));
                }
            }
            chartsMark(r, bucketS);
            if (!fromHash) {
                writeHash(key, r);
            }
        }

        function cellAt(evt) {
            var pt = strip.createSVGPoint();
            pt.x = evt.clientX;
            pt.y = evt.clientY;
            var m = strip.getScreenCTM();
            if (!m) {
                return 0;
            }
            var p = pt.matrixTransform(m.inverse());
            return Math.max(0, Math.min(n - 1, Math.floor((p.x - pad) / cw)));
        }
        var dragFrom = null;
        strip.addEventListener('pointerdown', function (e) {
            dragFrom = cellAt(e);
            anchor = dragFrom;
            cursorAt = dragFrom;
            if (strip.setPointerCapture) {
                strip.setPointerCapture(e.pointerId);
            }
            selRect.setAttribute('x', pad + dragFrom * cw - 1);
            selRect.setAttribute('width', cw + 1);
            selRect.removeAttribute('display');
            e.preventDefault();
        });
        strip.addEventListener('pointermove', function (e) {
            if (dragFrom === null) {
                return;
            }
            var c = cellAt(e);
            var a = Math.min(c, dragFrom), b = Math.max(c, dragFrom);
            selRect.setAttribute('x', pad + a * cw - 1);
            selRect.setAttribute('width', (b - a + 1) * cw + 1);
        });
        strip.addEventListener('pointerup', function (e) {
            if (dragFrom === null) {
                return;
            }
            var c = cellAt(e);
            var from = dragFrom;
            dragFrom = null;
            cursorAt = c;
            show([from, c]);
        });
        strip.addEventListener('keydown', function (e) {
            if (e.key === 'Escape') {
                anchor = null;
                show(null);
                e.preventDefault();
                return;
            }
            if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight' && e.key !== 'Enter' &&
                e.key !== ' ' && e.key !== 'Home' && e.key !== 'End') {
                return;
            }
            e.preventDefault();
            var was = cursorAt;
            if (e.key === 'ArrowLeft') {
                cursorAt = Math.max(0, cursorAt - 1);
            } else if (e.key === 'ArrowRight') {
                cursorAt = Math.min(n - 1, cursorAt + 1);
            } else if (e.key === 'Home') {
                cursorAt = 0;
            } else if (e.key === 'End') {
                cursorAt = n - 1;
            }
            cur.setAttribute('x', pad + cursorAt * cw);
            cur.removeAttribute('display');
            if (e.key === 'Enter' || e.key === ' ') {
                anchor = cursorAt;
                show([cursorAt, cursorAt]);
            } else if (e.shiftKey) {
                if (anchor === null) {
                    anchor = was;
                }
                show([anchor, cursorAt]);
            } else {
                anchor = null;
            }
            status.textContent = (range ? status.textContent.replace(/ Cursor: .*$/, '') : '') +
                ' Cursor: ' + span(cursorAt, cursorAt) + ', ' + quantity(data.total[cursorAt], data.unit) + '.';
        });
        strip.addEventListener('focus', function () {
            cur.setAttribute('x', pad + cursorAt * cw);
            cur.removeAttribute('display');
        });
        strip.addEventListener('blur', function () {
            cur.setAttribute('display', 'none');
        });

        function fromHash() {
            var r = readHash()[key];
            if (r && r[0] < n) {
                /* a link to a range opens the folded section that holds it */
                for (var d = fig.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) {
                    d.open = true;
                }
                cursorAt = Math.min(r[1], n - 1);
                show(r, true);
            } else if (range) {
                show(null, true);
            }
        }
        window.addEventListener('hashchange', fromHash);
        fromHash();
    }

    function initAll() {
        var list = document.querySelectorAll('figure.heat');
        for (var k = 0; k < list.length; k++) {
            init(list[k]);
        }
    }

    if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', initAll);
    } else {
        initAll();
    }
}());
