// SPDX-License-Identifier: LGPL-2.1-or-later
// Loads the GNOME Shell extension in gjs (the shell's own engine) and sends
// its SetFocus for the PID in ARGV[1] on the system bus, as the shell does
// on a focus change; prints "ok" or the error, then keeps the connection
// (the claim lives as long as it does) for ARGV[2] seconds.
const { Gio, GLib } = imports.gi;
imports.searchPath.unshift(ARGV[0]);
const Extension = imports.extension;

const loop = new GLib.MainLoop(null, false);
const reporter = new Extension.FocusReporter(Gio.DBus.system);
reporter.report(parseInt(ARGV[1], 10), (error) => {
    print(error ? `error ${error.message}` : 'ok');
    GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, parseInt(ARGV[2], 10), () => {
        loop.quit();
        return GLib.SOURCE_REMOVE;
    });
});
loop.run();
