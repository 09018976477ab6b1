/*
 * fuzz_claim - sbxd's request check (daemon/claim.c, claim_check): the
 * last gate before a request file from the agent side is recorded and
 * can be approved and run. The input is the request document.
 *
 * Oracles, besides no crash or leak:
 * - what claim_check accepts is for this folder, with a cwd inside it,
 *   a hash that is the request's own (recomputed) and an id that starts
 *   with it, and a tool sbxd can run or open;
 * - the same document repaired (folder and cwd this project, "/p" read
 *   as it; hash and id recomputed) is accepted whenever its tool can be
 *   run or opened: the check refuses nothing valid.
 */
#include "tests/fuzz/fuzz.h"
#include "common/base/json.h"
#include "daemon/claim.c"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fuzz_tmp();
	return 0;
}

/* An accepted document says what claim_check promised. */
static void
check_accepted(const cJSON *doc, const char *id)
{
	unsigned char h[SBX_HASH_LEN];
	char hex[2 * SBX_HASH_LEN + 1];
	const char *tool = json_str(doc, "tool"), *cwd = json_str(doc, "cwd");
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(doc, "input");
	size_t n = strlen(fuzz_proj);

	if (!tool || !cwd || strcmp(json_str(doc, "folder"), fuzz_proj) != 0 ||
	    (strcmp(cwd, fuzz_proj) != 0 && (strncmp(cwd, fuzz_proj, n) != 0 || cwd[n] != '/')))
		abort();
	if (request_hash(tool, input, fuzz_proj, cwd, h) < 0)
		abort();
	hex_encode(hex, h, sizeof(h));
	if (strcmp(hex, json_str(doc, "hash")) != 0 || strncmp(id, hex, 8) != 0 ||
	    strcmp(json_str(doc, "id"), id) != 0)
		abort();
	if (!request_command(tool, input) && !request_opens(tool))
		abort();
}

/* Every KEY goes (cJSON keeps duplicate keys, and reads the first). */
static void
drop(cJSON *doc, const char *key)
{
	while (cJSON_GetObjectItemCaseSensitive(doc, key))
		cJSON_DeleteItemFromObjectCaseSensitive(doc, key);
}

static void
set_str(cJSON *doc, const char *key, const char *v)
{
	drop(doc, key);
	cJSON_AddStringToObject(doc, key, v);
}

/* The document made valid where it can be: folder, cwd, hash, id, v. */
static void
repaired(const cJSON *doc)
{
	unsigned char h[SBX_HASH_LEN];
	char hex[2 * SBX_HASH_LEN + 1], id[SBX_ID_LEN + 1];
	struct sbx_err err;
	const char *tool, *cwd;
	const cJSON *input;
	cJSON *d = cJSON_Duplicate(doc, 1);
	int want;

	if (!d)
		return;
	tool = json_str(d, "tool");
	cwd = json_str(d, "cwd");
	input = cJSON_GetObjectItemCaseSensitive(d, "input");
	if (!tool || !*tool || !cJSON_IsObject(input) || !cwd || strcmp(cwd, "/p") != 0)
		goto out;
	set_str(d, "folder", fuzz_proj);
	set_str(d, "cwd", fuzz_proj);
	drop(d, "v");
	cJSON_AddNumberToObject(d, "v", 1);
	drop(d, "created");
	cJSON_AddNumberToObject(d, "created", 1764480000);
	tool = json_str(d, "tool");
	input = cJSON_GetObjectItemCaseSensitive(d, "input");
	if (request_hash(tool, input, fuzz_proj, fuzz_proj, h) < 0)
		goto out;
	hex_encode(hex, h, sizeof(h));
	request_id_make(h, id);
	set_str(d, "hash", hex);
	set_str(d, "id", id);
	want = request_command(tool, input) || request_opens(tool);
	if ((claim_check(fuzz_proj, d, id, &err) == 0) != want)
		abort();
	if (want)
		check_accepted(d, id);
out:
	cJSON_Delete(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_err err;
	const char *v;
	char id[SBX_ID_LEN + 1] = "0123456789abcdef";
	cJSON *doc;

	if (size > SBX_MAX_REQUEST || json_has_nul((const char *)data, size))
		return -1;
	if (!(doc = cJSON_ParseWithLength((const char *)data, size)))
		return 0;
	if ((v = json_str(doc, "id")) && valid_id(v))
		snprintf(id, sizeof(id), "%s", v);
	if (cJSON_IsObject(doc) && claim_check(fuzz_proj, doc, id, &err) == 0)
		check_accepted(doc, id);
	if (cJSON_IsObject(doc))
		repaired(doc);
	cJSON_Delete(doc);
	return 0;
}
