/*
 * test_common.c - unit tests for common/: canonical JSON, hex, names,
 * request hashing, the decision encoding, UTF-8 cleaning, bounded reads
 * and the safe open of untrusted files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/trust/keys.h"
#include "tests/tap.h"

static void
test_canonical(void)
{
	cJSON *a = cJSON_Parse("{\"b\": [1, 2.5, \"x\\u0001\"], \"a\": {\"z\": null, \"y\": true}}");
	cJSON *b = cJSON_Parse("{\"a\":{\"y\":true,\"z\":null},\"b\":[1,2.5,\"x\\u0001\"]}");
	char *ca = json_canonical(a), *cb = json_canonical(b);

	is_str(ca, "{\"a\":{\"y\":true,\"z\":null},\"b\":[1,2.5,\"x\\u0001\"]}",
	    "canonical JSON sorts keys and drops spaces");
	is_str(ca, cb, "the same value in another order gives the same bytes");
	free(ca);
	free(cb);
	cJSON_Delete(a);
	cJSON_Delete(b);

	/* Depth is bounded. */
	char deep[300];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	deep[200] = '\0';
	a = cJSON_Parse(deep);
	ok(a && json_canonical(a) == NULL, "canonical JSON refuses nesting deeper than 64");
	cJSON_Delete(a);

	/* Duplicate keys keep the object's order, whatever the addresses
	 * (found by fuzz_request: a cJSON_Duplicate copy hashed differently,
	 * so sbxd could reject a request the hook hashed). */
	cJSON *late = cJSON_CreateString("second"), *early = cJSON_CreateString("first");
	unsigned char h1[SBX_HASH_LEN], h2[SBX_HASH_LEN];

	a = cJSON_CreateObject();
	cJSON_AddItemToObject(a, "k", early);
	cJSON_AddItemToObject(a, "k", late);
	ca = json_canonical(a);
	is_str(ca, "{\"k\":\"first\",\"k\":\"second\"}",
	    "canonical JSON keeps duplicate keys in the object's order");
	b = cJSON_Duplicate(a, 1);
	ok(request_hash("Write", a, "/p", "/p", h1) == 0 &&
	    request_hash("Write", b, "/p", "/p", h2) == 0 && memcmp(h1, h2, sizeof(h1)) == 0,
	    "a copy of an input with duplicate keys has the same request hash");
	free(ca);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void
test_hex_names(void)
{
	unsigned char raw[4] = { 0x00, 0xab, 0x10, 0xff }, back[4];
	char hex[9], id[17];

	hex_encode(hex, raw, 4);
	is_str(hex, "00ab10ff", "hex_encode");
	ok(hex_decode(back, 4, hex) == 0 && memcmp(raw, back, 4) == 0, "hex round trip");
	ok(hex_decode(back, 4, "00AB10FF") < 0, "upper-case hex is refused");
	ok(hex_decode(back, 4, "00ab10f") < 0, "short hex is refused");
	ok(valid_request_name("0123456789abcdef.json", id), "a request file name");
	is_str(id, "0123456789abcdef", "its id");
	ok(!valid_request_name("0123456789abcdef.json.tmp", id), "temp names are not requests");
	ok(!valid_request_name("../3456789abcdef.json", id), "path tricks are not requests");
	ok(!valid_request_name("0123456789ABCDEF.json", id), "upper case ids are not requests");
	ok(valid_decision_name("0123456789abcdef.0123456789abcdef0123456789abcdef.json", id),
	    "a decision file name");
	ok(!valid_decision_name("0123456789abcdef.json", id), "a request name is not a decision");
	ok(valid_name("alice") && valid_name("a.b-c_d"), "approver names");
	ok(!valid_name("../x") && !valid_name(".hidden") && !valid_name("") &&
	    !valid_name("a b"), "unsafe approver names are refused");
}

