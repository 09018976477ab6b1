/*
 * auditbench - the audit log's throughput, measured on the real writer
 * (daemon/audit.c, with a real state.db) and the real verifier:
 *
 *   auditbench DIR N
 *
 * 1. appends N request-sized records, each made durable (fdatasync) before
 *    the next: the strictest reading of "on disk before it is acted on";
 * 2. appends N more with a group commit every 32 records (what sbxd's
 *    main loop does under load: one sync per pass);
 * 3. verifies the whole log (every segment, every checkpoint signature,
 *    the signed head) and hashes the same bytes with raw BLAKE2b-256.
 * DIR must be an empty directory; it is left with the log in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/store/db.h"
#include "daemon/audit.c"

static double
secs(int64_t ms_start)
{
	return (double)(mono_ms() - ms_start) / 1000.0;
}

static cJSON *
request_data(int i)
{
	char cmd[128];
	cJSON *d = cJSON_CreateObject(), *in = cJSON_AddObjectToObject(d, "input");

	snprintf(cmd, sizeof(cmd), "git push origin feature/branch-%d --force-with-lease", i);
	cJSON_AddStringToObject(in, "command", cmd);
	cJSON_AddStringToObject(in, "description", "Push the branch to the remote");
	cJSON_AddStringToObject(d, "tool", "Bash");
	cJSON_AddStringToObject(d, "command", cmd);
	cJSON_AddStringToObject(d, "cwd", "/home/alice/work/project");
	cJSON_AddStringToObject(d, "hash",
	    "3f9a0c1e2d4b5a6978877665544332211ffeeddccbbaa0099887766554433221");
	cJSON_AddStringToObject(d, "agent", "claude-code");
	cJSON_AddStringToObject(d, "tool_use_id", "toolu_01ABCDEFGHIJKLMNOPQRSTUV");
	cJSON_AddStringToObject(d, "trigger", "network");
	cJSON_AddStringToObject(d, "rule", "builtin: git push");
	cJSON_AddStringToObject(d, "reason", "git push sends commits to a remote");
	cJSON_AddStringToObject(d, "status", "pending");
	return d;
}

int
main(int argc, char **argv)
{
	struct audit_opts o = { 0 };
	struct audit_checkpoint head;
	struct audit_report r;
	struct audit_key key;
	struct sbx_err err;
	struct audit_seg segs[64];
	char path[4096], name[32], *bufs[64];
	unsigned char h[32];
	crypto_generichash_state st;
	double t_sync, t_group, t_verify, t_hash, mb;
	int64_t t0;
	struct audit *a;
	sqlite3 *db;
	size_t len;
	int n, i, sbfd, nseg = 0, last, rounds;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || sodium_init() < 0) {
		fprintf(stderr, "usage: auditbench DIR N\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/.sandbox", argv[1]);
	if (mkdir(path, 0700) < 0 || (sbfd = sandbox_open(argv[1], &err)) < 0 ||
	    !(db = db_open(argv[1], 1, &err))) {
		fprintf(stderr, "auditbench: cannot prepare %s\n", argv[1]);
		return 1;
	}
	crypto_sign_keypair(key.pk, key.sk);
	key_id_of(key.pk, key.key_id);
	if (!(a = audit_open(sbfd, db, &key, &o, &err))) {
		fprintf(stderr, "auditbench: %s\n", err.msg);
		return 1;
	}
	t0 = mono_ms();
	for (i = 0; i < n; i++) {
		audit_append(a, "request_received", "0123456789abcdef", "sess", "hook",
		    request_data(i));
		audit_sync(a);
	}
	t_sync = secs(t0);
	t0 = mono_ms();
	for (i = 0; i < n; i++) {
		audit_append(a, "request_received", "0123456789abcdef", "sess", "hook",
		    request_data(i));
		if (i % 32 == 31)
			audit_sync(a);
	}
	audit_sync(a);
	t_group = secs(t0);
	audit_close(a);
	head_load(db, &head);

	last = last_segment(sbfd);
	for (i = 1; i <= last + 1 && nseg < 64; i++) {
		if (i <= last)
			snprintf(name, sizeof(name), "audit.%06d.jsonl", i);
		else
			snprintf(name, sizeof(name), "audit.jsonl");
		if (!(bufs[nseg] = read_daemon_file(sbfd, name, 1L << 30, &len, &err)))
			return 1;
		segs[nseg] = (struct audit_seg){ "seg", bufs[nseg], len };
		nseg++;
	}
	/* Repeat the read-only passes so each lasts long enough to time. */
	rounds = 20;
	t0 = mono_ms();
	for (i = 0; i < rounds; i++)
		if (audit_verify(segs, nseg, key.pk, &head, &r) < 0) {
			fprintf(stderr, "auditbench: the log does not verify: %s\n", r.msg);
			return 1;
		}
	t_verify = secs(t0);
	t0 = mono_ms();
	for (i = 0; i < rounds; i++) {
		int k;

		crypto_generichash_init(&st, NULL, 0, 32);
		for (k = 0; k < nseg; k++)
			crypto_generichash_update(&st, (const unsigned char *)segs[k].buf, segs[k].len);
		crypto_generichash_final(&st, h, 32);
	}
	t_hash = secs(t0);
	mb = (double)r.bytes / 1e6;
	printf("%-52s %10.0f records/s  (%.3f ms each)\n", "append, fdatasync per record",
	    n / t_sync, 1000 * t_sync / n);
	printf("%-52s %10.0f records/s  (%.3f ms each)\n", "append, group commit of 32",
	    n / t_group, 1000 * t_group / n);
	printf("%-52s %10.1f MB/s\n", "raw BLAKE2b-256 over the same bytes", mb * rounds / t_hash);
	printf("%-52s %10.1f MB/s  (%.0f%% of raw)\n", "sbx audit verify (chain, 1 signature per 1000)",
	    mb * rounds / t_verify, 100.0 * t_hash / t_verify);
	printf("log: %lld records, %d segment(s), %.1f MB, %lld checkpoints, %d bytes/record\n",
	    (long long)r.records, nseg, mb, (long long)r.checkpoints,
	    (int)(r.bytes / (r.records ? r.records : 1)));
	for (i = 0; i < nseg; i++)
		free(bufs[i]);
	db_close(db);
	close(sbfd);
	audit_key_wipe(&key);
	return 0;
}
