/*
 * forge - test tool: writes decision files with chosen fields, signed
 * with a real key (or a broken signature), to test what sbxd rejects.
 *
 *   forge CONFIG FOLDER ID HASH VERDICT [key=value]...
 *     expires=SECONDS   relative to now (default 600; negative = expired)
 *     approver=NAME     override the signed approver name
 *     nonce=HEX32       fixed nonce (default random)
 *     remember=1        remember flag
 *     badsig=1          flip a bit of the signature after signing
 *     name=FILE         file name to use (default ID.NONCE.json)
 * Prints the decision file name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/sign.h"
#include "common/protocol/queue.h"

int
main(int argc, char **argv)
{
	struct approver_key k;
	struct decision d = { 0 };
	struct sbx_err err;
	const char *name = NULL, *nonce = NULL, *approver = NULL;
	char dst[512], *text;
	int i, expires = 600, badsig = 0, sbfd;
	unsigned char *msg;
	size_t len;

	if (argc < 6 || sodium_init() < 0) {
		fprintf(stderr, "usage: forge CONFIG FOLDER ID HASH VERDICT [k=v]...\n");
		return 2;
	}
	if (approver_key_load(argv[1], &k, &err) < 0) {
		fprintf(stderr, "forge: %s\n", err.msg);
		return 1;
	}
	snprintf(d.id, sizeof(d.id), "%s", argv[3]);
	if (hex_decode(d.hash, SBX_HASH_LEN, argv[4]) < 0) {
		fprintf(stderr, "forge: bad hash\n");
		return 2;
	}
	snprintf(d.verdict, sizeof(d.verdict), "%s", argv[5]);
	for (i = 6; i < argc; i++) {
		if (!strncmp(argv[i], "expires=", 8))
			expires = atoi(argv[i] + 8);
		else if (!strncmp(argv[i], "approver=", 9))
			approver = argv[i] + 9;
		else if (!strncmp(argv[i], "nonce=", 6))
			nonce = argv[i] + 6;
		else if (!strcmp(argv[i], "remember=1"))
			d.remember = 1;
		else if (!strcmp(argv[i], "badsig=1"))
			badsig = 1;
		else if (!strncmp(argv[i], "name=", 5))
			name = argv[i] + 5;
	}
	decision_sign(&d, &k, expires);
	if (nonce || approver) {
		if (nonce)
			snprintf(d.nonce, sizeof(d.nonce), "%s", nonce);
		if (approver)
			snprintf(d.approver, sizeof(d.approver), "%s", approver);
		decision_message(&d, &msg, &len);
		crypto_sign_detached(d.sig, NULL, msg, len, k.sk);
		free(msg);
	}
	approver_key_wipe(&k);
	if (badsig)
		d.sig[10] ^= 1;
	text = decision_to_json(&d);
	if (!text || (sbfd = sandbox_open(argv[2], &err)) < 0)
		return 1;
	if (!name) {
		snprintf(dst, sizeof(dst), "%s.%s.json", d.id, d.nonce);
		name = dst;
	}
	{
		char path[600];

		snprintf(path, sizeof(path), "decisions/new/%s", name);
		if (write_atomic(sbfd, "decisions/tmp", path, text, strlen(text), 0600, 0) < 0) {
			perror("forge: write");
			return 1;
		}
	}
	printf("%s\n", name);
	free(text);
	close(sbfd);
	return 0;
}
