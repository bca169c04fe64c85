// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The netmux phase table (upstream's tests/profile phases) and --phase parsing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/phases.h"

static const char *const names[MUXBPF_PHASE__COUNT] = {
	[MUXBPF_PHASE_NONE] = "outside",
	[MUXBPF_PHASE_BOOT] = "boot",
	[MUXBPF_PHASE_CREATE] = "create",
	[MUXBPF_PHASE_ATTRWRITE] = "attrwrite",
	[MUXBPF_PHASE_DUMP] = "dump",
	[MUXBPF_PHASE_ATTRREAD] = "attrread",
	[MUXBPF_PHASE_IDLE] = "idle",
	[MUXBPF_PHASE_DISPATCH] = "dispatch",
	[MUXBPF_PHASE_SOFTCODE_ARITH] = "softcode_arith",
	[MUXBPF_PHASE_SOFTCODE_LIST] = "softcode_list",
};

/* Names of the phases marked from outside (attach mode, --control, --interval), by id. */
static char custom[MUXBPF_MAX_PHASES][PHASE_NAME_MAX + 1];

int phase_set_name(unsigned int id, const char *name)
{
	if (id < MUXBPF_PHASE__COUNT || id >= MUXBPF_MAX_PHASES || !name || !*name ||
	    strlen(name) > PHASE_NAME_MAX)
		return -EINVAL;
	snprintf(custom[id], sizeof(custom[id]), "%s", name);
	return 0;
}

const char *phase_name(unsigned int id)
{
	static char buf[MUXBPF_MAX_PHASES][16];

	if (id < MUXBPF_PHASE__COUNT)
		return names[id];
	if (id >= MUXBPF_MAX_PHASES)
		return "invalid";
	if (custom[id][0])
		return custom[id];
	snprintf(buf[id], sizeof(buf[id]), "phase%u", id);
	return buf[id];
}

int phase_by_name(const char *name)
{
	for (int i = 1; i < MUXBPF_PHASE__COUNT; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

static void print_valid(const char *bad)
{
	char valid[256] = "all";

	for (int i = 1; i < MUXBPF_PHASE__COUNT; i++) {
		strncat(valid, ",", sizeof(valid) - strlen(valid) - 1);
		strncat(valid, names[i], sizeof(valid) - strlen(valid) - 1);
	}
	pr_err("unknown phase '%s' (valid: %s)", bad, valid);
}

int phases_parse(const char *list, unsigned int *out, int max)
{
	bool want[MUXBPF_PHASE__COUNT] = {};
	char *copy, *tok, *save = NULL;
	int n = 0;

	if (!list || !*list) {
		print_valid("");
		return -EINVAL;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int id;

		if (strcmp(tok, "all") == 0) {
			for (int i = 1; i < MUXBPF_PHASE__COUNT; i++)
				want[i] = true;
			continue;
		}
		id = phase_by_name(tok);
		if (id < 0) {
			print_valid(tok);
			free(copy);
			return -EINVAL;
		}
		want[id] = true;
	}
	free(copy);
	for (int i = 1; i < MUXBPF_PHASE__COUNT && n < max; i++)
		if (want[i])
			out[n++] = i;
	if (n == 0) {
		print_valid(list);
		return -EINVAL;
	}
	return n;
}
