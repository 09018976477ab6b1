/*
 * cmd_policy.h - `sbx policy`: check commands against the effective
 * policy, and show it.
 *
 *   sbx [-C DIR] policy check [--json] [--cwd DIR] -- COMMAND...
 *   sbx [-C DIR] policy check --batch FILE|-
 *   sbx [-C DIR] policy check --hook-json FILE|-
 *   sbx [-C DIR] policy show
 *
 * argv[0] is "policy". folder is the resolved project folder, or NULL
 * when none was found (then the built-in defaults are used and stderr
 * says so). Returns the exit code: 0 whenever a verdict (or the policy)
 * was printed, 1 when the policy or the input cannot be read, 2 for a
 * usage error. Errors go to stderr prefixed "sbx: ".
 */
#ifndef SBX_CMD_POLICY_H
#define SBX_CMD_POLICY_H

int cmd_policy(int argc, char **argv, const char *folder,
    const char *config_dir);

#endif
