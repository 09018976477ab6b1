/*
 * cmd_approvers.c - `sbx approvers list | add NAME PUBKEY | rm NAME |
 * self`: the approver keys sbxd trusts (CONFIG/approvers/NAME.pub).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "approver/cmd.h"
#include "approver/sign.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/trust/keys.h"

#define USAGE "usage: sbx approvers list [--json] | add NAME PUBKEY | rm NAME | self\n"

static int
usage(int help)
{
	return sub_usage(USAGE, help);
}

static int
list(const struct sbx_ctx *c, int json)
{
	char path[4200], name[64], id[17];
	unsigned char pk[32];
	struct approver_key me;
	struct sbx_err err;
	struct dirent *de;
	cJSON *arr = cJSON_CreateArray(), *o;
	int mine, n = 0;
	size_t len;
	DIR *d;

	mine = approver_key_load(c->config, &me, &err) == 0;
	snprintf(path, sizeof(path), "%s/%s", c->config, SBX_TRUSTED_DIR);
	if ((d = opendir(path))) {
		while ((de = readdir(d))) {
			len = strlen(de->d_name);
			if (len < 5 || len - 4 >= sizeof(name) ||
			    strcmp(de->d_name + len - 4, ".pub") != 0)
				continue;
			memcpy(name, de->d_name, len - 4);
			name[len - 4] = '\0';
			if (!valid_name(name) || key_read_public(dirfd(d), de->d_name, pk, &err) < 0)
				continue;
			key_id_of(pk, id);
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", name);
			cJSON_AddStringToObject(o, "key_id", id);
			cJSON_AddBoolToObject(o, "self", mine && !strcmp(id, me.key_id));
			cJSON_AddItemToArray(arr, o);
			if (!json)
				printf("%-20s %s%s\n", name, id,
				    mine && !strcmp(id, me.key_id) ? "  (this key)" : "");
			n++;
		}
		closedir(d);
	}
	if (json) {
		char *s = cJSON_Print(arr);

		printf("%s\n", s ? s : "[]");
		free(s);
	} else if (n == 0) {
		printf("no trusted approver keys in %s (sbxd rejects every decision)\n", path);
	}
	cJSON_Delete(arr);
	if (mine)
		approver_key_wipe(&me);
	return 0;
}

int
cmd_approvers(struct sbx_ctx *c, int argc, char **argv)
{
	char path[4200], text[80], id[17];
	unsigned char pk[32];
	struct approver_key me;
	struct sbx_err err;
	int dfd, fd, n, json;

	if ((n = sub_opts_json(c, argc, argv, USAGE, &json)) >= 0)
		return n;
	/* The operands, as argv[1..]: the verb and its words. */
	argv += optind - 1;
	argc -= optind - 1;
	if (argc < 2 || !strcmp(argv[1], "list"))
		return argc <= 2 ? list(c, json) : usage(0);
	if (json)
		return usage(0);
	if (!strcmp(argv[1], "self") && argc == 2) {
		if (approver_key_load(c->config, &me, &err) < 0) {
			fprintf(stderr, "sbx: %s\n", err.msg);
			return 1;
		}
		hex_encode(text, me.pk, 32);
		/* What another host's `sbx approvers add` takes. */
		printf("%s %s\n", me.name, text);
		approver_key_wipe(&me);
		return 0;
	}
	if (!strcmp(argv[1], "add") && argc == 4) {
		if (!valid_name(argv[2])) {
			fprintf(stderr, "sbx: invalid name \"%s\" (letters, digits, . _ -)\n", argv[2]);
			return 2;
		}
		if (hex_decode(pk, 32, argv[3]) < 0) {
			fprintf(stderr, "sbx: PUBKEY must be 64 hex digits (`sbx approvers self` "
			    "prints it on the approver's machine)\n");
			return 2;
		}
		snprintf(path, sizeof(path), "%s/%s", c->config, SBX_TRUSTED_DIR);
		if (mkdir_p(path, 0700) < 0 || (dfd = open(path, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0) {
			fprintf(stderr, "sbx: cannot open %s: %s\n", path, strerror(errno));
			return 1;
		}
		snprintf(path, sizeof(path), "%s.pub", argv[2]);
		n = snprintf(text, sizeof(text), "%s\n", argv[3]);
		fd = openat(dfd, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || write_all(fd, text, (size_t)n) < 0 || fsync(fd) < 0) {
			fprintf(stderr, "sbx: cannot add %s: %s\n", argv[2], errno == EEXIST
			    ? "an approver of that name exists (rm it first)" : strerror(errno));
			if (fd >= 0)
				close(fd);
			close(dfd);
			return 1;
		}
		close(fd);
		close(dfd);
		key_id_of(pk, id);
		printf("sbxd now trusts %s (key %s)\n", argv[2], id);
		return 0;
	}
	if (!strcmp(argv[1], "rm") && argc == 3) {
		if (!valid_name(argv[2]))
			return usage(0);
		snprintf(path, sizeof(path), "%s/%s/%s.pub", c->config, SBX_TRUSTED_DIR, argv[2]);
		if (unlink(path) < 0) {
			fprintf(stderr, "sbx: cannot remove %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		printf("sbxd no longer trusts %s; its pending decisions will be rejected\n", argv[2]);
		return 0;
	}
	return usage(0);
}
