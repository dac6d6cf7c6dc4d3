/* Flamegraph interaction for every <svg class="flamegraph"> in the document:
 * hover details, click to zoom, reset, search (regex or text) with matched %.
 * Each graph is wired through its own elements only (classes, no ids), so
 * any number of graphs can share a page.  Data comes only from attributes
 * and element text; nothing here builds markup from strings. */
(function () {
    'use strict';

    function num(el, name, dflt) {
        var v = parseFloat(el.getAttribute(name));
        return isNaN(v) ? dflt : v;
    }

    function chars(s) {
        return Array.from ? Array.from(s) : s.split('');
    }

    function init(svg) {
        if (svg.getAttribute('data-fg-ready') === '1') {
            return;
        }
        svg.setAttribute('data-fg-ready', '1');
        var width = num(svg, 'width', 1200);
        var xpad = num(svg, 'data-fg-xpad', 10);
        var fontSize = num(svg, 'font-size', 12);
        var inverted = svg.getAttribute('data-fg-inverted') === '1';
        var fontWidth = num(svg, 'data-fg-fontwidth', 0.59);
        var nametype = svg.getAttribute('data-fg-nametype');
        var framesG = svg.querySelector('.fg-frames');
        var details = svg.querySelector('.fg-details');
        var reset = svg.querySelector('.fg-reset');
        var matched = svg.querySelector('.fg-matched');
        var searchBtn = svg.querySelector('.fg-search-btn');
        var input = svg.querySelector('.fg-search input');
        if (!framesG) {
            return;
        }

        var frames = [];
        var byG = new Map();
        var kids = framesG.children;
        var i;
        for (i = 0; i < kids.length; i++) {
            var g = kids[i];
            var r = g.querySelector('rect');
            var t = g.querySelector('text');
            var ti = g.querySelector('title');
            if (!r || !t || !ti) {
                continue;
            }
            var label = ti.textContent;
            var first = label.split('\n')[0];
            var cut = first.lastIndexOf(' (');
            var rest = cut >= 0 ? first.slice(cut + 2) : '';
            var f = {
                g: g, rect: r, text: t,
                name: cut >= 0 ? first.slice(0, cut) : first,
                label: first,
                count: parseInt(rest.replace(/,/g, ''), 10) || 0,
                x: num(r, 'x', 0), w: num(r, 'width', 0), y: num(r, 'y', 0),
                fill: r.getAttribute('fill')
            };
            frames.push(f);
            byG.set(g, f);
        }
        var rootCount = 0;
        for (i = 0; i < frames.length; i++) {
            if (frames[i].count > rootCount) {
                rootCount = frames[i].count;
            }
        }

        function frameOf(node) {
            while (node && node !== svg) {
                if (node.parentNode === framesG) {
                    return byG.get(node);
                }
                node = node.parentNode;
            }
            return null;
        }

        function fitText(f, x, w) {
            f.text.setAttribute('x', (x + 3).toFixed(2));
            var fit = Math.floor((w - 3) / (fontSize * fontWidth));
            var c = chars(f.name);
            if (fit < 3) {
                f.text.textContent = '';
            } else if (c.length > fit) {
                f.text.textContent = c.slice(0, fit - 2).join('') + '..';
            } else {
                f.text.textContent = f.name;
            }
        }

        function place(f, x, w, show) {
            if (!show) {
                f.g.setAttribute('display', 'none');
                return;
            }
            f.g.removeAttribute('display');
            f.rect.setAttribute('x', x.toFixed(2));
            f.rect.setAttribute('width', w.toFixed(2));
            fitText(f, x, w);
        }

        var eps = 0.011; /* positions are written with two decimals */
        function zoom(z) {
            var full = width - 2 * xpad;
            var scale = full / z.w;
            for (var k = 0; k < frames.length; k++) {
                var f = frames[k];
                var above = inverted ? f.y < z.y : f.y > z.y; /* closer to the root */
                var inside = f.x >= z.x - eps && f.x + f.w <= z.x + z.w + eps;
                var covers = f.x <= z.x + eps && f.x + f.w >= z.x + z.w - eps;
                if (above && covers) {
                    place(f, xpad, full, true);
                    f.g.setAttribute('opacity', '0.6');
                } else if (!above && inside) {
                    place(f, xpad + (f.x - z.x) * scale, f.w * scale, true);
                    f.g.removeAttribute('opacity');
                } else {
                    place(f, 0, 0, false);
                }
            }
            if (reset) {
                reset.removeAttribute('display');
            }
        }

        function unzoom() {
            for (var k = 0; k < frames.length; k++) {
                frames[k].g.removeAttribute('opacity');
                place(frames[k], frames[k].x, frames[k].w, true);
            }
            if (reset) {
                reset.setAttribute('display', 'none');
            }
        }

        function matcher(term) {
            try {
                var re = new RegExp(term);
                return function (s) { return re.test(s); };
            } catch (e) {
                return function (s) { return s.indexOf(term) >= 0; };
            }
        }

        function clearSearch() {
            for (var k = 0; k < frames.length; k++) {
                frames[k].rect.setAttribute('fill', frames[k].fill);
            }
            if (matched) {
                matched.textContent = '';
            }
        }

        function search(term) {
            clearSearch();
            if (!term) {
                return;
            }
            var test = matcher(term);
            var hits = [];
            for (var k = 0; k < frames.length; k++) {
                var f = frames[k];
                if (test(f.name)) {
                    f.rect.setAttribute('fill', 'rgb(230,0,230)');
                    hits.push(f);
                }
            }
            /* count each matched region once: skip matches inside another match */
            hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
            var sum = 0;
            var end = -Infinity;
            for (k = 0; k < hits.length; k++) {
                if (hits[k].x + eps >= end) {
                    sum += hits[k].count;
                    end = hits[k].x + hits[k].w;
                }
            }
            if (matched) {
                var pct = rootCount ? 100 * sum / rootCount : 0;
                matched.textContent = 'Matched: ' + pct.toFixed(1) + '%';
            }
        }

        svg.addEventListener('mouseover', function (e) {
            var f = frameOf(e.target);
            if (f && details) {
                details.textContent = nametype ? nametype + ' ' + f.label : f.label;
            }
        });
        svg.addEventListener('mouseout', function (e) {
            if (frameOf(e.target) && details) {
                details.textContent = ' ';
            }
        });
        svg.addEventListener('click', function (e) {
            var f = frameOf(e.target);
            /* a frame with a link (--nameattr href) follows it; Ctrl-click zooms */
            var link = f && e.target.closest ? e.target.closest('a') : null;
            if (link && f.g.contains(link)) {
                if (!e.ctrlKey && !e.metaKey) {
                    return;
                }
                e.preventDefault();
            }
            if (f) {
                zoom(f);
            } else if (reset && (e.target === reset || reset.contains(e.target))) {
                unzoom();
            } else if (searchBtn && (e.target === searchBtn || searchBtn.contains(e.target))) {
                if (input && input.value) {
                    search(input.value);
                } else if (input) {
                    input.focus();
                }
            }
        });
        /* Keyboard: the graph is one tab stop (a roving focus): arrows move
         * between frames (Left/Right along a row, Up/Down to the frame above
         * or below), Enter or Space zooms, Esc resets; Reset and Search are
         * buttons.  The frame in focus is described as on hover. */
        if (!svg.getAttribute('role')) {
            svg.setAttribute('role', 'group');
        }
        if (!svg.getAttribute('aria-label')) {
            var t0 = svg.querySelector('.fg-title');
            svg.setAttribute('aria-label', (t0 && t0.textContent) || 'Flame graph');
        }
        var order = frames.slice().sort(function (a, b) { return a.y - b.y || a.x - b.x; });
        var current = null;
        function focusFrame(f) {
            if (!f) {
                return;
            }
            if (current) {
                current.g.setAttribute('tabindex', '-1');
            }
            current = f;
            f.g.setAttribute('tabindex', '0');
            f.g.focus();
            if (details) {
                details.textContent = nametype ? nametype + ' ' + f.label : f.label;
            }
        }
        function visible(f) { return f.g.getAttribute('display') !== 'none'; }
        function shown(f) {
            return { x: parseFloat(f.rect.getAttribute('x')), w: parseFloat(f.rect.getAttribute('width')) };
        }
        function step(f, key) {
            var a = shown(f), mid = a.x + a.w / 2, best = null, bd = Infinity;
            for (var k = 0; k < order.length; k++) {
                var o = order[k];
                if (o === f || !visible(o)) {
                    continue;
                }
                var b = shown(o), d;
                if (key === 'ArrowLeft' || key === 'ArrowRight') {
                    if (o.y !== f.y || (key === 'ArrowLeft' ? b.x >= a.x : b.x <= a.x)) {
                        continue;
                    }
                    d = Math.abs(b.x - a.x);
                } else {
                    var up = key === 'ArrowUp';
                    var dy = inverted ? (up ? f.y - o.y : o.y - f.y) : (up ? f.y - o.y : o.y - f.y);
                    if (dy <= 0 || mid < b.x - eps || mid > b.x + b.w + eps) {
                        continue;
                    }
                    d = dy;
                }
                if (d < bd) {
                    bd = d;
                    best = o;
                }
            }
            return best;
        }
        for (i = 0; i < frames.length; i++) {
            frames[i].g.setAttribute('tabindex', '-1');
            frames[i].g.setAttribute('role', 'button');
            frames[i].g.setAttribute('aria-label', frames[i].label);
        }
        /* the root frame (widest, nearest the base) takes the tab stop */
        var root = null;
        for (i = 0; i < frames.length; i++) {
            if (!root || frames[i].w > root.w) {
                root = frames[i];
            }
        }
        if (root) {
            root.g.setAttribute('tabindex', '0');
            current = root;
        }
        function asButton(el, label, act) {
            if (!el) {
                return;
            }
            el.setAttribute('role', 'button');
            el.setAttribute('tabindex', '0');
            el.setAttribute('aria-label', label);
            el.addEventListener('keydown', function (e) {
                if (e.key === 'Enter' || e.key === ' ') {
                    e.preventDefault();
                    e.stopPropagation();
                    act();
                }
            });
        }
        asButton(reset, 'Reset zoom', function () {
            unzoom();
            if (current) {
                focusFrame(current);
            }
        });
        asButton(searchBtn, 'Search', function () {
            if (input && input.value) {
                search(input.value);
            } else if (input) {
                input.focus();
            }
        });
        svg.addEventListener('keydown', function (e) {
            var f = frameOf(e.target);
            if (e.key === 'Escape') {
                unzoom();
                if (input && e.target === input) {
                    return; /* the box clears itself below */
                }
                if (input && input.value) {
                    input.value = '';
                    clearSearch();
                }
                return;
            }
            if (!f) {
                return;
            }
            if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                zoom(f);
                focusFrame(f);
            } else if (e.key.indexOf('Arrow') === 0) {
                e.preventDefault();
                focusFrame(step(f, e.key));
            }
        });
        svg.addEventListener('focusin', function (e) {
            var f = frameOf(e.target);
            if (f && f !== current) {
                focusFrame(f);
            }
        });

        if (input) {
            input.addEventListener('input', function () { search(input.value); });
            input.addEventListener('keydown', function (e) {
                if (e.key === 'Escape') {
                    input.value = '';
                    clearSearch();
                }
            });
        }
        /* Standalone file: Ctrl-F goes to our search box, Esc resets the zoom. */
        if (document.documentElement === svg) {
            document.addEventListener('keydown', function (e) {
                if ((e.ctrlKey || e.metaKey) && e.key === 'f' && input) {
                    e.preventDefault();
                    input.focus();
                } else if (e.key === 'Escape') {
                    unzoom();
                }
            });
        }
    }

    function initAll() {
        var list = document.querySelectorAll('svg.flamegraph');
        for (var k = 0; k < list.length; k++) {
            init(list[k]);
        }
    }

    /* a graph redrawn in the page (heatmap.js: a range of seconds) */
    document.addEventListener('fg-init', function (e) {
        if (e.target && e.target.matches && e.target.matches('svg.flamegraph')) {
            init(e.target);
        }
    });
    if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', initAll);
    } else {
        initAll();
    }
}());
