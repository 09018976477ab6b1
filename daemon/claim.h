/*
 * claim.h - claiming a request: queue/new/ID.json -> pending/ID.json by
 * rename without replace, then reading it back (read_untrusted) and
 * checking it against its name and this folder. What comes out is a
 * validated request; everything else is refused with a reason.
 *
 * Rules:
 * - MUST claim by rename without replace before reading, and read only
 *   the claimed file, only through read_untrusted().
 * - MUST recompute the request hash from its content: the agent side is
 *   not trusted, and the id's first 8 hex digits must be that hash's.
 */
#ifndef SBX_CLAIM_H
#define SBX_CLAIM_H

#include <cjson/cJSON.h>

#include "common/base/util.h"
#include "common/protocol/queue.h"

/* A validated request; strings borrowed from doc (claim_free). */
struct claimed {
	char id[SBX_ID_LEN + 1];
	cJSON *doc;
	const char *hash, *tool, *cwd, *session, *agent, *trigger, *rule, *reason;
	const char *tool_use_id;
	const cJSON *input;
};

/*
 * Claims queue/new/NAME. 1 claimed (id set), 0 nothing to do (a hidden
 * name, or gone: another pass claimed it), -1 refused (err: move the
 * file aside), -2 cannot claim now (err: log it, leave the file).
 */
int claim_take(int sbfd, const char *name, char id[SBX_ID_LEN + 1], struct sbx_err *err);

/*
 * Reads and checks pending/ID.json of the folder FOLDER (resolved). 0
 * and *c; -1 refused (err); -2 refused and the agent is told (its name
 * was valid; *hash is the hash it gave, or "": see claim_free).
 */
int claim_read(int sbfd, const char *folder, const char *id, struct claimed *c,
    struct sbx_err *err);
void claim_free(struct claimed *c);

/* The check alone: doc is the request file for id, in FOLDER. 0 or -1
 * with err. (sbxd's request check; tests/fuzz/fuzz_claim.c calls it.) */
int claim_check(const char *folder, const cJSON *doc, const char *id, struct sbx_err *err);

#endif
