/*
 * fault.h - named crash points for the fault tests.
 *
 * In a build with -DSBX_FAULTS (build/tests/tools/sbxd-faults, never
 * installed) FAULT("name") kills sbxd with SIGKILL when $SBX_FAULT
 * names that step, so a test can crash it exactly between two steps.
 * In every other build it is nothing.
 */
#ifndef SBX_FAULT_H
#define SBX_FAULT_H

#ifdef SBX_FAULTS
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#define FAULT(name) do {						\
	const char *fault_ = getenv("SBX_FAULT");			\
	if (fault_ && strcmp(fault_, (name)) == 0)			\
		raise(SIGKILL);						\
} while (0)
#else
#define FAULT(name) do { } while (0)
#endif

#endif
