/*
 * result_sig.c - checking result files; see result_sig.h. Signing is in
 * result_sign.c, its own object, so that programs which only check (the
 * hook, sbx-mcp, sbx-proxy) never link crypto_sign_detached.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "common/trust/result_sig.h"

static const char tag[] = "sbx-result-v1\n";

unsigned char *
result_sig_message(const cJSON *r, size_t *len)
{
	cJSON *copy = cJSON_Duplicate(r, 1);
	unsigned char *msg = NULL;
	char *canon;
	size_t n;

	if (!copy)
		return NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(copy, "sig");
	canon = json_canonical(copy);
	cJSON_Delete(copy);
	if (!canon)
		return NULL;
	n = strlen(canon);
	if ((msg = malloc(sizeof(tag) - 1 + n))) {
		memcpy(msg, tag, sizeof(tag) - 1);
		memcpy(msg + sizeof(tag) - 1, canon, n);
		*len = sizeof(tag) - 1 + n;
	}
	free(canon);
	return msg;
}

int
result_sig_ok(const cJSON *r, const unsigned char pk[32])
{
	const char *hex = json_str(r, "sig");
	unsigned char sig[64], *msg;
	size_t len;
	int ok;

	if (!hex || hex_decode(sig, sizeof(sig), hex) < 0 || !(msg = result_sig_message(r, &len)))
		return 0;
	ok = crypto_sign_verify_detached(sig, msg, len, pk) == 0;
	free(msg);
	return ok;
}

int
result_pub_load(const char *config, const char *name, unsigned char pk[32])
{
	char text[80];
	ssize_t n;
	int dfd, fd;

	if ((dfd = open(config, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 64)
		return -1;
	text[64] = '\0';
	return hex_decode(pk, 32, text);
}
