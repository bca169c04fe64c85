/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CSS and JavaScript of the flame graph viewer and of report.html, from src/assets/ (built
 * into the binary by scripts/gen-assets.sh, so every artifact is one self-contained file).
 */
#ifndef MUXBPF_ASSETS_H
#define MUXBPF_ASSETS_H

extern const char asset_flame_css[]; /* svg.flame: frames, controls */
extern const char asset_flame_js[];  /* muxFlame(svg): zoom, search; muxFlameStandalone() */
extern const char asset_page_css[];  /* report.html */
extern const char asset_page_js[];   /* report.html: renders the embedded JSON */

#endif /* MUXBPF_ASSETS_H */
