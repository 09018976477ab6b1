/*
 * fuzz_audit - audit record parsing (common/audit/audit_record.c), what
 * `sbx audit verify` does with a log someone may have edited: the input
 * is a log; each line goes through audit_line_check(), the whole through
 * audit_verify() (split into two segments at a form feed, if any), and
 * JSON text through audit_checkpoint_from_json() and back.
 */
#include "tests/fuzz/fuzz.h"
#include "common/audit/audit_record.h"

static unsigned char pk[32];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned char sk[64];

	(void)argc; (void)argv;
	if (sodium_init() < 0)
		abort();
	crypto_sign_keypair(pk, sk);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *p, *e, *why;
	struct audit_checkpoint cp;
	struct audit_report rep;
	struct audit_seg segs[2];
	struct audit_line al;
	const uint8_t *ff;
	cJSON *o;
	int n = 1, rc;

	if (size > 4 * AUDIT_MAX_LINE)
		return -1;
	for (p = buf; p < buf + size; p = e + 1) {
		if (!(e = memchr(p, '\n', (size_t)(buf + size - p))))
			e = buf + size;
		why = NULL;
		rc = audit_line_check(p, (size_t)(e - p), &al, &why);
		if (rc < -1 || rc > 1 || (rc == -1 && !why))
			abort();
	}
	segs[0] = (struct audit_seg){ "audit.jsonl", buf, size };
	if ((ff = memchr(data, '\f', size))) {
		segs[0] = (struct audit_seg){ "audit.000001.jsonl", buf, (size_t)(ff - data) };
		segs[1] = (struct audit_seg){ "audit.jsonl", (const char *)ff + 1,
			size - (size_t)(ff - data) - 1 };
		n = 2;
	}
	memset(&rep, 0, sizeof(rep));
	if (audit_verify(segs, n, pk, NULL, &rep) < 0 && !rep.kind[0])
		abort();
	memset(&rep, 0, sizeof(rep));
	(void)audit_verify(segs, n, NULL, NULL, &rep);
	if ((o = cJSON_ParseWithLength(buf, size))) {
		if (audit_checkpoint_from_json(o, &cp) == 0) {
			(void)audit_checkpoint_verify(&cp, pk);
			cJSON *o2 = cJSON_CreateObject();
			if (o2 && audit_checkpoint_to_json(&cp, o2) < 0)
				abort();
			cJSON_Delete(o2);
		}
		cJSON_Delete(o);
	}
	return 0;
}
