/*
 * notify.h - tell a person away from the terminal: CONFIG/notify.json
 * names a command and/or an http:// webhook that sbxd calls on a new
 * request, a denial, a rate-limit hit and a request about to expire
 * unanswered.
 *
 * MUST never block sbxd's loop: each delivery runs in a child process
 * (double fork) bounded by timeout_seconds, holding none of sbxd's
 * descriptors. MUST redact secrets and escape agent text in what leaves
 * the machine.
 */
#ifndef SBX_NOTIFY_H
#define SBX_NOTIFY_H

#include <sqlite3.h>

#include "common/base/util.h"

/* Reads CONFIG/notify.json (strict). 0 when absent or valid, -1 with a
 * message when invalid. */
int notify_load(const char *config_dir, struct sbx_err *err);

/* Whether anything is configured (for sbxd's start-up line). */
int notify_enabled(void);

/*
 * Delivers one event ("request", "denied", "rate_limited", "expiring")
 * if it is configured; returns at once. Strings may be NULL.
 */
void notify_event(const char *event, const char *folder, const char *id, const char *tool,
    const char *command, const char *detail);

/* Announces pending requests of the folder that will expire within
 * expire_warn_seconds (and have used half their time), each once: those
 * whose moment came after since and by now (seconds). sbxd calls it at
 * the moment notify_expiring_next() named, with since the previous now. */
void notify_expiring(sqlite3 *db, const char *folder, int64_t since, int64_t now);
/* The next such moment after now (seconds), 0 when none is due. */
int64_t notify_expiring_next(sqlite3 *db, int64_t now);

#endif
