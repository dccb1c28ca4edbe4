#!/usr/bin/env bash
# The GitHub Action's work (action.yml runs it): install the cursor-otel
# release for this runner, checked against the release's checksums.txt,
# first on PATH as cursor-agent, with the action's settings exported for
# the job's later steps. Linux and macOS runners, and Windows runners
# through Git Bash.
#
# What it reads (action.yml sets the INPUT_* and ACTION_* ones):
#   INPUT_VERSION            v1.2.3, 1.2.3 or latest; empty: the action's ref
#                            when that names a release, else latest
#   ACTION_REF               the action's own ref (github.action_ref)
#   ACTION_REPOSITORY        owner/name of the action (github.action_repository)
#   INPUT_OTLP_ENDPOINT      exported as OTEL_EXPORTER_OTLP_ENDPOINT
#   INPUT_OTLP_HEADERS       exported as OTEL_EXPORTER_OTLP_HEADERS, masked
#   INPUT_SUMMARY            true: each run's report on its step's summary
#   INPUT_MAX_BUDGET_USD     exported as CURSOR_OTEL_MAX_BUDGET_USD
#   INPUT_INSTALL_AS_AGENT   true: also install it as cursor-agent and agent
#   CURSOR_OTEL_RELEASES_URL where releases are, default
#                            https://github.com/OWNER/NAME/releases: files
#                            under download/TAG/, and latest, which
#                            redirects to tag/TAG
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH, GITHUB_ENV, GITHUB_OUTPUT
#
# Anything wrong stops it with one ::error:: line, and then nothing is
# installed and nothing exported.
set -euo pipefail

fail() {
	echo "::error title=cursor-otel not installed::$*" >&2
	exit 1
}

# one_line is an input as one line: a secret pasted with a newline at its
# end is meant without it; one inside would break $GITHUB_ENV's lines.
one_line() {
	local name=$1 value=$2
	value=${value%"${value##*[![:space:]]}"}
	case $value in
	*$'\n'* | *$'\r'*) fail "the $name input is more than one line" ;;
	esac
	printf '%s' "$value"
}

switch() {
	case $(printf '%s' "$2" | tr '[:upper:]' '[:lower:]') in
	true | yes | on | 1) echo true ;;
	false | no | off | 0) echo false ;;
	*) fail "the $1 input is \"$2\": write true or false" ;;
	esac
}

# The release archives' names, as .goreleaser.yaml makes them.
case ${RUNNER_OS:-} in
Linux) os=linux ;;
macOS) os=darwin ;;
Windows) os=windows ;;
*) fail "no cursor-otel release for the runner's OS \"${RUNNER_OS:-}\" (Linux, macOS and Windows have one)" ;;
esac
case ${RUNNER_ARCH:-} in
X64) arch=amd64 ;;
ARM64) arch=arm64 ;;
*) fail "no cursor-otel release for the runner's architecture \"${RUNNER_ARCH:-}\" (X64 and ARM64 have one)" ;;
esac
ext=tar.gz exe=
if [ "$os" = windows ]; then
	ext=zip exe=.exe
fi

summary=$(switch summary "${INPUT_SUMMARY:-true}")
as_agent=$(switch install-as-agent "${INPUT_INSTALL_AS_AGENT:-true}")
endpoint=$(one_line otlp-endpoint "${INPUT_OTLP_ENDPOINT:-}")
headers=$(one_line otlp-headers "${INPUT_OTLP_HEADERS:-}")
budget=$(one_line max-budget-usd "${INPUT_MAX_BUDGET_USD:-}")
: "${RUNNER_TEMP:?RUNNER_TEMP is not set: run this as the action}"
: "${GITHUB_PATH:?GITHUB_PATH is not set: run this as the action}"
: "${GITHUB_ENV:?GITHUB_ENV is not set: run this as the action}"
if [ -n "$headers" ]; then
	# The whole, and each value, should one be printed alone.
	echo "::add-mask::$headers"
	IFS=, read -ra pairs <<<"$headers"
	for pair in "${pairs[@]}"; do
		[ "${pair#*=}" = "$pair" ] || [ -z "${pair#*=}" ] || echo "::add-mask::${pair#*=}"
	done
fi

