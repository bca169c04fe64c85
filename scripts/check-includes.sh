#!/bin/sh
# The include rules of src/, bpf/ and include/ (part of make test; no build needed).  Exits 1
# after naming every file that breaks one:
#  1. Stage order.  src/ holds one folder per stage, in the order of ORDER below; a file of a
#     folder includes headers of its own folder and of earlier ones only, and names the folder
#     ("symbols/elfread.h").  A file outside the folders, or a folder not in ORDER, breaks it.
#  2. One header per .c.  A function that X.c defines for others is declared in X.h, the .c's
#     own header, and in no other header (a private X_int.h may declare those of X.c and X_*.c):
#     a module's includes then show every module it uses.
#  3. No circle.  A module is a .c with its own header (X.c, X.h, X_int.h), or a header with no
#     .c of its name (session.h, report.h: plain data); module A uses module B when a file of A
#     includes a header of B.  tsort finds loops.
#   scripts/check-includes.sh [REPO_DIR]
set -u
cd "${1:-.}" || exit 2
ORDER="base proc model symbols fold loader session report output cli"
bad=$(mktemp) || exit 2
trap 'rm -f "$bad" "$bad.fns"' EXIT

rank() { # $1 = folder: its place in ORDER, or nothing
	i=0
	for d in $ORDER; do
		[ "$d" = "$1" ] && echo $i && return
		i=$((i + 1))
	done
}

includes() { # $1 = file: the quoted includes, one a line
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

# 1. stage order
for f in src/*.[ch]; do
	[ -f "$f" ] && echo "$f: outside the stage folders (src/FOLDER/, one of: $ORDER)" >> "$bad"
done
for dir in src/*/; do
	d=$(basename "$dir")
	[ "$d" = assets ] && continue
	[ -n "$(rank "$d")" ] || echo "src/$d/: a folder not in the order ($ORDER)" >> "$bad"
done
for f in src/*/*.[ch]; do
	[ -f "$f" ] || continue
	d=$(basename "$(dirname "$f")")
	r=$(rank "$d")
	[ -n "$r" ] || continue
	includes "$f" | while read -r inc; do
		case $inc in
		*/*)
			[ -f "src/$inc" ] || continue
			ir=$(rank "${inc%%/*}")
			if [ -z "$ir" ] || [ "$ir" -gt "$r" ]; then
				echo "$f includes $inc: against the order ($d/ comes before ${inc%%/*}/)"
			fi ;;
		*)
			for g in src/*/"$inc"; do
				[ -f "$g" ] && echo "$f includes \"$inc\" without its folder (${g#src/})"
			done ;;
		esac
	done >> "$bad"
done

# 2. one header per .c: functions defined without static in a .c (a line at column 0 with the
# name and "(" that does not end in ";"), against the headers declaring them
awk '/^[A-Za-z_]/ && !/^(static|typedef|#|enum|union|struct [A-Za-z_0-9]+ \{)/ && /\(/ {
	if (match($0, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		n = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", n); print "h", n, FILENAME
	} }' src/*/*.h > "$bad.fns"
awk '/^[A-Za-z_]/ && !/static|^(typedef|extern|#|enum|union|struct [A-Za-z_0-9]+ \{)/ &&
	/\(/ && !/;[ \t]*$/ {
	if (match($0, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		n = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", n); print "c", n, FILENAME
	} }' src/*/*.c >> "$bad.fns"
awk '$1 == "h" { h[$2] = h[$2] " " $3; next }
	{
		own = $3; sub(/\.c$/, "", own)
		n = split(h[$2], hs, " ")
		for (i = 1; i <= n; i++) {
			if (hs[i] == own ".h")
				continue
			if (hs[i] ~ /_int\.h$/) {
				x = hs[i]; sub(/_int\.h$/, "", x)
				if (own == x || index(own, x "_") == 1)
					continue
			}
			o = own; sub(/^src\//, "", o)
			print hs[i] " declares " $2 ", defined in " $3 ": one header per .c (" o ".h)"
		}
	}' "$bad.fns" >> "$bad"
rm -f "$bad.fns"

# 3. no circle between modules (src/FOLDER/NAME, bpf/NAME, include/NAME)
module() { # $1 = path of a file of the tree
	echo "$1" | sed 's/\.bpf\.[ch]$//; s/_int\.h$//; s/\.[ch]$//'
}
edges=$(for f in src/*/*.[ch] bpf/*.[ch] include/*.h; do
	[ -f "$f" ] || continue
	from=$(module "$f")
	includes "$f" | while read -r inc; do
		# only headers of this tree (not the generated skeleton, vmlinux.h, protobuf)
		if [ -f "src/$inc" ]; then to=$(module "src/$inc")
		elif [ -f "bpf/$inc" ]; then to=$(module "bpf/$inc")
		elif [ -f "include/$inc" ]; then to=$(module "include/$inc")
		else continue
		fi
		[ "$from" = "$to" ] || echo "$from $to"
	done
done)
loops=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null)
if [ -n "$loops" ]; then
	echo "include circle among modules (each line of the loop includes the next):" >> "$bad"
	printf '%s\n' "$loops" | sed 's/^tsort: -: input contains a loop:/loop:/; s/^tsort: /  /' \
		>> "$bad"
fi

if [ -s "$bad" ]; then
	cat "$bad"
	exit 1
fi
echo "includes: $(printf '%s\n' "$edges" | sort -u | wc -l) edges between modules, in the order" \
	"$ORDER, one header per .c, no circle"
