#!/usr/bin/env bash
# make dist: the release archive PGXN takes, dist/docmodel-VERSION.zip: `git archive` of the tag
# vVERSION (VERSION: docmodel.control's default_version), or of HEAD while that tag does not
# exist, under one top directory docmodel-VERSION/; then META.json and the archive are checked
# (test/meta/check.pl). DIST_DIR: where to write it (default dist/).
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" docmodel.control)
ref="v$version"
if ! git rev-parse -q --verify "refs/tags/$ref" >/dev/null; then
	echo "dist: no tag $ref yet: archiving HEAD"
	ref=HEAD
fi
out="${DIST_DIR:-dist}"
mkdir -p "$out"
archive="$out/docmodel-$version.zip"
git archive --format=zip --prefix="docmodel-$version/" -o "$archive" "$ref"
echo "dist: $archive ($ref)"
perl test/meta/check.pl "$archive"