static void
test_request_hash(void)
{
	unsigned char h1[32], h2[32], h3[32], h4[32];
	cJSON *a = cJSON_Parse("{\"command\":\"ls\",\"description\":\"list\"}");
	cJSON *b = cJSON_Parse("{\"description\":\"other words\",\"command\":\"ls\",\"timeout\":5}");
	cJSON *w1 = cJSON_Parse("{\"file_path\":\"/x\",\"content\":\"1\",\"description\":\"a\"}");
	cJSON *w2 = cJSON_Parse("{\"content\":\"1\",\"file_path\":\"/x\"}");

	request_hash("Bash", a, "/p", "/p", h1);
	request_hash("Bash", b, "/p", "/p", h2);
	ok(memcmp(h1, h2, 32) == 0, "a Bash request hash binds the command, not its description");
	request_hash("Bash", a, "/p", "/p/sub", h3);
	ok(memcmp(h1, h3, 32) != 0, "the hash binds the cwd");
	request_hash("Bash", a, "/q", "/q", h3);
	ok(memcmp(h1, h3, 32) != 0, "the hash binds the folder");
	request_hash("Write", w1, "/p", "/p", h3);
	request_hash("Write", w2, "/p", "/p", h4);
	ok(memcmp(h3, h4, 32) == 0, "other tools hash their canonical input");
	request_hash("Edit", w2, "/p", "/p", h4);
	ok(memcmp(h3, h4, 32) != 0, "the hash binds the tool");
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(w1);
	cJSON_Delete(w2);
}

static void
test_decision(void)
{
	struct decision d = { 0 }, e;
	struct sbx_err err;
	unsigned char *m1, *m2;
	size_t l1, l2;
	char *text;

	snprintf(d.id, sizeof(d.id), "0123456789abcdef");
	memset(d.hash, 7, sizeof(d.hash));
	snprintf(d.verdict, sizeof(d.verdict), "approve");
	snprintf(d.reason, sizeof(d.reason), "ok");
	snprintf(d.approver, sizeof(d.approver), "alice");
	snprintf(d.key_id, sizeof(d.key_id), "0011223344556677");
	snprintf(d.nonce, sizeof(d.nonce), "%032d", 5);
	snprintf(d.scope, sizeof(d.scope), "exact");
	d.created = 100;
	d.expires = 200;
	text = decision_to_json(&d);
	ok(text && decision_from_json(text, strlen(text), &e, &err) == 0, "decision JSON round trip");
	decision_message(&d, &m1, &l1);
	decision_message(&e, &m2, &l2);
	ok(l1 == l2 && memcmp(m1, m2, l1) == 0, "the signed bytes survive the round trip");
	free(m2);
	e.remember = 1;
	decision_message(&e, &m2, &l2);
	ok(l1 != l2 || memcmp(m1, m2, l1) != 0, "the signed bytes bind the remember flag");
	free(m1);
	free(m2);
	free(text);
	ok(decision_from_json("{\"v\":1,\"extra\":1}", 17, &e, &err) < 0 &&
	    strstr(err.msg, "unknown key"), "unknown keys in a decision are refused");
	ok(decision_from_json("[]", 2, &e, &err) < 0, "a non-object decision is refused");
	text = decision_to_json(&d);
	char *p = strstr(text, "approve");
	memcpy(p, "APPROVE", 7);
	ok(decision_from_json(text, strlen(text), &e, &err) < 0, "an unknown verdict is refused");
	free(text);
}

static void
test_prefix(void)
{
	ok(prefix_valid("git push"), "two words make a prefix");
	ok(!prefix_valid("git"), "one word does not");
	ok(!prefix_valid("git push;"), "shell syntax is not a prefix");
	ok(!prefix_valid(" git push") && !prefix_valid("git push "), "no stray spaces");
	ok(prefix_covers("git push", "git push origin main"), "a prefix covers longer commands");
	ok(prefix_covers("git push", "git push"), "and itself");
	ok(!prefix_covers("git push", "git pushx"), "only at a word boundary");
	ok(!prefix_covers("git push", "git push && rm -rf ~"), "never a list");
	ok(!prefix_covers("git push", "git push $(rm -rf ~)"), "never a substitution");
	ok(!prefix_covers("git push", "git push | sh"), "never a pipe");
	ok(!prefix_covers("git push", "git push\nrm -rf ~"), "never a second line");
	ok(!prefix_covers("git push", NULL), "not a non-shell call");
}

static void
test_utf8(void)
{
	size_t used;
	char *s;

	s = utf8_clean("h\xc3\xa9llo", 6, 100, &used);
	is_str(s, "h\xc3\xa9llo", "valid UTF-8 passes");
	free(s);
	s = utf8_clean("a\xff" "b", 3, 100, NULL);
	is_str(s, "a\xef\xbf\xbd" "b", "an invalid byte becomes U+FFFD");
	free(s);
	s = utf8_clean("a\0b", 3, 100, NULL);
	is_str(s, "a\xef\xbf\xbd" "b", "NUL becomes U+FFFD");
	free(s);
	s = utf8_clean("ab\xc3\xa9", 4, 3, &used);
	is_str(s, "ab", "a cut never splits a character");
	is_int(used, 2, "and says how much was used");
	free(s);
	s = utf8_clean("\xed\xa0\x80", 3, 100, NULL);
	is_str(s, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "surrogates are invalid");
	free(s);
}

