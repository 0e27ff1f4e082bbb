/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The apps playing audio, from the user's PipeWire to qosd (SetAudio), as
 * uresourced reads them: an app plays while one of its output streams
 * (media.class Stream/Output/Audio) is in the running state; a paused or
 * unlinked stream is idle. The app is the node's application.process.id
 * (PulseAudio clients through pipewire-pulse), else the PID the kernel gave
 * PipeWire for the stream's connection (pipewire.sec.pid). Either is only a
 * claim: qosd takes no PID that is not the user's own.
 *
 * PipeWire's own loop runs inside the session helper's: its epoll fd is
 * one more source. When PipeWire is not running, or goes, the list is
 * empty and the relay tries again every few seconds. */
#pragma once

#include <systemd/sd-event.h>

#include "qos-focus/focus-report.h"

typedef struct AudioRelay AudioRelay;

int audio_relay_start(sd_event *event, FocusReport *report, AudioRelay **ret);
void audio_relay_free(AudioRelay *a);
