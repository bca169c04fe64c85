// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The progress line. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/phases.h"
#include "base/progress.h"

static struct {
	bool on, drawn;
	int nphases, nruns, run, index;
	unsigned int phase;
	double t0, phase_t0, last_draw;
	uint64_t done, total;
} pg;

void progress_init(bool enabled, int nphases, int nruns)
{
	pg.on = enabled && isatty(STDOUT_FILENO);
	pg.nphases = nphases;
	pg.nruns = nruns;
	pg.t0 = mono_ms() / 1e3;
}

static void draw(bool force)
{
	double t = mono_ms() / 1e3, el = t - pg.phase_t0;
	char rate[32] = "";

	if (!pg.on || (!force && t - pg.last_draw < 0.1))
		return;
	pg.last_draw = t;
	fputs("\r\033[K", stdout);
	if (pg.nruns > 1)
		printf("[run %d/%d] ", pg.run, pg.nruns);
	printf("phase %d/%d %-14s", pg.index, pg.nphases, phase_name(pg.phase));
	if (pg.total) {
		double r = el > 0 ? pg.done / el : 0;

		if (r >= 1000)
			snprintf(rate, sizeof(rate), "%.1fk", r / 1000);
		else
			snprintf(rate, sizeof(rate), "%.0f", r);
		printf(" %llu/%llu cmds  %s cmd/s", (unsigned long long)pg.done,
		       (unsigned long long)pg.total, rate);
	}
	printf("  %.1f s (%.1f s elapsed)", el, t - pg.t0);
	fflush(stdout);
	pg.drawn = true;
}

void progress_run(int run)
{
	pg.run = run;
	pg.index = 0;
}

void progress_phase(unsigned int phase)
{
	pg.phase = phase;
	pg.index++;
	pg.done = pg.total = 0;
	pg.phase_t0 = mono_ms() / 1e3;
	draw(true);
}

void progress_phase_end(void)
{
	draw(true);
}

void progress_commands(void *ctx, unsigned int phase, uint64_t done, uint64_t total)
{
	(void)ctx;
	if (phase != pg.phase)
		return;
	pg.done = done;
	pg.total = total;
	draw(done == total);
}

void progress_clear(void)
{
	if (!pg.on || !pg.drawn)
		return;
	fputs("\r\033[K", stdout);
	fflush(stdout);
	pg.drawn = false;
}
