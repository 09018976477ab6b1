/*
 * originals.c - the store of recoverable originals; see originals.h.
 *
 * MUST open the agent's target with O_NOFOLLOW and check the same fd
 * (a regular file, under the size limit). MUST write objects and index
 * entries by temp file + rename inside .sandbox/queue/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/protocol/originals.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"

static int
add_index(int sbfd, const char *path, const char *hash, int64_t size,
    const char *tool, const char *session, const char *skipped)
{
	char name[96], hex[17];
	unsigned char rnd[8];
	cJSON *o = cJSON_CreateObject();
	char *text;
	int rc;

	if (!o)
		return -1;
	randombytes_buf(rnd, sizeof(rnd));
	hex_encode(hex, rnd, sizeof(rnd));
	snprintf(name, sizeof(name), "queue/originals/index/%013lld-%s.json",
	    (long long)now_ms(), hex);
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddStringToObject(o, "hash", hash ? hash : "");
	cJSON_AddNumberToObject(o, "size", (double)size);
	cJSON_AddNumberToObject(o, "time", (double)now_ms());
	cJSON_AddStringToObject(o, "tool", tool ? tool : "");
	cJSON_AddStringToObject(o, "session", session ? session : "");
	if (skipped)
		cJSON_AddStringToObject(o, "skipped", skipped);
	text = json_print_line(o);
	cJSON_Delete(o);
	if (!text)
		return -1;
	/* Made durable with the object by originals_keep's one syncfs. */
	rc = write_atomic(sbfd, "queue/tmp", name, text, strlen(text), sandbox_file_mode(sbfd),
	    WA_NOREPLACE | WA_NOSYNC);
	free(text);
	return rc;
}

/*
 * Whether objects/HASH holds LEN bytes already: the same content was kept
 * before (objects are named by their hash), so it is not written again.
 * A name that is not a regular file of that size (torn by a crash, or
 * put there by the agent) is not trusted: the object is written again
 * (noreplace fails, so the bad name is replaced first).
 */
static int
object_stored(int sbfd, const char *obj, size_t len)
{
	struct stat st;

	if (fstatat(sbfd, obj, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISREG(st.st_mode) && st.st_nlink == 1 && (size_t)st.st_size == len)
		return 1;
	(void)unlinkat(sbfd, obj, 0);
	return 0;
}

/*
 * One sync per call, for everything the call wrote: the object (when
 * new), the index entry and both renames. syncfs() on the .sandbox fd
 * does it in one call instead of four fsyncs (file and directory, twice).
 */
static int
keep_sync(int sbfd)
{
	return syncfs(sbfd);
}

int
originals_keep(int sbfd, const char *path, const char *tool, const char *session,
    struct sbx_err *err)
{
	unsigned char h[32];
	char hex[65], obj[128], why[128], real[4096];
	struct stat st;
	size_t len;
	char *buf = NULL;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(why, sizeof(why), errno == ELOOP ? "a symlink" : "unreadable: %s",
		    strerror(errno));
		return add_index(sbfd, path, NULL, 0, tool, session, why) < 0 ? -1 : 2;
	}
	/* Record the resolved path, so history finds it however it was named. */
	if (realpath(path, real))
		path = real;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return add_index(sbfd, path, NULL, 0, tool, session, "not a regular file") < 0
		    ? -1 : 2;
	}
	if (st.st_size > SBX_ORIGINALS_MAX_FILE) {
		close(fd);
		snprintf(why, sizeof(why), "larger than %ld bytes", SBX_ORIGINALS_MAX_FILE);
		return add_index(sbfd, path, NULL, st.st_size, tool, session, why) < 0 ? -1 : 2;
	}
	if (!(buf = fd_read_all(fd, SBX_ORIGINALS_MAX_FILE, &len))) {
		err_set(err, "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	crypto_generichash(h, sizeof(h), (unsigned char *)buf, len, NULL, 0);
	hex_encode(hex, h, sizeof(h));
	snprintf(obj, sizeof(obj), "queue/originals/objects/%s", hex);
	if (!object_stored(sbfd, obj, len) && write_atomic(sbfd, "queue/tmp", obj, buf, len,
	    sandbox_file_mode(sbfd), WA_NOREPLACE | WA_NOSYNC) < 0 && errno != EEXIST) {
		err_set(err, "cannot keep the original of %s: %s", path, strerror(errno));
		goto out;
	}
	if (add_index(sbfd, path, hex, (int64_t)len, tool, session, NULL) < 0) {
		err_set(err, "cannot index the original of %s: %s", path, strerror(errno));
		goto out;
	}
	if (keep_sync(sbfd) < 0) {
		err_set(err, "cannot make the original of %s durable: %s", path, strerror(errno));
		goto out;
	}
	rc = 1;
out:
	free(buf);
	close(fd);
	return rc;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct original *)a)->name, ((const struct original *)b)->name);
}

