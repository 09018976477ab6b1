/*
 * fuzz_decision - decision files (.sandbox/decisions/new/ID.NONCE.json):
 * the input through decision_from_json(), the strict parser sbxd uses
 * before it checks a signature. What it accepts must survive its own
 * round trip: decision_to_json() then decision_from_json() gives the
 * same decision and the same signed bytes (decision_message()).
 */
#include "tests/fuzz/fuzz.h"
#include "common/protocol/queue.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	if (sodium_init() < 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct decision d, d2;
	struct sbx_err err = { "" };
	unsigned char *m1 = NULL, *m2 = NULL;
	size_t n1 = 0, n2 = 0;
	char *text;

	if (size > SBX_MAX_DECISION)
		return -1;              /* sbxd never reads more (read_untrusted) */
	if (decision_from_json((const char *)data, size, &d, &err) < 0) {
		if (!err.msg[0])
			abort();        /* a refusal says why */
		return 0;
	}
	if (!(text = decision_to_json(&d)))
		return 0;
	if (decision_from_json(text, strlen(text), &d2, &err) < 0) {
		fprintf(stderr, "round trip refused: %s\n%s\n", err.msg, text);
		abort();
	}
	if (decision_message(&d, &m1, &n1) < 0 || decision_message(&d2, &m2, &n2) < 0 ||
	    n1 != n2 || memcmp(m1, m2, n1) != 0 || memcmp(d.sig, d2.sig, sizeof(d.sig)) != 0) {
		fprintf(stderr, "round trip changed the decision:\n%s\n", text);
		abort();
	}
	free(m1);
	free(m2);
	free(text);
	return 0;
}
