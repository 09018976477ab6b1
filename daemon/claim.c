/*
 * claim.c - claim a request and check it (claim.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/json.h"
#include "common/protocol/users.h"
#include "daemon/claim.h"

int
claim_take(int sbfd, const char *name, char id[SBX_ID_LEN + 1], struct sbx_err *err)
{
	char from[512], to[512];

	if (name[0] == '.')
		return 0;
	if (!valid_request_name(name, id)) {
		err_set(err, "not a request file name (want 16 hex digits + .json)");
		return -1;
	}
	snprintf(from, sizeof(from), "%s", queue_path(QP_NEW, id).s);
	snprintf(to, sizeof(to), "%s", queue_path(QP_PENDING, id).s);
	/* The claim: atomic, and never over an existing request. */
	if (renameat_nf(sbfd, from, to, RENAME_NOREPLACE) == 0)
		return 1;
	if (errno == EEXIST) {
		err_set(err, "a request with this id exists already");
		return -1;
	}
	if (errno == ENOENT)
		return 0;
	err_set(err, "cannot claim %s: %s", from, strerror(errno));
	return -2;
}

int
claim_check(const char *folder, const cJSON *doc, const char *id, struct sbx_err *err)
{
	unsigned char hash[SBX_HASH_LEN];
	char hex[2 * SBX_HASH_LEN + 1], real[PATH_MAX];
	const char *v_id = json_str(doc, "id"), *v_hash = json_str(doc, "hash");
	const char *tool = json_str(doc, "tool"), *dir = json_str(doc, "folder");
	const char *cwd = json_str(doc, "cwd");
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(doc, "input");
	int64_t v, created;
	size_t n;

	if (json_int(doc, "v", &v) < 0 || v != 1 || json_int(doc, "created", &created) < 0) {
		err_set(err, "missing or unsupported version/created");
		return -1;
	}
	if (!v_id || strcmp(v_id, id) != 0 || !v_hash || !tool || !*tool ||
	    !cJSON_IsObject(input) || !dir || !cwd) {
		err_set(err, "missing or malformed id, hash, tool, input, folder or cwd");
		return -1;
	}
	if (strcmp(dir, folder) != 0) {
		err_set(err, "request is for folder %s, not %s", dir, folder);
		return -1;
	}
	n = strlen(folder);
	if (!realpath(cwd, real) || strcmp(real, cwd) != 0 ||
	    (strcmp(cwd, folder) != 0 && (strncmp(cwd, folder, n) != 0 || cwd[n] != '/'))) {
		err_set(err, "cwd %s is not a resolved directory inside the folder", cwd);
		return -1;
	}
	if (request_hash(tool, input, dir, cwd, hash) < 0) {
		err_set(err, "cannot hash the request");
		return -1;
	}
	hex_encode(hex, hash, sizeof(hash));
	if (strcmp(hex, v_hash) != 0 || strncmp(id, hex, 8) != 0) {
		err_set(err, "request hash does not match its content");
		return -1;
	}
	if (!request_command(tool, input) && !request_opens(tool)) {
		err_set(err, "tool %s cannot be executed by sbxd yet (only Bash commands and "
		    "network requests)", tool);
		return -1;
	}
	return 0;
}

int
claim_read(int sbfd, const char *folder, const char *id, struct claimed *c,
    struct sbx_err *err)
{
	char path[SBX_QUEUE_PATH_MAX];
	size_t len;
	char *text;

	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", id);
	snprintf(path, sizeof(path), "%s", queue_path(QP_PENDING, id).s);
	/* The agent's: ours, or the agent's user of a handed-over folder. */
	if (!(text = read_untrusted_as(sbfd, path, SBX_MAX_REQUEST, &len, sandbox_peer(sbfd),
	    err)))
		return -1;
	c->doc = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(c->doc)) {
		err_set(err, "not a JSON object");
		return -1;
	}
	c->hash = json_str(c->doc, "hash");
	if (claim_check(folder, c->doc, id, err) < 0) {
		if (!c->hash)
			c->hash = "";
		return -2;
	}
	c->tool = json_str(c->doc, "tool");
	c->cwd = json_str(c->doc, "cwd");
	c->session = json_str(c->doc, "session_id");
	c->agent = json_str(c->doc, "agent");
	c->trigger = json_str(c->doc, "trigger");
	c->rule = json_str(c->doc, "rule");
	c->reason = json_str(c->doc, "reason");
	c->tool_use_id = json_str(c->doc, "tool_use_id");
	c->input = cJSON_GetObjectItemCaseSensitive(c->doc, "input");
	return 0;
}

void
claim_free(struct claimed *c)
{
	cJSON_Delete(c->doc);
	c->doc = NULL;
}
