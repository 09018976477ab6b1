/*
 * reqgen - bench tool: writes N valid Bash requests ("true # PREFIX-i")
 * into FOLDER/.sandbox/queue/tmp as staged-ID.json (untimed), then
 * `reqgen --release FOLDER` renames every staged file into queue/new as
 * fast as it can: a burst like that of many hooks at once.
 *
 *   reqgen FOLDER N PREFIX
 *   reqgen --release FOLDER
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/protocol/queue.h"

int
main(int argc, char **argv)
{
	unsigned char h[SBX_HASH_LEN];
	char hex[2 * SBX_HASH_LEN + 1], id[SBX_ID_LEN + 1], cmd[128], dst[64], *text;
	struct sbx_err err;
	cJSON *doc, *input;
	long i, n;
	int sbfd, fd;

	if (argc == 3 && !strcmp(argv[1], "--release")) {
		struct dirent *de;
		char from[300], to[300];
		DIR *d;
		long k = 0;

		if ((sbfd = sandbox_open(argv[2], &err)) < 0 || !(d = opendir_at(sbfd, "queue/tmp")))
			return 1;
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "staged-", 7) != 0)
				continue;
			snprintf(from, sizeof(from), "queue/tmp/%s", de->d_name);
			snprintf(to, sizeof(to), "queue/new/%s", de->d_name + 7);
			if (renameat(sbfd, from, sbfd, to) == 0)
				k++;
		}
		closedir(d);
		printf("%ld\n", k);
		return 0;
	}
	if (argc != 4 || sodium_init() < 0) {
		fprintf(stderr, "usage: reqgen FOLDER N PREFIX\n");
		return 2;
	}
	n = atol(argv[2]);
	if ((sbfd = sandbox_open(argv[1], &err)) < 0) {
		fprintf(stderr, "reqgen: %s\n", err.msg);
		return 1;
	}
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "true # %s-%ld", argv[3], i);
		input = cJSON_CreateObject();
		cJSON_AddStringToObject(input, "command", cmd);
		if (request_hash("Bash", input, argv[1], argv[1], h) < 0)
			return 1;
		hex_encode(hex, h, sizeof(h));
		request_id_make(h, id);
		doc = cJSON_CreateObject();
		cJSON_AddNumberToObject(doc, "v", 1);
		cJSON_AddStringToObject(doc, "id", id);
		cJSON_AddStringToObject(doc, "hash", hex);
		cJSON_AddNumberToObject(doc, "created", (double)(now_ms() / 1000));
		cJSON_AddStringToObject(doc, "agent", "bench");
		cJSON_AddStringToObject(doc, "session_id", "bench");
		cJSON_AddStringToObject(doc, "tool_use_id", "bench");
		cJSON_AddStringToObject(doc, "tool", "Bash");
		cJSON_AddItemToObject(doc, "input", input);
		cJSON_AddStringToObject(doc, "folder", argv[1]);
		cJSON_AddStringToObject(doc, "cwd", argv[1]);
		cJSON_AddStringToObject(doc, "trigger", "bench");
		cJSON_AddStringToObject(doc, "rule", "bench");
		cJSON_AddStringToObject(doc, "reason", "bench");
		text = json_print_line(doc);
		snprintf(dst, sizeof(dst), "queue/tmp/staged-%s.json", id);
		/* Staging is not timed and needs no fsync. */
		fd = text ? openat(sbfd, dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
		if (fd < 0 || write_all(fd, text, strlen(text)) < 0 || close(fd) < 0) {
			perror("reqgen: write");
			return 1;
		}
		free(text);
		cJSON_Delete(doc);
	}
	close(sbfd);
	return 0;
}
