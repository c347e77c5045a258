#!/usr/bin/env bash
# scripts/root.sh trusts no directory another user could have made: a roots directory or a root
# (or its stamp, its log, a half-made root) owned by another user, writable by others, or a
# symbolic link is refused with a message before anything runs in it; a roots directory under a
# sticky world-writable parent (as /var/tmp is) that root made is used. One line per case, as
# pg_regress prints them. Needs root (it hands directories to another user).
set -u
cd "$(dirname "$0")/../.."
if [ "$(id -u)" -ne 0 ]; then
	echo "roots check skipped: it needs root"
	exit 0
fi
other=nobody
tmp=$(mktemp -d /tmp/docmodel-roots-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
rc=0
# case NAME EXPECT(ok|refused) PATTERN DIR: scripts/root.sh check 17 with DOCMODEL_ROOTS=DIR
case_() {
	local name=$1 expect=$2 pattern=$3 dir=$4 out r
	out=$(DOCMODEL_ROOTS="$dir" scripts/root.sh check 17 2>&1)
	r=$?
	if { [ "$expect" = ok ] && [ "$r" = 0 ]; } ||
		{ [ "$expect" = refused ] && [ "$r" != 0 ] && echo "$out" | grep -qE "$pattern"; }; then
		echo "test roots_$name ... ok"
	else
		echo "test roots_$name ... FAILED"
		echo "  expected $expect ($pattern), got exit $r: $out"
		rc=1
	fi
}
mkdir -p "$tmp/fresh"
case_ absent ok '' "$tmp/fresh/roots"
mkdir -m 755 "$tmp/good" "$tmp/good/trixie"
echo stamp >"$tmp/good/trixie/.docmodel-stamp"
case_ root_owned ok '' "$tmp/good"
mkdir -m 755 "$tmp/theirs"
chown "$other" "$tmp/theirs"
case_ dir_of_another_user refused "owned by $other, not root" "$tmp/theirs"
mkdir -m 777 "$tmp/open"
case_ dir_writable_by_all refused 'mode 777\) is writable by others' "$tmp/open"
mkdir -m 775 "$tmp/group"
case_ dir_writable_by_group refused 'mode 775\) is writable by others' "$tmp/group"
ln -s "$tmp/good" "$tmp/link"
case_ dir_a_link refused 'is a symbolic link' "$tmp/link"
mkdir -m 755 "$tmp/planted" "$tmp/planted/trixie"
chown "$other" "$tmp/planted/trixie"
case_ root_of_another_user refused "trixie is owned by $other" "$tmp/planted"
mkdir -m 755 "$tmp/halfmade" "$tmp/halfmade/trixie.new"
chown "$other" "$tmp/halfmade/trixie.new"
case_ half_made_root_of_another_user refused "trixie.new is owned by $other" "$tmp/halfmade"
mkdir -m 755 "$tmp/stamped" "$tmp/stamped/trixie"
echo stamp >"$tmp/stamped/trixie/.docmodel-stamp"
chown "$other" "$tmp/stamped/trixie/.docmodel-stamp"
case_ stamp_of_another_user refused ".docmodel-stamp is owned by $other" "$tmp/stamped"
mkdir -m 755 "$tmp/logged"
ln -s /etc/passwd "$tmp/logged/trixie.log"
case_ log_a_link refused 'trixie.log is a symbolic link' "$tmp/logged"
mkdir -m 777 "$tmp/ww"
mkdir -m 755 "$tmp/ww/roots"
case_ parent_writable_by_all refused "ww \(mode 777\) is writable by others" "$tmp/ww/roots"
mkdir -m 1777 "$tmp/sticky"
mkdir -m 755 "$tmp/sticky/roots"
case_ parent_sticky ok '' "$tmp/sticky/roots"
case_ relative_path refused 'must be an absolute path' "roots"
# the refusal comes before anything is made or run
out=$(DOCMODEL_ROOTS="$tmp/theirs" scripts/root.sh run 17 true 2>&1)
if [ $? != 0 ] && [ -z "$(ls -A "$tmp/theirs")" ]; then
	echo "test roots_run_refused_before_use ... ok"
else
	echo "test roots_run_refused_before_use ... FAILED"
	echo "  $out"
	rc=1
fi
exit $rc
