// The browser checks' report lines: "ok NAME" / "not ok NAME: why" (one line
// each), and the count of failures for the exit status.
'use strict';
const tap = { failed: 0 };
tap.ok = (name) => console.log('ok ' + name);
tap.notOk = (name, why) => {
    tap.failed++;
    console.log('not ok ' + name + ': ' + String(why).replace(/\n/g, ' '));
};
// Runs fn; a string it returns (or an exception) is the failure's reason.
tap.check = async (name, fn) => {
    try {
        const why = await fn();
        if (why) tap.notOk(name, why); else tap.ok(name);
    } catch (e) {
        tap.notOk(name, e.message || e);
    }
};
module.exports = tap;
