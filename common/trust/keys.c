/*
 * keys.c - reading trusted approver public keys; see keys.h.
 *
 * MUST read key files with O_NOFOLLOW and fstat checks (read_untrusted).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/protocol/queue.h"
#include "common/trust/keys.h"

int
key_read_public(int dirfd, const char *name, unsigned char pk[32],
    struct sbx_err *err)
{
	size_t len;
	char *text = read_untrusted(dirfd, name, 256, &len, err);
	int rc = -1;

	if (!text)
		return -1;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	if (hex_decode(pk, 32, text) < 0)
		err_set(err, "%s: not a public key (want 64 hex digits)", name);
	else
		rc = 0;
	free(text);
	return rc;
}

int
trusted_key_find(const char *config, const char *key_id,
    struct trusted_key *out, struct sbx_err *err)
{
	char path[4096], name[64], id[17];
	unsigned char pk[32];
	struct dirent *de;
	size_t n;
	DIR *d;
	int found = 0;

	if (xsnprintf(path, sizeof(path), "%s/%s", config, SBX_TRUSTED_DIR) < 0) {
		err_set(err, "config path too long");
		return -1;
	}
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		err_set(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		n = strlen(de->d_name);
		if (n < 5 || n - 4 >= sizeof(name) || strcmp(de->d_name + n - 4, ".pub") != 0)
			continue;
		memcpy(name, de->d_name, n - 4);
		name[n - 4] = '\0';
		if (!valid_name(name))
			continue;
		if (key_read_public(dirfd(d), de->d_name, pk, err) < 0) {
			closedir(d);
			return -1;
		}
		key_id_of(pk, id);
		if (strcmp(id, key_id) == 0) {
			memcpy(out->pk, pk, 32);
			memcpy(out->key_id, id, sizeof(id));
			memcpy(out->name, name, sizeof(name));
			found = 1;
			break;
		}
	}
	closedir(d);
	return found;
}

int
trusted_key_named(const char *config, const char *name, const char *key_id,
    struct trusted_key *out, struct sbx_err *err)
{
	char path[4096], file[80], id[17];
	unsigned char pk[32];
	int dfd, rc, e;

	if (!valid_name(name) || strlen(name) >= sizeof(out->name) ||
	    xsnprintf(file, sizeof(file), "%s.pub", name) < 0)
		return 0;
	if (xsnprintf(path, sizeof(path), "%s/%s", config, SBX_TRUSTED_DIR) < 0) {
		err_set(err, "config path too long");
		return -1;
	}
	/* the directory as trusted_key_find() opens it (opendir) */
	if ((dfd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;
		err_set(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	rc = key_read_public(dfd, file, pk, err);
	e = errno;
	close(dfd);
	/* not there (ENOENT only from the open): 0, as a scan finding no
	 * such key; any other refusal is an error */
	if (rc < 0)
		return e == ENOENT ? 0 : -1;
	key_id_of(pk, id);
	if (strcmp(id, key_id) != 0)
		return 0;
	memcpy(out->pk, pk, 32);
	memcpy(out->key_id, id, sizeof(id));
	snprintf(out->name, sizeof(out->name), "%s", name);
	return 1;
}
