// SPDX-License-Identifier: LGPL-2.1-or-later
// qosd's foreground from KWin: on every activation, the window's process
// goes to qos-focus on the session bus (KWin scripts reach only that bus),
// which passes it on to qosd. KWin 6 names the signal windowActivated,
// KWin 5 clientActivated. A window without a process (or none active)
// reports 0: nothing of the user's is in front.

function qosReport(window) {
    var pid = window && window.pid > 0 ? window.pid : 0;
    callDBus("org.qosd.Focus1", "/org/qosd/Focus1", "org.qosd.Focus1", "SetFocus", "kwin", pid);
}

if (workspace.windowActivated) {
    workspace.windowActivated.connect(qosReport);
    qosReport(workspace.activeWindow);
} else {
    workspace.clientActivated.connect(qosReport);
    qosReport(workspace.activeClient);
}