static void
test_files(void)
{
	char dir[] = "/tmp/sbx-unit.XXXXXX", *buf;
	struct sbx_err err;
	size_t len;
	int dfd, fd;

	ok(mkdtemp(dir) != NULL, "temp dir");
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	mkdirat(dfd, "tmp", 0700);
	mkdirat(dfd, "new", 0700);
	ok(write_atomic(dfd, "tmp", "new/a", "hello", 5, 0600, 1) == 0, "write_atomic writes");
	ok(write_atomic(dfd, "tmp", "new/a", "again", 5, 0600, 1) < 0 && errno == EEXIST,
	    "write_atomic with noreplace refuses to overwrite");
	/* The agent may swap a queue directory for a symlink (sbx jail). */
	mkdirat(dfd, "elsewhere", 0700);
	ok(symlinkat("elsewhere", dfd, "tmp2") == 0 && symlinkat("elsewhere", dfd, "new2") == 0,
	    "symlinked directories made");
	ok(write_atomic(dfd, "tmp2", "new/b", "x", 1, 0600, 1) < 0 &&
	    write_atomic(dfd, "tmp", "new2/b", "x", 1, 0600, 1) < 0,
	    "write_atomic follows no symlinked directory, for the temp file or the target");
	fd = openat(dfd, "elsewhere/b", O_RDONLY);
	ok(fd < 0 && faccessat(dfd, "new/b", F_OK, 0) < 0, "and wrote nothing anywhere");
	if (fd >= 0)
		close(fd);
	buf = read_untrusted(dfd, "new/a", 100, &len, &err);
	is_str(buf, "hello", "read_untrusted reads a regular file");
	free(buf);
	ok(read_untrusted(dfd, "new/a", 3, &len, &err) == NULL && strstr(err.msg, "too large"),
	    "read_untrusted enforces the size cap");
	ok(symlinkat("a", dfd, "new/link") == 0, "symlink made");
	ok(read_untrusted(dfd, "new/link", 100, &len, &err) == NULL && strstr(err.msg, "symlink"),
	    "read_untrusted never follows a symlink");
	ok(linkat(dfd, "new/a", dfd, "new/hard", 0) == 0, "hard link made");
	ok(read_untrusted(dfd, "new/hard", 100, &len, &err) == NULL &&
	    strstr(err.msg, "hard links"), "read_untrusted refuses hard links");
	mkfifoat(dfd, "new/fifo", 0600);
	ok(read_untrusted(dfd, "new/fifo", 100, &len, &err) == NULL &&
	    strstr(err.msg, "not a regular file"), "read_untrusted refuses a FIFO without blocking");
	/* errno says why, whatever an earlier call left: sbxd reads ENOENT as
	 * "already taken, stay quiet" and anything else as a rejection. */
	errno = ENOENT;
	ok(read_untrusted(dfd, "new/hard", 100, &len, &err) == NULL && errno == EMLINK,
	    "after a stale ENOENT, a refused hard link says EMLINK");
	errno = ENOENT;
	ok(read_untrusted(dfd, "new/fifo", 100, &len, &err) == NULL && errno == EINVAL,
	    "a refused FIFO says EINVAL");
	unlinkat(dfd, "new/hard", 0);
	errno = ENOENT;
	ok(read_untrusted(dfd, "new/a", 3, &len, &err) == NULL && errno == EFBIG,
	    "a refused oversize file says EFBIG");
	errno = ENOENT;
	ok(read_untrusted(dfd, "new/link", 100, &len, &err) == NULL && errno == ELOOP,
	    "a refused symlink says ELOOP");
	errno = 0;
	ok(read_untrusted(dfd, "new/none", 100, &len, &err) == NULL && errno == ENOENT,
	    "only a missing file says ENOENT");

	/* A directory on the way swapped for a symlink: nothing goes through. */
	{
		char last[64];
		long before = nf_refusals_count(NULL, 0);
		struct stat sst;
		int nfd;

		ok(mkdirat(dfd, "out", 0700) == 0 && mkdirat(dfd, "q", 0700) == 0 &&
		    symlinkat("../out", dfd, "q/results") == 0 &&
		    write_atomic(dfd, "tmp", "out/kept", "k", 1, 0600, 0) == 0,
		    "q/results is a symlink to out/");
		nfd = openat_nf(dfd, "q/results/x", O_WRONLY | O_CREAT, 0600);
		ok(nfd < 0 && (errno == ELOOP || errno == ENOTDIR),
		    "openat_nf refuses to create through it (ELOOP or ENOTDIR)");
		ok(faccessat(dfd, "out/x", F_OK, AT_SYMLINK_NOFOLLOW) < 0, "nothing was created in out/");
		ok(nf_refusals_count(last, sizeof(last)) == before + 1 && !strcmp(last, "q/results"),
		    "the refusal is counted, naming q/results");
		ok(unlinkat_nf(dfd, "q/results/kept", 0) < 0 &&
		    faccessat(dfd, "out/kept", F_OK, AT_SYMLINK_NOFOLLOW) == 0,
		    "unlinkat_nf removes nothing through it");
		ok(renameat_nf(dfd, "new/a", "q/results/a", 0) < 0 &&
		    faccessat(dfd, "new/a", F_OK, 0) == 0, "renameat_nf moves nothing into it");
		ok(fstatat_nf(dfd, "q/results/kept", &sst) < 0 && !exists_nf(dfd, "q/results/kept"),
		    "fstatat_nf and exists_nf see nothing through it");
		ok(read_untrusted(dfd, "q/results/kept", 100, &len, &err) == NULL && errno != ENOENT,
		    "read_untrusted reads nothing through it");
		ok(opendir_at(dfd, "q/results") == NULL, "opendir_at refuses it");
		ok(exists_nf(dfd, "q/results") && exists_nf(dfd, "out/kept"),
		    "the last component may be a symlink for exists_nf (it is not followed)");
		ok(nf_refusals_count(NULL, 0) >= before + 5, "each refusal is counted");
	}
	fd = openat(dfd, "big", O_WRONLY | O_CREAT, 0600);
	for (int i = 0; i < 100; i++)
		write_all(fd, "0123456789", 10);
	close(fd);
	fd = openat(dfd, "big", O_RDONLY);
	errno = 0;
	ok(fd_read_all(fd, 999, &len) == NULL && errno == EFBIG, "fd_read_all stops at its cap");
	close(fd);
	fd = openat(dfd, "big", O_RDONLY);
	buf = fd_read_all(fd, 1000, &len);
	ok(buf && len == 1000, "fd_read_all reads exactly up to its cap");
	free(buf);
	close(fd);
	close(dfd);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
}

