#!/bin/sh
# No include circles: exits 1, naming the circle, when the modules of src/ and bpf/ include
# each other in a loop.  A module is a file's name without .c/.h (src/session/run.c and
# src/session/run.h are module run; a private header X_int.h belongs to module X); module A uses
# module B when a file of A includes B's header.  tsort finds loops.
#   scripts/check-includes.sh [REPO_DIR]
set -u
cd "${1:-.}" || exit 2
edges=$(for f in src/*/*.[ch] bpf/*.[ch] include/*.h; do
	[ -f "$f" ] || continue
	from=$(basename "$f" | sed 's/\.bpf\.[ch]$//; s/_int\.h$//; s/\.[ch]$//')
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r inc; do
		to=$(basename "$inc" | sed 's/\.bpf\.h$//; s/_int\.h$//; s/\.h$//')
		# only headers of this tree (not the generated skeleton, vmlinux.h, protobuf)
		[ -f "src/$inc" ] || [ -f "bpf/$inc" ] || [ -f "include/$inc" ] || continue
		[ "$from" = "$to" ] || echo "$from $to"
	done
done)
loops=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null)
if [ -n "$loops" ]; then
	echo "include circle among modules (each line of the loop includes the next):"
	printf '%s\n' "$loops" | sed 's/^tsort: -: input contains a loop:/loop:/; s/^tsort: /  /'
	exit 1
fi
echo "no include circle: $(printf '%s\n' "$edges" | wc -l) include edges between modules"