int
originals_list(int sbfd, struct original **out)
{
	struct original *v = NULL, *nv;
	struct sbx_err err;
	struct dirent *de;
	char rel[160];
	size_t len;
	int n = 0, cap = 0;
	int64_t x;
	uid_t peer;
	cJSON *o;
	char *text;
	DIR *d;

	*out = NULL;
	peer = sandbox_peer(sbfd);
	if (!(d = opendir_at(sbfd, "queue/originals/index"))) {
		return errno == ENOENT ? 0 : -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(v->name))
			continue;
		snprintf(rel, sizeof(rel), "queue/originals/index/%.63s", de->d_name);
		if (!(text = read_untrusted_as(sbfd, rel, 64 * 1024, &len, peer, &err)))
			continue;
		o = cJSON_ParseWithLength(text, len);
		free(text);
		if (!json_str(o, "path") || !json_str(o, "hash")) {
			cJSON_Delete(o);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			if (!(nv = realloc(v, (size_t)cap * sizeof(*v)))) {
				cJSON_Delete(o);
				break;
			}
			v = nv;
		}
		memset(&v[n], 0, sizeof(v[n]));
		snprintf(v[n].name, sizeof(v[n].name), "%.63s", de->d_name);
		snprintf(v[n].path, sizeof(v[n].path), "%s", json_str(o, "path"));
		snprintf(v[n].hash, sizeof(v[n].hash), "%s", json_str(o, "hash"));
		snprintf(v[n].tool, sizeof(v[n].tool), "%s", json_str(o, "tool") ? json_str(o, "tool") : "");
		if (json_str(o, "skipped"))
			snprintf(v[n].skipped, sizeof(v[n].skipped), "%s", json_str(o, "skipped"));
		if (json_int(o, "size", &x) == 0)
			v[n].size = x;
		if (json_int(o, "time", &x) == 0)
			v[n].time_ms = x;
		cJSON_Delete(o);
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), name_cmp);
	*out = v;
	return n;
}

int
originals_open(int sbfd, const char *hash)
{
	char rel[128];

	if (!is_hex(hash, 64)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(rel, sizeof(rel), "queue/originals/objects/%s", hash);
	return openat_nf(sbfd, rel, O_RDONLY | O_CLOEXEC, 0);
}

int
originals_prune(int sbfd, int64_t cap)
{
	struct original *v;
	struct stat st;
	char rel[160];
	int64_t total = 0;
	int n, i, k, removed = 0, used;

	if ((n = originals_list(sbfd, &v)) <= 0)
		return 0;
	/* Sum distinct objects. */
	for (i = 0; i < n; i++) {
		for (k = 0; k < i && strcmp(v[k].hash, v[i].hash) != 0; k++)
			;
		if (k == i && v[i].hash[0])
			total += v[i].size;
	}
	for (i = 0; i < n && total > cap; i++) {
		snprintf(rel, sizeof(rel), "queue/originals/index/%s", v[i].name);
		if (unlinkat_nf(sbfd, rel, 0) < 0)
			continue;
		removed++;
		if (!v[i].hash[0])
			continue;
		for (used = 0, k = i + 1; k < n; k++)
			used |= strcmp(v[k].hash, v[i].hash) == 0;
		snprintf(rel, sizeof(rel), "queue/originals/objects/%s", v[i].hash);
		if (!used && fstatat_nf(sbfd, rel, &st) == 0 &&
		    unlinkat_nf(sbfd, rel, 0) == 0)
			total -= st.st_size;
	}
	free(v);
	return removed;
}