# github.action_ref and github.action_repository can be empty in a
# composite action (actions/runner#2473); the runner keeps an action in
# _actions/OWNER/NAME/REF, which says the same.
action_path=${GITHUB_ACTION_PATH:-}
action_path=${action_path//\\//}
if [ -z "${ACTION_REF:-}" ] && [[ $action_path =~ /_actions/([^/]+)/([^/]+)/([^/]+)/?$ ]]; then
	ACTION_REPOSITORY=${ACTION_REPOSITORY:-${BASH_REMATCH[1]}/${BASH_REMATCH[2]}}
	ACTION_REF=${BASH_REMATCH[3]}
fi
releases=${CURSOR_OTEL_RELEASES_URL:-https://github.com/${ACTION_REPOSITORY:-cursor-otel/cursor-otel}/releases}
releases=${releases%/}
work=$(mktemp -d "$RUNNER_TEMP/cursor-otel-download.XXXXXX")
trap 'rm -rf "$work"' EXIT

# get URL FILE: the file at URL (FILE /dev/null: only where URL leads,
# printed), or one line saying why not.
get() {
	local out
	out=$(curl -sSL --retry 3 --connect-timeout 20 -o "$2" -w '%{http_code} %{url_effective}' "$1" 2>"$work/curl.err") ||
		fail "could not download $1: $(tail -n 1 "$work/curl.err")"
	[ "${out%% *}" = 200 ] || fail "could not download $1 (HTTP ${out%% *})"
	[ "$2" != /dev/null ] || printf '%s' "${out#* }"
}

# Which release: the input; else the action's own ref when it is a release
# (uses: ...@v1.2.3); else (@v1, a branch, a commit) the latest.
version=${INPUT_VERSION:-}
if [ -z "$version" ]; then
	version=latest
	if [[ ${ACTION_REF:-} =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
		version=$ACTION_REF
	fi
fi
if [ "$version" = latest ]; then
	where=$(get "$releases/latest" /dev/null)
	version=${where##*/tag/}
	[ "$version" != "$where" ] || fail "no latest release at $releases/latest (it leads to $where)"
fi
[[ $version =~ ^v?[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] ||
	fail "the version \"$version\" is not a release: write v1.2.3 or latest"
tag=v${version#v}

archive=cursor-otel_${tag#v}_${os}_${arch}.$ext
get "$releases/download/$tag/checksums.txt" "$work/checksums.txt"
get "$releases/download/$tag/$archive" "$work/$archive"

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$work/checksums.txt")
[ -n "$want" ] || fail "$archive is not in $tag's checksums.txt"
if command -v sha256sum >/dev/null; then
	got=$(sha256sum "$work/$archive")
else
	got=$(shasum -a 256 "$work/$archive")
fi
got=${got%% *}
[ "$got" = "$want" ] || fail "$archive does not match $tag's checksums.txt (sha256 $got, the release says $want)"

# Made whole in the download directory, then moved in place: a failure
# on the way installs nothing. One directory, first on PATH, holds
# cursor-otel and, as the agent, cursor-agent and agent, which cursor-otel
# knows for itself (it runs the real agent found after them on PATH).
unpacked=$work/unpacked staged=$work/bin
mkdir "$unpacked" "$staged"
if [ "$ext" = zip ]; then
	command -v unzip >/dev/null || fail "no unzip on PATH to unpack $archive (Git Bash has one)"
	unzip -q "$work/$archive" -d "$unpacked"
else
	tar -xzf "$work/$archive" -C "$unpacked"
fi
[ -f "$unpacked/cursor-otel$exe" ] || fail "$archive has no cursor-otel$exe"
mv "$unpacked/cursor-otel$exe" "$staged/"
if [ "$as_agent" = true ]; then
	for name in cursor-agent agent; do
		if [ -n "$exe" ]; then
			cp "$staged/cursor-otel$exe" "$staged/$name$exe" # Git Bash's links are copies anyway
		else
			ln -s cursor-otel "$staged/$name"
		fi
	done
fi
installed=$("$staged/cursor-otel$exe" version 2>&1) || fail "the cursor-otel in $archive does not run here: ${installed%%$'\n'*}"
bin=$RUNNER_TEMP/cursor-otel/bin
mkdir -p "$RUNNER_TEMP/cursor-otel"
rm -rf "$bin"
mv "$staged" "$bin"

path_entry=$bin
if [ "$os" = windows ] && command -v cygpath >/dev/null; then
	path_entry=$(cygpath -w "$bin")
fi
echo "$path_entry" >>"$GITHUB_PATH"
{
	[ -z "$endpoint" ] || echo "OTEL_EXPORTER_OTLP_ENDPOINT=$endpoint"
	[ -z "$headers" ] || echo "OTEL_EXPORTER_OTLP_HEADERS=$headers"
	[ -z "$budget" ] || echo "CURSOR_OTEL_MAX_BUDGET_USD=$budget"
	# Unexpanded: each later step has its own summary file, which
	# cursor-otel reads from that step's $GITHUB_STEP_SUMMARY.
	# shellcheck disable=SC2016
	[ "$summary" = false ] || echo 'CURSOR_OTEL_SUMMARY=$GITHUB_STEP_SUMMARY'
} >>"$GITHUB_ENV"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	{
		echo "version=$tag"
		echo "path=$path_entry"
	} >>"$GITHUB_OUTPUT"
fi
as=
[ "$as_agent" = false ] || as=", also as cursor-agent and agent"
echo "$installed: installed from $archive (sha256 $got, as checksums.txt says) in $path_entry$as"
