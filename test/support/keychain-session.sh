#!/usr/bin/env bash
# Run by real-keychain.test.ts as `dbus-run-session -- bash keychain-session.sh`: a private session
# bus, a fresh gnome-keyring on it (unlocked with a throwaway password, so libsecret never prompts),
# then the built CLI through login, status, logout, status.
#
# Inputs (environment): HOME (a temp dir), NODE, SVC_BIN, SVC_KEYCHAIN (the backend), SVC_TEST_BASE_URL, TOKEN_FILE, OUT.
# Each step leaves OUT/<step>.out, OUT/<step>.err and OUT/<step>.code for the test to read.
set -u

keyring_pid=
cleanup() {
  if [ -n "$keyring_pid" ]; then
    kill "$keyring_pid" 2>/dev/null
    wait "$keyring_pid" 2>/dev/null
  fi
}
trap cleanup EXIT

# --foreground keeps the daemon our child, so it is ended by its pid, never by name.
printf %s 'throwaway-keyring-password' |
  gnome-keyring-daemon --foreground --unlock --components=secrets >"$OUT/keyring.out" 2>"$OUT/keyring.err" &
keyring_pid=$!

ready=no
for _ in $(seq 1 100); do
  if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; then
    ready=yes
    break
  fi
  if ! kill -0 "$keyring_pid" 2>/dev/null; then break; fi
  sleep 0.1
done
if [ "$ready" != yes ]; then
  echo "gnome-keyring-daemon did not register org.freedesktop.secrets on the session bus" >&2
  cat "$OUT/keyring.err" >&2
  exit 90
fi
# Whatever the daemon prints (GNOME_KEYRING_CONTROL=...), as a login session would export it.
set -a
# shellcheck disable=SC1091
. "$OUT/keyring.out"
set +a

step() {
  local name=$1
  shift
  "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
  echo $? >"$OUT/$name.code"
}

step login "$NODE" "$SVC_BIN" auth login --with-token --base-url "$SVC_TEST_BASE_URL" <"$TOKEN_FILE"
step status "$NODE" "$SVC_BIN" auth status --json
if [ -e "$HOME/.config/svc/credentials.json" ]; then echo present; else echo absent; fi >"$OUT/credentials-file"
cp "$HOME/.config/svc/config.json" "$OUT/config-after-login.json" 2>/dev/null
step logout "$NODE" "$SVC_BIN" auth logout --json
step status-after-logout "$NODE" "$SVC_BIN" auth status
exit 0
