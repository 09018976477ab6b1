/*
 * fuzz_request - request files (.sandbox/queue/new/ID.json), written by
 * the agent side and so untrusted: the input is the document, taken
 * apart with the functions sbxd uses on it (common/protocol/queue.c): the id,
 * the command (request_command), the request hash, the canonical input
 * (json_canonical), and whether a remembered prefix rule would cover
 * the command (prefix_covers). The hash must not depend on key order.
 *
 * sbxd's own check of a request file is claim_check() (daemon/claim.c),
 * fuzzed with its own oracles by fuzz_claim.
 */
#include "tests/fuzz/fuzz.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"

static const char *const prefixes[] = { "git push", "npm run test", "make -C build" };

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fuzz_tmp();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char h1[SBX_HASH_LEN], h2[SBX_HASH_LEN];
	char id[SBX_ID_LEN + 1];
	const char *tool, *folder, *cwd, *cmd, *v;
	const cJSON *input;
	cJSON *doc, *copy = NULL;
	char *canon = NULL;
	size_t i;

	if (size > SBX_MAX_REQUEST || json_has_nul((const char *)data, size))
		return -1;
	if (!(doc = cJSON_ParseWithLength((const char *)data, size)))
		return 0;
	if ((v = json_str(doc, "id")))
		(void)valid_id(v);
	tool = json_str(doc, "tool");
	folder = json_str(doc, "folder");
	cwd = json_str(doc, "cwd");
	input = cJSON_GetObjectItemCaseSensitive(doc, "input");
	if (!tool || !cJSON_IsObject(input))
		goto out;
	if ((cmd = request_command(tool, input)))
		for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			(void)prefix_covers(prefixes[i], cmd);
	canon = json_canonical(input);
	if (request_hash(tool, input, folder ? folder : fuzz_proj, cwd ? cwd : fuzz_proj,
	    h1) < 0)
		goto out;
	request_id_make(h1, id);
	if (!valid_id(id))
		abort();
	/* The hash of a copy (what sbxd hashes again) is the same. */
	if (!(copy = cJSON_Duplicate(input, 1)) || request_hash(tool, copy, folder ? folder :
	    fuzz_proj, cwd ? cwd : fuzz_proj, h2) < 0)
		goto out;
	if (memcmp(h1, h2, sizeof(h1)) != 0)
		abort();
out:
	free(canon);
	cJSON_Delete(copy);
	cJSON_Delete(doc);
	return 0;
}
