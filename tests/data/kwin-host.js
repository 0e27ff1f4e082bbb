// SPDX-License-Identifier: LGPL-2.1-or-later
// Runs the KWin script (argv[2]) under node with what KWin gives a script:
// `workspace` with the activation signal and `callDBus`, here made with
// dbus-send on the session bus (a JavaScript integer goes as int32, as
// KWin's QJSEngine converts it). Then activates the windows whose PIDs
// follow, one per line on stdin, and exits at end of input.
'use strict';
const fs = require('fs');
const vm = require('vm');
const { execFileSync } = require('child_process');
const readline = require('readline');

const handlers = [];
const workspace = {
    activeWindow: null,
    windowActivated: { connect: (f) => handlers.push(f) },
};
function callDBus(service, path, iface, method, ...args) {
    const typed = args.map((a) => typeof a === 'string' ? `string:${a}`
        : Number.isInteger(a) ? `int32:${a}` : `double:${a}`);
    try {
        execFileSync('dbus-send', ['--session', '--print-reply', `--dest=${service}`, path,
            `${iface}.${method}`, ...typed], { stdio: ['ignore', 'ignore', 'inherit'] });
        console.log(`called ${method} ${args.join(' ')}`);
    } catch (e) {
        console.log(`failed ${method} ${args.join(' ')}`);
    }
}
vm.runInNewContext(fs.readFileSync(process.argv[2], 'utf8'), { workspace, callDBus }, { filename: process.argv[2] });
readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const pid = parseInt(line, 10);
    const window = pid > 0 ? { pid, caption: `window of ${pid}` } : null;
    workspace.activeWindow = window;
    handlers.forEach((f) => f(window));
});
