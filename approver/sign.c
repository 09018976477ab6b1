/*
 * sign.c - approver keys and signatures; see sign.h.
 *
 * MUST create the secret key file 0600 with O_EXCL and refuse to use
 * one that group or others can read. MUST wipe secrets after use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/sign.h"
#include "common/trust/keys.h"

static const char magic[] = "sbx-approver-key-v1";

void
approver_key_wipe(struct approver_key *k)
{
	sodium_memzero(k, sizeof(*k));
}

int
approver_key_load(const char *config, struct approver_key *k, struct sbx_err *err)
{
	char name[64], pkhex[65], skhex[129];
	size_t len;
	char *text = NULL;
	int dfd, rc = -1, r;

	memset(k, 0, sizeof(*k));
	dfd = open(config, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		err_set(err, "no approver key: cannot open %s (%s); run `sbx init DIR` first",
		    config, strerror(errno));
		return -1;
	}
	if ((r = read_private(dfd, config, SBX_KEY_FILE, 4096, &text, &len, err)) == -1)
		err_set(err, "no approver key in %s (%s); run `sbx init DIR` first", config,
		    strerror(errno));
	if (r < 0)
		goto out;
	if (sscanf(text, "sbx-approver-key-v1\nname %63s\npublic %64s\nsecret %128s",
	    name, pkhex, skhex) != 3 || !valid_name(name) ||
	    hex_decode(k->pk, 32, pkhex) < 0 || hex_decode(k->sk, 64, skhex) < 0) {
		err_set(err, "%s/%s is malformed", config, SBX_KEY_FILE);
		goto out;
	}
	memcpy(k->name, name, sizeof(name));
	key_id_of(k->pk, k->key_id);
	rc = 0;
out:
	if (text) {
		sodium_memzero(text, len);
		free(text);
	}
	sodium_memzero(skhex, sizeof(skhex));
	close(dfd);
	if (rc < 0)
		approver_key_wipe(k);
	return rc;
}

int
approver_key_create(const char *config, const char *name, struct sbx_err *err)
{
	unsigned char pk[32], sk[64];
	char pkhex[65], skhex[129], text[512], path[4096];
	int dfd = -1, tfd = -1, fd = -1, rc = -1, n;

	if (!valid_name(name)) {
		err_set(err, "invalid approver name \"%s\" (letters, digits, . _ -)", name);
		return -1;
	}
	if (mkdir_p(config, 0700) < 0) {
		err_set(err, "cannot create %s: %s", config, strerror(errno));
		return -1;
	}
	if ((dfd = open(config, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err_set(err, "cannot open %s: %s", config, strerror(errno));
		return -1;
	}
	if (faccessat(dfd, SBX_KEY_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		close(dfd);
		return 0;
	}
	if (mkdirat(dfd, SBX_TRUSTED_DIR, 0700) < 0 && errno != EEXIST) {
		err_set(err, "cannot create %s/%s: %s", config, SBX_TRUSTED_DIR, strerror(errno));
		goto out;
	}
	crypto_sign_keypair(pk, sk);
	hex_encode(pkhex, pk, 32);
	hex_encode(skhex, sk, 64);
	n = snprintf(text, sizeof(text), "%s\nname %s\npublic %s\nsecret %s\n", magic, name,
	    pkhex, skhex);
	fd = openat(dfd, SBX_KEY_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, text, (size_t)n) < 0 || fsync(fd) < 0) {
		err_set(err, "cannot write %s/%s: %s", config, SBX_KEY_FILE, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s.pub", SBX_TRUSTED_DIR, name);
	n = snprintf(text, sizeof(text), "%s\n", pkhex);
	if (write_atomic(dfd, SBX_TRUSTED_DIR, path, text, (size_t)n, 0644, 0) < 0) {
		err_set(err, "cannot write %s/%s: %s", config, path, strerror(errno));
		goto out;
	}
	rc = 1;
out:
	sodium_memzero(sk, sizeof(sk));
	sodium_memzero(skhex, sizeof(skhex));
	sodium_memzero(text, sizeof(text));
	if (fd >= 0)
		close(fd);
	if (tfd >= 0)
		close(tfd);
	close(dfd);
	return rc;
}

int
decision_sign(struct decision *d, const struct approver_key *k, int ttl_seconds)
{
	unsigned char nonce[SBX_NONCE_LEN], *msg;
	size_t len;

	if (!d->scope[0])
		snprintf(d->scope, sizeof(d->scope), "exact");
	memcpy(d->approver, k->name, sizeof(d->approver));
	memcpy(d->key_id, k->key_id, sizeof(d->key_id));
	d->created = now_ms() / 1000;
	d->expires = d->created + ttl_seconds;
	randombytes_buf(nonce, sizeof(nonce));
	hex_encode(d->nonce, nonce, sizeof(nonce));
	if (decision_message(d, &msg, &len) < 0)
		return -1;
	crypto_sign_detached(d->sig, NULL, msg, len, k->sk);
	free(msg);
	return 0;
}
