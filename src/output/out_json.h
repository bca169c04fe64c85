/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* report.json: every number of the report (doc/report.schema.json). */
#ifndef MUXBPF_OUT_JSON_H
#define MUXBPF_OUT_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include "session/opts.h"
#include "report/report.h"

#define REPORT_JSON_SCHEMA_VERSION 1
#define MUXBPF_VERSION_STRING MUXBPF_VERSION

struct runs_summary;

int report_json_write(FILE *f, const struct report *r, const struct runs_summary *rs);
/* The same, indented (pretty) or on one line (embedded in report.html). */
int report_json_emit(FILE *f, const struct report *r, const struct runs_summary *rs, bool pretty);

#endif /* MUXBPF_OUT_JSON_H */
