/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* report.json's parts on the profiler itself: a phase's "cost", the run's "live" session. */
#ifndef MUXBPF_OUT_JSON_LIVE_H
#define MUXBPF_OUT_JSON_LIVE_H

#include "base/json.h"
#include "report/report.h"

/* "cost": the phase's BPF run time and muxbpf's CPU (null when not measured). */
void json_write_cost(struct jw *w, const struct report_phase *p);
/* Inside "cost": "run_counts" and "estimate" (null when not counted / not calibrated). */
void json_write_estimate(struct jw *w, const struct mb_cost *c);
/* "corrected": the phase's figures less muxbpf's own time (an estimate; null without it). */
void json_write_corrected(struct jw *w, const struct report_phase *p);
/* "live": attach / phases marked from outside, maps' occupancy (null for a driven run). */
void json_write_live(struct jw *w, const struct report *r);

#endif /* MUXBPF_OUT_JSON_LIVE_H */
