// SPDX-License-Identifier: LGPL-2.1-or-later
// qosd's foreground from GNOME Shell: on every focus change, SetFocus on the
// system bus with the focused window's process. qosd accepts it from the
// user at the seat, for that user's processes; the claim lasts while
// gnome-shell's bus connection does.
'use strict';

const { Gio, GLib } = imports.gi;

var FocusReporter = class FocusReporter {
    constructor(bus) {
        this._bus = bus;
        this._last = -1;
    }

    // done(error or null) is for the tests; the shell passes nothing.
    report(pid, done) {
        pid = pid > 0 ? pid : 0;
        if (pid === this._last) {
            if (done)
                done(null);
            return;
        }
        this._last = pid;
        this._bus.call('org.qosd.QoS1', '/org/qosd/QoS1', 'org.qosd.QoS1.Manager', 'SetFocus',
            new GLib.Variant('(si)', ['gnome-shell', pid]), null, Gio.DBusCallFlags.NO_AUTO_START, 1000, null,
            (bus, result) => {
                let error = null;
                try {
                    bus.call_finish(result);
                } catch (e) {
                    error = e;
                    this._last = -1; // say it again next time
                    log(`qos-focus: qosd did not take the focus: ${e.message}`);
                }
                if (done)
                    done(error);
            });
    }
};

let reporter = null;
let handler = 0;

function onFocusChanged() {
    const window = global.display.focus_window;
    reporter.report(window ? window.get_pid() : 0);
}

function init() {
}

function enable() {
    reporter = new FocusReporter(Gio.DBus.system);
    handler = global.display.connect('notify::focus-window', onFocusChanged);
    onFocusChanged();
}

function disable() {
    if (handler)
        global.display.disconnect(handler);
    handler = 0;
    reporter = null;
}
