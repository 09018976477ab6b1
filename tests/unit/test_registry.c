/*
 * test_registry.c - common/protocol/registry.c: the folders `sbx init`
 * recorded, read in one read (registry_read), with every line accounted
 * for: a line that is not an absolute path, or too long to be one, is an
 * error that names it, never skipped.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/protocol/registry.h"
#include "tests/tap.h"

static char dir[64];

static void
write_registry(const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/folders", dir);
	if ((f = fopen(path, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

int
main(void)
{
	char (*list)[4096] = NULL, *longline;
	struct sbx_err err = { "" };
	int n;

	snprintf(dir, sizeof(dir), "/tmp/sbx-unit-registry.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	n = registry_read(dir, &list, &err);
	ok(n == 0 && list == NULL, "no registry file: no folders, no error");
	ok(registry_add(dir, "/a/one", &err) == 1 && registry_add(dir, "/b/two", &err) == 1 &&
	    registry_add(dir, "/a/one", &err) == 0, "registry_add records each folder once");
	n = registry_read(dir, &list, &err);
	is_int(n, 2, "both are read");
	ok(n == 2 && !strcmp(list[0], "/a/one") && !strcmp(list[1], "/b/two"), "in order");
	free(list);
	write_registry("/a/one\n\n/b/two\n/c/three");
	n = registry_read(dir, &list, &err);
	ok(n == 3 && !strcmp(list[2], "/c/three"), "empty lines are skipped; a last line "
	    "without a newline counts");
	free(list);
	write_registry("/a/one\nrelative/path\n");
	list = NULL;
	is_int(registry_read(dir, &list, &err), -1, "a line that is not an absolute path is an error");
	ok(strstr(err.msg, "line 2 is not an absolute path") != NULL, "naming the line: %s", err.msg);
	ok(list == NULL, "and returns no list");
	longline = malloc(5002);
	memset(longline, 'x', 5001);
	longline[0] = '/';
	longline[5001] = '\0';
	write_registry("/a/one\n");
	{
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), "%s/folders", dir);
		if ((f = fopen(path, "a"))) {
			fprintf(f, "%s\n/b/two\n", longline);
			fclose(f);
		}
	}
	is_int(registry_read(dir, &list, &err), -1, "a line too long for a path is an error, "
	    "not skipped");
	ok(strstr(err.msg, "line 2 is too long") != NULL, "naming the line: %.80s", err.msg);
	free(longline);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
	}
	return tap_done();
}