/* Fuzzing found a decision whose "expires" (2^53 + 1) did not survive
 * its own round trip: integers are taken only while they print back. */
static void
test_json_int(void)
{
	static const struct { const char *text; int ok; int64_t want; } t[] = {
		{ "{\"n\": 999999999999999}", 1, 999999999999999LL },
		{ "{\"n\": -42}", 1, -42 },
		{ "{\"n\": 1000000000000000}", 0, 0 },
		{ "{\"n\": 9007199254740993}", 0, 0 },
		{ "{\"n\": 1.5}", 0, 0 },
		{ "{\"n\": \"7\"}", 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cJSON *o = cJSON_Parse(t[i].text);
		int64_t v = 0;
		int r = json_int(o, "n", &v);

		ok(t[i].ok ? r == 0 && v == t[i].want : r < 0, "json_int %s: %s", t[i].text,
		    t[i].ok ? "taken" : "refused");
		cJSON_Delete(o);
	}
}

/* Open descriptors of this process (to see that nothing leaks). */
static int
fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;   /* opendir's own */
}

/* The hook's start-up helpers (branch hookstart): the *_nf calls without
 * a dup of the directory, find_folder_resolved, trusted_key_named. */
static void
test_startup(void)
{
	char dir[] = "/tmp/sbx-unit.XXXXXX", path[PATH_MAX], out[PATH_MAX], id[17], cmd[64];
	unsigned char pk[32], sk[64];
	struct trusted_key key;
	struct sbx_err err = { "" };
	struct stat st;
	int dfd, fd, n0, kfd;

	ok(mkdtemp(dir) != NULL, "startup: temp dir");
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	mkdirat(dfd, "sub", 0700);
	n0 = fd_count();
	fd = openat_nf(dfd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ok(fd >= 0 && fd_count() == n0 + 1, "openat_nf of a plain name opens one fd, no other");
	close(fd);
	ok(fstatat_nf(dfd, "f", &st) == 0 && renameat_nf(dfd, "f", "sub/g", 0) == 0 &&
	    unlinkat_nf(dfd, "sub/g", 0) == 0 && fd_count() == n0,
	    "fstatat_nf, renameat_nf, unlinkat_nf leave no fd behind");
	fd = at_parent(dfd, "sub", &(const char *){ NULL });
	ok(fd >= 0 && fd != dfd && fd_count() == n0 + 1, "at_parent of a plain name is a new fd");
	if (fd >= 0)
		close(fd);
	errno = ENOENT;
	ok(openat_nf(-1, "f", O_RDONLY, 0) < 0 && errno == EBADF,
	    "a bad directory fd says EBADF, never a stale ENOENT");
	errno = ENOENT;
	ok(openat_nf(AT_FDCWD, "f", O_RDONLY, 0) < 0 && errno == EBADF &&
	    at_parent(AT_FDCWD, "sub/x", &(const char *){ NULL }) < 0 && errno == EBADF,
	    "AT_FDCWD is refused as before (EBADF), not read as the cwd");

	/* find_folder_resolved walks up from an already resolved path. */
	mkdirat(dfd, "proj", 0700);
	mkdirat(dfd, "proj/.sandbox", 0700);
	mkdirat(dfd, "proj/a", 0700);
	mkdirat(dfd, "proj/a/b", 0700);
	snprintf(path, sizeof(path), "%s/proj/a/b", dir);
	ok(find_folder_resolved(path, out, sizeof(out)) == 0 &&
	    !strcmp(out + strlen(dir), "/proj"), "find_folder_resolved finds the folder above");
	errno = 0;
	ok(find_folder_resolved("proj/a", out, sizeof(out)) < 0 && errno == EINVAL,
	    "a relative path is refused (EINVAL)");
	mkdirat(dfd, "fake", 0700);
	mkdirat(dfd, "fake/c", 0700);
	ok(symlinkat("../proj/.sandbox", dfd, "fake/.sandbox") == 0, "fake/.sandbox is a symlink");
	snprintf(path, sizeof(path), "%s/fake/c", dir);
	ok(find_folder_resolved(path, out, sizeof(out)) < 0 ||
	    strncmp(out, dir, strlen(dir)) != 0, "a symlinked .sandbox is not a folder");

	/* trusted_key_named reads approvers/NAME.pub only. */
	crypto_sign_keypair(pk, sk);
	key_id_of(pk, id);
	mkdirat(dfd, "approvers", 0700);
	kfd = openat(dfd, "approvers/alice.pub", O_WRONLY | O_CREAT | O_EXCL, 0644);
	{
		char hex[65];

		hex_encode(hex, pk, 32);
		write_all(kfd, hex, 64);
		write_all(kfd, "\n", 1);
		close(kfd);
	}
	ok(trusted_key_named(dir, "alice", id, &key, &err) == 1 && !strcmp(key.name, "alice") &&
	    !memcmp(key.pk, pk, 32), "trusted_key_named finds alice's key by her name");
	ok(trusted_key_named(dir, "alice", "0000000000000000", &key, &err) == 0,
	    "another key id: not found");
	ok(trusted_key_named(dir, "bob", id, &key, &err) == 0, "no bob.pub: not found");
	ok(trusted_key_named(dir, "../approvers/alice", id, &key, &err) == 0 &&
	    trusted_key_named(dir, ".alice", id, &key, &err) == 0,
	    "a name that is no approver name is not looked up");
	ok(renameat(dfd, "approvers/alice.pub", dfd, "alice.pub") == 0 &&
	    symlinkat("../alice.pub", dfd, "approvers/alice.pub") == 0 &&
	    trusted_key_named(dir, "alice", id, &key, &err) < 0,
	    "a symlinked key file is an error, not a key");
	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ok(system(cmd) == 0, "startup: cleanup");
}

int
main(void)
{
	if (sodium_init() < 0)
		return 1;
	test_startup();
	test_canonical();
	test_json_int();
	test_hex_names();
	test_request_hash();
	test_decision();
	test_prefix();
	test_utf8();
	test_files();
	return tap_done();
}
