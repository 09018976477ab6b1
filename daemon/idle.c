/*
 * idle.c - sbxd's records of folders it left idle; see idle.h.
 *
 * Rules:
 * - MUST keep the records out of every folder: CONFIG/idle, 0700, ours.
 * - MUST refuse a record that is not exactly one, intact (keyed hash),
 *   for this path, written by this version of sbxd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/util.h"
#include "daemon/idle.h"

#define IDLE_MAGIC "sbxd-idle-2"

const char *const idle_boxes[IDLE_BOXES] = {
	"queue/new", "decisions/new", "queue/events", "proxy/events", "pending",
	/* names a hook left there are swept by the start's retention pass */
	"queue/wake",
};

static int idfd = -1;                   /* CONFIG/idle */
static unsigned char mackey[32];

int
idle_init(const char *config, const unsigned char sk[64])
{
	static const char label[] = "sbxd idle folder records";
	struct stat st;
	int cfd;

	if (idfd >= 0)
		close(idfd);
	idfd = -1;
	if ((cfd = open(config, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (mkdirat(cfd, "idle", 0700) < 0 && errno != EEXIST) {
		close(cfd);
		return -1;
	}
	idfd = openat(cfd, "idle", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(cfd);
	if (idfd < 0)
		return -1;
	if (fstat(idfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(idfd);
		idfd = -1;
		errno = EPERM;
		return -1;
	}
	crypto_generichash(mackey, sizeof(mackey), (const unsigned char *)label,
	    sizeof(label) - 1, sk, 64);
	return 0;
}

/* The record's file name: the hash of the folder's path, in hex. */
static void
idle_name(const char *path, char name[33], unsigned char h[32])
{
	crypto_generichash(h, 32, (const unsigned char *)path, strlen(path), NULL, 0);
	hex_encode(name, h, 16);
}

static void
idle_mac(const struct idle_rec *r, unsigned char mac[32])
{
	crypto_generichash(mac, 32, (const unsigned char *)r, offsetof(struct idle_rec, mac),
	    mackey, sizeof(mackey));
}

int
idle_load(const char *path, struct idle_rec *r)
{
	char name[33];
	unsigned char h[32], mac[32];
	struct stat st;
	ssize_t n;
	int fd, rc = -2;

	if (idfd < 0)
		return -1;
	idle_name(path, name, h);
	/* Never blocks (a fifo), never follows a link; exactly one record. */
	if ((fd = openat(idfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -1 : -2;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_nlink != 1 || st.st_size != (off_t)sizeof(*r))
		goto out;
	if ((n = read(fd, r, sizeof(*r))) != (ssize_t)sizeof(*r))
		goto out;
	idle_mac(r, mac);
	if (sodium_memcmp(mac, r->mac, sizeof(mac)) != 0 ||
	    strncmp(r->magic, IDLE_MAGIC, sizeof(r->magic)) != 0 ||
	    strncmp(r->version, SBX_VERSION, sizeof(r->version)) != 0 ||
	    memcmp(r->path_hash, h, sizeof(h)) != 0)
		goto out;
	rc = 0;
out:
	close(fd);
	return rc;
}

int
idle_save(const char *path, struct idle_rec *r)
{
	char name[33];

	if (idfd < 0)
		return -1;
	snprintf(r->magic, sizeof(r->magic), "%s", IDLE_MAGIC);
	snprintf(r->version, sizeof(r->version), "%s", SBX_VERSION);
	idle_name(path, name, r->path_hash);
	idle_mac(r, r->mac);
	return write_atomic(idfd, ".", name, r, sizeof(*r), 0600, WA_NOSYNC);
}

void
idle_forget(const char *path)
{
	char name[33];
	unsigned char h[32];

	if (idfd < 0)
		return;
	idle_name(path, name, h);
	(void)unlinkat(idfd, name, 0);
}
