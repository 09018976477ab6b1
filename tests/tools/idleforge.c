/*
 * idleforge - test tool: what an attacker who can read sbxd's key (the
 * same-user deployment: CONFIG/daemon.key is the user's) can do to sbxd's
 * idle record of a folder (daemon/idle.h): read it, change it, and make
 * it intact again with the key (tests t315-t319).
 *
 *   idleforge CONFIG FOLDER [action]...
 *     show            print the recorded tail: ok seq head_seq head_off
 *                     size seg_no intents
 *     restat          record audit.jsonl and state.db as they are now
 *                     (a log altered while sbxd was down, made to fit)
 *     size=N          the recorded tail's size
 *     seq=N           the recorded tail's last seq
 *     head_off=N      where the recorded head's line starts
 *     flip-hash       one bit of the recorded last hash changed
 * The record is written back (re-keyed) when an action changed it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/idle.c"

static int
load_sk(const char *config, unsigned char sk[64])
{
	char path[PATH_MAX], pk[65], skhex[129];
	FILE *fp;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/daemon.key", config);
	if (!(fp = fopen(path, "r")))
		return -1;
	if (fscanf(fp, "sbx-daemon-key-v1\npublic %64s\nsecret %128s", pk, skhex) == 2 &&
	    hex_decode(sk, 64, skhex) == 0)
		rc = 0;
	fclose(fp);
	return rc;
}

int
main(int argc, char **argv)
{
	char real[PATH_MAX], path[PATH_MAX + 32];
	unsigned char sk[64];
	struct idle_rec r;
	int i, changed = 0;

	if (argc < 3 || sodium_init() < 0) {
		fprintf(stderr, "usage: idleforge CONFIG FOLDER [action]...\n");
		return 2;
	}
	if (load_sk(argv[1], sk) < 0 || idle_init(argv[1], sk) < 0 || !realpath(argv[2], real)) {
		fprintf(stderr, "idleforge: cannot read the key or the folder\n");
		return 2;
	}
	if (idle_load(real, &r) != 0) {
		fprintf(stderr, "idleforge: no intact record for %s\n", real);
		return 1;
	}
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "show")) {
			printf("%lld %lld %lld %lld %lld %lld %lld\n", (long long)r.tail_ok,
			    (long long)r.tail.seq, (long long)r.tail.head_seq,
			    (long long)r.tail.head_off, (long long)r.tail.size,
			    (long long)r.tail.seg_no, (long long)r.tail.intents);
			continue;
		}
		changed = 1;
		if (!strcmp(argv[i], "restat")) {
			snprintf(path, sizeof(path), "%s/.sandbox/audit.jsonl", real);
			if (lstat(path, &r.audit) < 0)
				return 1;
			snprintf(path, sizeof(path), "%s/.sandbox/state.db", real);
			if (lstat(path, &r.db) < 0)
				return 1;
		} else if (!strncmp(argv[i], "size=", 5)) {
			r.tail.size = atoll(argv[i] + 5);
		} else if (!strncmp(argv[i], "seq=", 4)) {
			r.tail.seq = atoll(argv[i] + 4);
		} else if (!strncmp(argv[i], "head_off=", 9)) {
			r.tail.head_off = atoll(argv[i] + 9);
		} else if (!strcmp(argv[i], "flip-hash")) {
			r.tail.hash[0] ^= 1;
		} else {
			fprintf(stderr, "idleforge: unknown action %s\n", argv[i]);
			return 2;
		}
	}
	if (changed && idle_save(real, &r) < 0) {
		fprintf(stderr, "idleforge: cannot write the record\n");
		return 1;
	}
	sodium_memzero(sk, sizeof(sk));
	return 0;
}
