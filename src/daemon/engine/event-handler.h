/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What each proc connector event means for qosd. */
#pragma once

#include "engine/event-source.h"

void manager_on_proc_event(const ProcEvent *ev, void *userdata);
void manager_on_events_lost(const char *why, void *userdata);
