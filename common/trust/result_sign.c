/*
 * result_sign.c - sbxd's signature on a result file; see result_sig.h.
 * Alone in its object so that only sbxd links the signing code.
 */
#include <stdlib.h>

#include <sodium.h>

#include "common/base/util.h"
#include "common/trust/result_sig.h"

int
result_sig_add(cJSON *r, const unsigned char sk[64])
{
	unsigned char sig[64], *msg;
	char hex[129];
	size_t len;

	if (!(msg = result_sig_message(r, &len)))
		return -1;
	crypto_sign_detached(sig, NULL, msg, len, sk);
	free(msg);
	hex_encode(hex, sig, sizeof(sig));
	cJSON_DeleteItemFromObjectCaseSensitive(r, "sig");
	return cJSON_AddStringToObject(r, "sig", hex) ? 0 : -1;
}
