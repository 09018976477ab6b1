/*
 * accept.c - checking that policy.json is the one a human accepted; see
 * accept.h. Verification only: signing lives in approver/.
 *
 * MUST hash the same bytes the policy was parsed from. MUST fail closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/buf.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/trust/accept.h"
#include "common/trust/keys.h"
#include "policy/policy.h"

int
accept_message(const unsigned char hash[32], const char *approver, const char *key_id,
    int64_t time, const char *folder, unsigned char **out, size_t *len)
{
	static const char tag[] = "sbx-policy-v1";
	struct buf b = { 0 };

	buf_put(&b, tag, sizeof(tag));
	buf_put_lp(&b, hash, 32);
	buf_put_lps(&b, approver);
	buf_put_lps(&b, key_id);
	buf_put_lpi(&b, time);
	buf_put_lps(&b, folder);
	return buf_take(&b, out, len);
}

void
accept_floor_name(const char *folder, char name[33])
{
	unsigned char h[16];

	crypto_generichash(h, sizeof(h), (const unsigned char *)folder, strlen(folder),
	    NULL, 0);
	hex_encode(name, h, sizeof(h));
}

int
accept_floor_read(const char *config, const char *folder, int64_t *t, char *why,
    size_t whysz)
{
	char path[PATH_MAX], name[33], *text;
	const char *f;
	size_t len;
	cJSON *doc;
	int fd, rc = -1;

	*t = 0;
	accept_floor_name(folder, name);
	if (xsnprintf(path, sizeof(path), "%s/%s/%s", config, SBX_FLOOR_DIR, name) < 0) {
		snprintf(why, whysz, "the config dir path is too long");
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;       /* never recorded: accepted before sbx kept floors */
		snprintf(why, whysz, "cannot read the acceptance record %.200s: %s", path,
		    strerror(errno));
		return -1;
	}
	text = fd_read_all(fd, 4096, &len);
	close(fd);
	doc = text ? cJSON_ParseWithLength(text, len) : NULL;
	free(text);
	f = json_str(doc, "folder");
	if (!f || strcmp(f, folder) != 0 || json_int(doc, "time", t) < 0 || *t < 0)
		snprintf(why, whysz, "the acceptance record %.200s is malformed or not this "
		    "folder's", path);
	else
		rc = 0;
	cJSON_Delete(doc);
	return rc;
}

/* 0 when SBFD/policy.accepted (FOLDER/.sandbox) signs hash by a trusted
 * key. */
static int
check_accepted(int sbfd, const char *folder, const char *config,
    const unsigned char hash[32], char *why, size_t whysz)
{
	unsigned char want[32], sig[64], *msg = NULL;
	const char *h, *who, *kid, *s;
	struct trusted_key key;
	struct sbx_err err = { "" };
	struct stat st;
	int64_t t, floor;
	size_t len, mlen;
	cJSON *doc = NULL;
	char *text;
	int rc = -1, found;

	/* The approver's: the owner of .sandbox (sandbox_open() checked that
	 * it is us, or the daemon's user of a handed-over folder). */
	text = fstat(sbfd, &st) < 0 ? NULL :
	    read_untrusted_as(sbfd, SBX_ACCEPTED_FILE, 4096, &len, st.st_uid, &err);
	if (!text) {
		snprintf(why, whysz, "no accepted policy (%.200s)", err.msg);
		return -1;
	}
	doc = cJSON_ParseWithLength(text, len);
	free(text);
	h = json_str(doc, "hash");
	who = json_str(doc, "approver");
	kid = json_str(doc, "key_id");
	s = json_str(doc, "sig");
	if (!h || !who || !kid || !s || json_int(doc, "time", &t) < 0 ||
	    hex_decode(want, 32, h) < 0 || hex_decode(sig, 64, s) < 0) {
		snprintf(why, whysz, "policy.accepted is malformed");
		goto out;
	}
	/* the key approvers/WHO.pub: the only one that may have signed it
	 * (the name is checked against the key's below, as ever) */
	if ((found = trusted_key_named(config, who, kid, &key, &err)) != 1) {
		snprintf(why, whysz, "policy.accepted is signed by key %.16s, which is not a "
		    "trusted approver key", kid);
		goto out;
	}
	if (accept_message(want, who, kid, t, folder, &msg, &mlen) < 0 ||
	    crypto_sign_verify_detached(sig, msg, mlen, key.pk) != 0 ||
	    strcmp(who, key.name) != 0) {
		snprintf(why, whysz, "policy.accepted has a bad signature");
		goto out;
	}
	if (sodium_memcmp(want, hash, 32) != 0) {
		snprintf(why, whysz, "policy.json changed since %s accepted it", who);
		goto out;
	}
	/* A validly signed but older pair put back: refused like sbxd does. */
	if (accept_floor_read(config, folder, &floor, why, whysz) < 0)
		goto out;
	if (t < floor) {
		snprintf(why, whysz, "policy rollback: policy.accepted was signed at %lld, "
		    "before the newest acceptance the approver recorded for this folder (%lld, "
		    "in the config dir's %s/); an old policy.json and policy.accepted were put "
		    "back", (long long)t, (long long)floor, SBX_FLOOR_DIR);
		goto out;
	}
	rc = 0;
out:
	free(msg);
	cJSON_Delete(doc);
	return rc;
}

struct policy *
policy_load_accepted_at(int sbfd, const char *folder, const char *config, char *msg,
    size_t msgsz)
{
	unsigned char hash[32];
	struct policy_error perr;
	struct policy *p;
	char why[300];
	size_t len;
	char *text = NULL;

	if (!(p = policy_load_at(sbfd, folder, config, &perr, &text, &len))) {
		snprintf(msg, msgsz, "%s", perr.msg);
		return NULL;
	}
	crypto_generichash(hash, sizeof(hash), (unsigned char *)text, len, NULL, 0);
	free(text);
	if (check_accepted(sbfd, folder, config, hash, why, sizeof(why)) < 0) {
		snprintf(msg, msgsz, "%s: a human must accept the policy first: run "
		    "`sbx -C %s policy accept` (or `sbx policy edit`)", why, folder);
		policy_free(p);
		return NULL;
	}
	return p;
}

struct policy *
policy_load_accepted(const char *folder, const char *config, char *msg, size_t msgsz)
{
	struct sbx_err err = { "" };
	struct policy *p;
	int sbfd;

	/* policy.json and policy.accepted through one open .sandbox, never
	 * two lookups of the path: in a handed-over folder (deployment 3)
	 * the folder is the agent's, who can swap its own directory in
	 * between and pair its policy.json with sbxd's user's acceptance
	 * (t291). */
	if (folder == NULL || folder[0] != '/' || (sbfd = sandbox_open(folder, &err)) < 0) {
		snprintf(msg, msgsz, "%s", folder && folder[0] == '/' ? err.msg :
		    "no absolute project folder");
		return NULL;
	}
	p = policy_load_accepted_at(sbfd, folder, config, msg, msgsz);
	close(sbfd);
	return p;
}
