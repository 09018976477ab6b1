/*
 * event.c - events for the audit log: queue/events (the agent side:
 * post_tool_use) and proxy/events (sbx-proxy: network_connection).
 *
 * Rules:
 * - MUST read an event only through read_untrusted(), accept only known
 *   keys of the right types, and only from its own box; anything else
 *   is moved to rejected/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"
#include "daemon/audit.h"
#include "daemon/folder.h"

struct event_key {
	const char *key;
	int type;
};

/* The entry of keys (ended by a NULL key) named k, or NULL. */
static const struct event_key *
key_find(const struct event_key *keys, const char *k)
{
	for (; keys->key; keys++)
		if (strcmp(keys->key, k) == 0)
			return keys;
	return NULL;
}

/*
 * An event for the audit log: BOX/ID.json (16 hex digits), at most
 * SBX_MAX_EVENT bytes, read with read_untrusted(). BOX is queue/events
 * (the agent side: post_tool_use) or proxy/events (sbx-proxy, outside the
 * jail, which cannot write there: network_connection); each box takes
 * only its own kind. Only known keys of the right types are accepted, and
 * only they reach the log; anything else is moved to rejected/ like a
 * bad request.
 */
static void
event_from(struct folder *f, const char *box, const char *name)
{
	/* Every event's envelope, then the keys of its kind. */
	static const struct event_key common_keys[] = {
		{ "v", cJSON_Number }, { "kind", cJSON_String }, { "agent", cJSON_String },
		{ "session_id", cJSON_String }, { "time", cJSON_Number },
		{ "error", cJSON_String }, { NULL, 0 },
	};
	static const struct event_key post_keys[] = {
		{ "tool_use_id", cJSON_String }, { "tool", cJSON_String }, { "cwd", cJSON_String },
		{ "path", cJSON_String }, { "before", cJSON_String }, { "after", cJSON_String },
		{ "command", cJSON_String }, { "exit_code", cJSON_Number },
		{ "interrupted", cJSON_True | cJSON_False }, { "input_error", cJSON_String },
		{ NULL, 0 },
	};
	/* sbx-proxy: one per connection, allowed or not. */
	static const struct event_key net_keys[] = {
		{ "method", cJSON_String }, { "host", cJSON_String }, { "port", cJSON_Number },
		{ "verdict", cJSON_String }, { "rule", cJSON_String }, { "reason", cJSON_String },
		{ "request", cJSON_String }, { "bytes_up", cJSON_Number },
		{ "bytes_down", cJSON_Number }, { "duration_ms", cJSON_Number }, { NULL, 0 },
	};
	const struct event_key *ek;
	char id[SBX_ID_LEN + 1], path[512];
	struct sbx_err err = { "" };
	const char *kind, *h;
	cJSON *doc = NULL, *c, *data = NULL;
	size_t len;
	char *text;
	int64_t v;
	int is_net, from_proxy = strcmp(box, "proxy/events") == 0;

	if (name[0] == '.')
		return;
	if (!valid_request_name(name, id)) {
		folder_reject(f, box, name, "not an event file name (want 16 hex digits"
		    " + .json)");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", box, name);
	/* Gone (an earlier pass took it): quiet. Anything else - a symlink,
	 * hard links, too large, another owner - is rejected, whatever
	 * errno an earlier call left (read_untrusted() sets it exactly). */
	if (!(text = read_untrusted_as(f->sbfd, path, SBX_MAX_EVENT, &len,
	    sandbox_peer(f->sbfd), &err))) {
		if (errno != ENOENT)
			folder_reject(f, box, name, err.msg);
		else
			(void)folder_gone_quietly(f, box, name);
		return;
	}
	doc = cJSON_ParseWithLength(text, len);
	free(text);
	kind = json_str(doc, "kind");
	is_net = kind && strcmp(kind, "network_connection") == 0;
	if (!cJSON_IsObject(doc) || json_int(doc, "v", &v) < 0 || v != 1 || !kind ||
	    is_net != from_proxy || (is_net ? !json_str(doc, "verdict") ||
	    !json_str(doc, "host") : strcmp(kind, "post_tool_use") != 0 ||
	    !json_str(doc, "tool"))) {
		folder_reject(f, box, name, from_proxy ? "not a proxy event (want an object "
		    "with v 1, kind \"network_connection\", host and verdict)" : "not an event "
		    "(want an object with v 1, kind \"post_tool_use\" and tool; connection "
		    "records come only from sbx-proxy's own drop box)");
		goto out;
	}
	for (c = doc->child; c; c = c->next) {
		if (!(ek = key_find(common_keys, c->string)))
			ek = key_find(is_net ? net_keys : post_keys, c->string);
		if (!ek || !(c->type & ek->type)) {
			snprintf(err.msg, sizeof(err.msg), "unknown key or wrong type: \"%.40s\"",
			    c->string);
			folder_reject(f, box, name, err.msg);
			goto out;
		}
	}
	if (((h = json_str(doc, "before")) && !is_hex(h, 64)) ||
	    ((h = json_str(doc, "after")) && !is_hex(h, 64))) {
		folder_reject(f, box, name, "before/after must be 64 hex digits");
		goto out;
	}
	/* A connection names the request that asked for it, if any. */
	if ((h = json_str(doc, "request")) && !valid_id(h)) {
		folder_reject(f, box, name, "request must be 16 hex digits");
		goto out;
	}
	if (!(data = cJSON_Duplicate(doc, 1))) {
		folder_reject(f, box, name, "out of memory");
		goto out;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(data, "v");
	cJSON_DeleteItemFromObjectCaseSensitive(data, "kind");
	cJSON_DeleteItemFromObjectCaseSensitive(data, "session_id");
	cJSON_DeleteItemFromObjectCaseSensitive(data, "request");
	if ((c = cJSON_DetachItemFromObjectCaseSensitive(data, "time"))) {
		/* The agent's clock, not ours: kept under its own name. */
		cJSON_AddItemToObject(data, "agent_time", c);
	}
	/* Not written (a full disk): the file stays, read again on the next
	 * rescan or start, so the record is late, never lost. */
	if (audit_append(f->audit, kind, json_str(doc, "request"), json_str(doc, "session_id"),
	    is_net ? "proxy" : "hook", data) < 0) {
		logf_folder(f, "cannot write an audit record for event %s: kept in %s", name, box);
		goto out;
	}
	if (unlinkat_nf(f->sbfd, path, 0) < 0)
		logf_folder(f, "cannot remove %s: %s", path, strerror(errno));
out:
	cJSON_Delete(doc);
}

void
folder_event(struct folder *f, const struct daemon_opts *o, const char *name)
{
	(void)o;
	event_from(f, "queue/events", name);
}

void
folder_proxy_event(struct folder *f, const struct daemon_opts *o, const char *name)
{
	(void)o;
	event_from(f, "proxy/events", name);
}
