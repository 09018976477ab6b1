/*
 * cmd_accept.c - `sbx policy accept` and `sbx policy edit`: a human
 * accepts policy.json; the hook and sbxd use no other. accept signs the
 * hash of the file's bytes with the approver key (common/trust/accept.h);
 * edit works like visudo: edit a copy, validate it, install, accept.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/cmd.h"
#include "approver/sign.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"
#include "common/trust/accept.h"
#include "policy/policy.h"

/*
 * Raises the folder's rollback floor (common/trust/accept.h) to t before the
 * acceptance is written: a crash between the two leaves the older
 * acceptance refused (fail closed), never a newer one unrecorded.
 */
static int
floor_write(const char *config, const char *folder, int64_t t, struct sbx_err *err)
{
	char dir[PATH_MAX], name[33], *out = NULL;
	cJSON *doc = cJSON_CreateObject();
	int dfd = -1, rc = -1;

	accept_floor_name(folder, name);
	if (xsnprintf(dir, sizeof(dir), "%s/%s", config, SBX_FLOOR_DIR) < 0 ||
	    mkdir_p(dir, 0755) < 0 ||
	    (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		err_set(err, "cannot make %s/%s: %s", config, SBX_FLOOR_DIR, strerror(errno));
		goto out;
	}
	if (!doc || !cJSON_AddStringToObject(doc, "folder", folder) ||
	    !cJSON_AddNumberToObject(doc, "time", (double)t) || !(out = json_print_line(doc))) {
		err_set(err, "out of memory");
		goto out;
	}
	if (write_atomic(dfd, ".", name, out, strlen(out), 0644, 0) < 0) {
		err_set(err, "cannot write %s/%s/%s: %s", config, SBX_FLOOR_DIR, name,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (dfd >= 0)
		close(dfd);
	free(out);
	cJSON_Delete(doc);
	return rc;
}

int
policy_accept_write(const char *config, const char *folder, struct sbx_err *err)
{
	unsigned char hash[32], sig[64], *msg = NULL;
	char hex[65], sighex[129], why[300], *text = NULL, *out = NULL;
	struct policy_error perr;
	struct approver_key key;
	struct policy *p;
	int64_t now = now_ms() / 1000, floor = 0;
	size_t len, mlen;
	cJSON *doc = NULL;
	int sbfd = -1, rc = -1;

	/* What is signed is read through the .sandbox the acceptance is
	 * written into (one open of the path): in a handed-over folder the
	 * agent owns the folder and could swap a .sandbox of its own in
	 * for the read alone (t291). */
	if ((sbfd = sandbox_open(folder, err)) < 0)
		return -1;
	if (!(p = policy_load_at(sbfd, folder, config, &perr, &text, &len))) {
		close(sbfd);
		err_set(err, "%s; not accepted", perr.msg);
		return -1;
	}
	policy_free(p);
	crypto_generichash(hash, sizeof(hash), (unsigned char *)text, len, NULL, 0);
	free(text);
	/* Acceptance times only move forward for a folder, even when the
	 * clock does not or two come within a second: an older pair put
	 * back is then always older than the record. An unreadable record
	 * is replaced: accepting is the human's way back. */
	if (accept_floor_read(config, folder, &floor, why, sizeof(why)) == 0 && floor >= now)
		now = floor + 1;
	if (approver_key_load(config, &key, err) < 0)
		goto fail;
	if (accept_message(hash, key.name, key.key_id, now, folder, &msg, &mlen) < 0) {
		approver_key_wipe(&key);
		err_set(err, "out of memory");
		goto fail;
	}
	crypto_sign_detached(sig, NULL, msg, mlen, key.sk);
	free(msg);
	hex_encode(hex, hash, 32);
	hex_encode(sighex, sig, 64);
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "v", 1);
	cJSON_AddStringToObject(doc, "hash", hex);
	cJSON_AddStringToObject(doc, "approver", key.name);
	cJSON_AddStringToObject(doc, "key_id", key.key_id);
	cJSON_AddNumberToObject(doc, "time", (double)now);
	cJSON_AddStringToObject(doc, "sig", sighex);
	approver_key_wipe(&key);
	if (!(out = json_print_line(doc)) || floor_write(config, folder, now, err) < 0)
		goto fail;
	if (write_atomic(sbfd, "decisions/tmp", SBX_ACCEPTED_FILE, out, strlen(out), 0644, 0) < 0) {
		err_set(err, "cannot write %s/.sandbox/%s: %s", folder, SBX_ACCEPTED_FILE,
		    strerror(errno));
		goto fail;
	}
	rc = 0;
fail:
	if (sbfd >= 0)
		close(sbfd);
	free(out);
	cJSON_Delete(doc);
	return rc;
}

static int
accept(const struct sbx_ctx *c, const char *folder)
{
	struct sbx_err err;

	if (policy_accept_write(c->config, folder, &err) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	printf("accepted %s/.sandbox/policy.json; the hook and sbxd use it from now on\n",
	    folder);
	return 0;
}

/* Runs $VISUAL / $EDITOR / vi on path; 0 when it exited 0. */
static int
run_editor(const char *path)
{
	const char *ed = getenv("VISUAL");
	int status;
	pid_t pid;

	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "exec $0 \"$1\"", ed, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int
edit(const struct sbx_ctx *c, const char *folder)
{
	char dir[] = "/tmp/sbx-policy.XXXXXX", path[64], answer[16];
	struct policy_error perr;
	struct sbx_err err;
	struct policy *p;
	size_t len, olen;
	char *text = NULL, *orig = NULL;
	int fd, sbfd, rc = 1;
	FILE *tty;

	if ((sbfd = sandbox_open(folder, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	orig = read_untrusted(sbfd, "policy.json", 1 << 20, &olen, &err);
	if (!orig || !mkdtemp(dir)) {
		fprintf(stderr, "sbx: %s\n", orig ? strerror(errno) : err.msg);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/policy.json", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0 ||
	    write_all(fd, orig, olen) < 0 || close(fd) < 0) {
		fprintf(stderr, "sbx: cannot write %s: %s\n", path, strerror(errno));
		goto out;
	}
	for (;;) {
		if (run_editor(path) < 0) {
			fprintf(stderr, "sbx: the editor failed; policy.json is unchanged\n");
			goto out;
		}
		free(text);
		if ((fd = open(path, O_RDONLY)) < 0 || !(text = fd_read_all(fd, 1 << 20, &len))) {
			fprintf(stderr, "sbx: cannot read %s\n", path);
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
		if ((p = policy_load_buffer("policy.json", text, len, folder, c->config, &perr))) {
			policy_free(p);
			break;
		}
		fprintf(stderr, "sbx: %s\n", perr.msg);
		tty = fopen("/dev/tty", "r");
		fprintf(stderr, "edit again? [Y/n] ");
		if (!tty || !fgets(answer, sizeof(answer), tty) || answer[0] == 'n' ||
		    answer[0] == 'N') {
			if (tty)
				fclose(tty);
			fprintf(stderr, "sbx: policy.json is unchanged\n");
			goto out;
		}
		fclose(tty);
	}
	if (len == olen && !memcmp(text, orig, len)) {
		printf("no changes\n");
	} else if (write_atomic(sbfd, "decisions/tmp", "policy.json", text, len,
	    sandbox_file_mode(sbfd), 0) < 0) {
		fprintf(stderr, "sbx: cannot install policy.json: %s\n", strerror(errno));
		goto out;
	}
	rc = accept(c, folder);
out:
	unlink(path);
	rmdir(dir);
	free(text);
	free(orig);
	close(sbfd);
	return rc;
}

int
cmd_policy_accept(struct sbx_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = { SBX_OPTS_COMMON, { NULL, 0, NULL, 0 } };
	char folder[PATH_MAX];
	int ch;

	while ((ch = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (ch != 'C')
			return sub_usage("usage: sbx [-C DIR] policy accept | edit\n", ch == 'h');
		c->dir = optarg;
	}
	/* argv[0] is "policy": one operand, accept or edit */
	if (optind != argc - 1)
		return sub_usage("usage: sbx [-C DIR] policy accept | edit\n", 0);
	argv += optind - 1;
	if (ctx_folder(c, folder, sizeof(folder)) < 0)
		return 1;
	return !strcmp(argv[1], "edit") ? edit(c, folder) : accept(c, folder);
}
